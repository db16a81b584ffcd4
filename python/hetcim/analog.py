"""hetcim.analog: seed 002's noisy analog accelerators from Python, the jobs of ``hetcim analog``.

Each function is one call of the api (``<hetcim/analog.h>``, src/api_torch), the call the
command line makes: keyword arguments are the command's flags with underscores (``chip_seed`` for
``--chip-seed``; the split sizes of ``select`` and ``study`` are ``hardware_rows``, ``policy_rows``,
``certificate_rows``, ``test_rows``), filled into the same request, which checks itself with the
command's messages (bad input raises :class:`hetcim.UserError`). Results are the dicts the
command's ``--json`` writes. The libtorch module ``hetcim._hetcim_torch`` is loaded by the first
call that needs it: ``import hetcim`` (and ``import hetcim.analog``) does not load libtorch.
:func:`run` and :func:`audit` need no libtorch.

>>> import hetcim
>>> hetcim.analog.train("cnn.onnx", preset="fast")                  # hetcim train race-cnn
>>> r = hetcim.analog.evaluate("cnn.onnx", chip="data/chips.yaml:A3", layers="classifier", seed=7)
>>> r["runs"][0]["accuracy"]
"""

import json as _json
import os as _os

from . import _hetcim


def _torch():
    from . import _hetcim_torch  # noqa: PLC0415  (libtorch on first use only)
    return _hetcim_torch


def _kw(options):
    """Paths may be given as os.PathLike (pathlib.Path) wherever the CLI takes a file."""
    return {k: _os.fspath(v) if isinstance(v, _os.PathLike) else v for k, v in options.items()}


def _path(model):
    """An ONNX file: a path, or a :class:`hetcim.Model` loaded from one (its spec)."""
    if isinstance(model, _hetcim.Model):
        return model.spec
    return _os.fspath(model)


def evaluate(model, **options):
    """Accuracy of seed 002's CNN (an ONNX file with weights, e.g. from :func:`train`) with its
    classifier layers on simulated chips; the convolutions run digitally. `hetcim analog eval`
    makes the same call (api::analog_eval).

    Options: chip ("FILE:PROFILE" for one chip, "FILE" for every profile of the file), digital
    (also the clean digital model, first), layers ("classifier" or comma-separated Gemm nodes),
    mode ("physical" | "reference"), chip_seed (alias seed), read_seed, dataset
    ("fashion-mnist" | "cifar10"), data_dir, split ("test" | "train"), limit, batch_size, threads.
    Returns the dict ``hetcim analog eval --json`` writes: ``dataset``, ``split``, ``runs`` (one
    per chip: ``chip``, ``mode``, ``accuracy``, ``images``, ``seconds``), ``provenance``.
    """
    return _json.loads(_torch().analog_eval(_path(model), **_kw(options)))


def select(model, **options):
    """RACE-AIMC (seed 002) over a pool of simulated chips: a threshold per chip, the selection by
    coverage per energy, an exact Clopper-Pearson certificate; `hetcim analog select` makes the
    same call (api::analog_select).

    ``model``: an ONNX file of seed 002's CNN with weights. Options (the CLI's flags): chips
    (required), pool ("A0,A5"), mode, chip_seed, read_seed, dataset, data_dir, calibration
    ("holdout" | "test"), holdout, holdout_seed, split, limit, risk (--alpha), certificate_delta
    (--delta), design_risk, design_delta, score, bias_correction, policy_rows, hardware_rows,
    certificate_rows, test_rows, split_seed, batch_size, threads, cache (a logit cache
    directory), logits (replay from a cache only), fallback_energy / communication_energy /
    controller_energy / class_energy (J or "4uJ"). Returns (the dict ``--json`` writes, the
    frozen policy ``--policy-out`` writes: save it with json.dump for :func:`serve`).
    """
    selection, policy = _torch().analog_select(_path(model), **_kw(options))
    return _json.loads(selection), _json.loads(policy)


def study(**options):
    """Seed 002's experiments end to end (`hetcim analog study`, api::analog_study): trains or
    reuses ``models`` models under ``out``/models, simulates every chip of the pool once per
    model into ``out``/cache, replays the protocol and its ablations. Returns the dict of the
    CLI's ``study.json`` (Table II / III, ablations, Fig. 2 data); the figures and report.html
    are the CLI's.

    Options: chips and out (required), pool, models, preset ("paper" | "fast"), epochs, lr,
    train_limit, holdout, holdout_seed, mode, seed, split_seed, hardware_rows, policy_rows,
    certificate_rows, test_rows (--test), design_risks (list or "0.05,0.1"), availability,
    fallback_energy (J or "4uJ"), batch_size, threads, dataset, data_dir, paper_data.
    """
    return _json.loads(_torch().analog_study(**_kw(options)))


def drift(model, **options):
    """Accuracy of seed 002's CNN on one chip read at increasing times after programming
    (conductance drift from the chip profile), without and with global drift compensation; with
    a frozen policy its coverage, accepted error rate and state check at each time. `hetcim
    analog drift` makes the same call (api::analog_drift).

    Options: chip ("FILE:PROFILE" with drift fields) or policy (a policy file), times
    ("1s,1h,1d,1mo,1y"), compensation ("none" | "global" | "both"), dataset, data_dir, split,
    limit, chip_seed (alias seed), read_seed, batch_size, threads, audit. Returns the dict of the
    CLI's ``drift.json``.
    """
    return _json.loads(_torch().analog_drift(_path(model), **_kw(options)))


def serve(policy, **options):
    """A frozen policy (from :func:`select`, saved as a file) served query by query: one analog
    inference on the selected chip, then accept, fallback or abstain. `hetcim analog serve`
    makes the same call (api::analog_serve).

    Options: dataset (queries from a data set, labelled) or input (an .npy file of uint8
    images), data_dir, split, limit, read_seed, batch_size, abstain, model, chips. Returns
    (the dict ``--json`` writes, the decisions ``{"route": [...], "label": array, "score":
    array}`` as the rows of ``--decisions``).
    """
    summary, decisions = _torch().analog_serve(_os.fspath(policy), **_kw(options))
    return _json.loads(summary), decisions


def train(out, **options):
    """Train seed 002's CNN with libtorch into the ONNX file ``out`` and its training record
    ``out + ".train.json"`` (`hetcim train race-cnn --out OUT`, api::train_race_cnn).

    Options: dataset, data_dir, preset ("paper": 30 epochs; "fast": 2), epochs, lr, holdout,
    holdout_seed, batch_size, weight_decay, crop_padding, flip, seed, train_limit, eval_limit,
    threads. Returns a dict: ``model`` (the file), ``eval_set`` ("held-out accuracy" or "test
    accuracy"), ``eval_accuracy``, ``test_accuracy`` (both measured after training).
    """
    out = _os.fspath(out)
    eval_set, eval_accuracy, test_accuracy = _torch().train(out, **_kw(options))
    return {"model": out, "eval_set": eval_set, "eval_accuracy": eval_accuracy,
            "test_accuracy": test_accuracy}


def run(model, inputs=None, **options):
    """Any model with chosen Conv/Gemm/MatMul nodes on a simulated chip (no libtorch):
    :func:`hetcim.analog_run`."""
    from . import analog_run  # noqa: PLC0415
    return analog_run(model, inputs, **_kw(options))


def audit(model, **options):
    """The per-layer mapping report of a model's weights on a chip (no libtorch):
    :func:`hetcim.analog_audit`."""
    from . import analog_audit  # noqa: PLC0415
    return analog_audit(model, **_kw(options))
