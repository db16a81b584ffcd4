"""hetcim.analog: RACE-AIMC's noisy analog accelerators from Python, the jobs of ``hetcim analog``.

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
from . import _progress
from . import _torch_tables
from . import results as _results
from ._signatures import options as _options


def _job(name, *, progress=True, returns=None):
    # The tables of _hetcim_torch as python/scripts/make_stubs.py wrote them (importing the module
    # would load libtorch; test_stubs checks them against it).
    return _options(name, _torch_tables.KEYWORDS, _torch_tables.TABLES, progress=progress,
                    returns=returns)


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


@_job("analog_eval", returns="dict")
def evaluate(model, *, progress=None, **options):
    """Accuracy of RACE-AIMC's CNN (an ONNX file with weights, e.g. from :func:`train`) with its
    classifier layers on simulated chips; the convolutions run digitally. `hetcim analog eval`
    makes the same call (api::analog_eval).

    ``chip``: "FILE:PROFILE" for one chip, "FILE" for every profile of the file. Progress
    counts the runs (the digital model, then each chip); Ctrl-C stops after the run under way.
    Returns the dict ``hetcim analog eval --json`` writes: ``dataset``, ``split``, ``runs`` (one
    per chip: ``chip``, ``mode``, ``accuracy``, ``images``, ``seconds``), ``provenance``.
    """
    return _json.loads(_progress.call(_torch().analog_eval, "analog eval runs", progress,
                                      _path(model), **_kw(options)))


@_job("analog_select", progress=False, returns="SelectResult")
def select(model, **options):
    """RACE-AIMC over a pool of simulated chips: a threshold per chip, the selection by
    coverage per energy, an exact Clopper-Pearson certificate; `hetcim analog select` makes the
    same call (api::analog_select).

    ``model``: an ONNX file of RACE-AIMC's CNN with weights; ``chips`` is required. Returns a
    :class:`hetcim.results.SelectResult`: the document ``--json`` writes and the frozen policy
    ``--policy-out`` writes (``.policy``; ``.save_policy(path)`` for :func:`serve`); it unpacks
    as the older tuple ``selection, policy`` of two dicts. Ctrl-C stops it between two batches of
    simulated images (KeyboardInterrupt).
    """
    selection, policy = _torch().analog_select(_path(model), **_kw(options))
    return _results.SelectResult(_json.loads(selection), _json.loads(policy))


@_job("analog_study", progress=False, returns="StudyResult")
def study(**options):
    """RACE-AIMC's experiments end to end (`hetcim analog study`, api::analog_study): trains or
    reuses ``models`` models under ``out``/models, simulates every chip of the pool once per
    model into ``out``/cache, replays the protocol and its ablations. Returns the dict of the
    CLI's ``study.json`` (Table II / III, ablations, Fig. 2 data) as a
    :class:`hetcim.results.StudyResult` (``r["key"]`` as on the dict, ``to_dict()``, ``runs``);
    the figures and report.html are the CLI's. ``chips`` and ``out`` are required. Ctrl-C stops
    it between two batches of training or simulated images (KeyboardInterrupt).
    """
    return _results.StudyResult(_json.loads(_torch().analog_study(**_kw(options))))


@_job("analog_drift", returns="dict")
def drift(model, *, progress=None, **options):
    """Accuracy of RACE-AIMC's CNN on one chip read at increasing times after programming
    (conductance drift from the chip profile), without and with global drift compensation; with
    a frozen policy its coverage, accepted error rate and state check at each time. `hetcim
    analog drift` makes the same call (api::analog_drift).

    ``chip`` ("FILE:PROFILE" with drift fields) or ``policy`` (a policy file). Returns the dict
    of the CLI's ``drift.json``.
    """
    return _json.loads(_progress.call(_torch().analog_drift, "drift steps", progress,
                                      _path(model), **_kw(options)))


@_job("analog_serve", progress=False, returns="tuple[dict, dict]")
def serve(policy, **options):
    """A frozen policy (from :func:`select`, saved as a file) served query by query: one analog
    inference on the selected chip, then accept, fallback or abstain. `hetcim analog serve`
    makes the same call (api::analog_serve).

    ``dataset`` (queries from a data set, labelled) or ``input`` (an .npy file of uint8
    images). Ctrl-C stops after the batch under way. Returns
    (the dict ``--json`` writes, the decisions ``{"route": [...], "label": array, "score":
    array}`` as the rows of ``--decisions``).
    """
    summary, decisions = _torch().analog_serve(_os.fspath(policy), **_kw(options))
    return _json.loads(summary), decisions


@_job("train", returns="dict")
def train(out, *, progress=None, **options):
    """Train RACE-AIMC's CNN with libtorch into the ONNX file ``out`` and its training record
    ``out + ".train.json"`` (`hetcim train race-cnn --out OUT`, api::train_race_cnn).

    Progress counts the batches of all epochs; Ctrl-C stops after the batch under way. Returns a
    dict: ``model`` (the file), ``eval_set`` ("held-out accuracy" or "test
    accuracy"), ``eval_accuracy``, ``test_accuracy`` (both measured after training).
    """
    out = _os.fspath(out)
    eval_set, eval_accuracy, test_accuracy = _progress.call(_torch().train, "training batches",
                                                            progress, out, **_kw(options))
    return {"model": out, "eval_set": eval_set, "eval_accuracy": eval_accuracy,
            "test_accuracy": test_accuracy}


@_options("analog_run", _hetcim.keywords(), _hetcim.option_tables(), progress=False,
          returns="tuple[dict[str, numpy.ndarray], dict]")
def run(model, inputs=None, **options):
    """Any model with chosen Conv/Gemm/MatMul nodes on a simulated chip (no libtorch):
    :func:`hetcim.analog_run`."""
    from . import analog_run  # noqa: PLC0415
    return analog_run(model, inputs, **_kw(options))


@_options("analog_audit", _hetcim.keywords(), _hetcim.option_tables(), progress=False,
          returns="tuple[list[dict], list[str], str]")
def audit(model, **options):
    """The per-layer mapping report of a model's weights on a chip (no libtorch):
    :func:`hetcim.analog_audit`."""
    from . import analog_audit  # noqa: PLC0415
    return analog_audit(model, **_kw(options))
