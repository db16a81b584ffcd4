"""hetcim: put neural networks on host CPUs plus in-memory-computing (CIM) accelerators.

The same front door as the C++ library (``#include <hetcim/hetcim.h>``) and the ``hetcim``
command: every function here is one call of the api module. Bad input raises
:class:`hetcim.UserError` (a ``ValueError``) with the message the command line prints.

>>> import hetcim
>>> m = hetcim.load_model("resnet18")
>>> plan = hetcim.partition(m, preset="seed000-arm", crossbars=100, t_mvm="50ns")
>>> plan.latency_s, plan.status

Seed 002's libtorch jobs (evaluate, select, study, drift, serve, train) are in
:mod:`hetcim.analog`, which loads libtorch on its first call only.
"""

import json as _json

from ._hetcim import (  # noqa: F401  (re-exported)
    InternalError,
    Model,
    PartitionResult,
    RunResult,
    UserError,
    build_info,
    list_models,
    load_model,
)
from . import _hetcim

__version__ = _hetcim.build_info()["version"]


def _model(model, batch=1):
    return model if isinstance(model, Model) else load_model(model, batch)


def inspect(model, precision="int8", crossbar="256x256", differential=False, **options):
    """What a network asks of a crossbar system, per operator and in total.

    ``model`` is a :class:`Model` or a zoo name / ONNX path. Options: the fields of the request's
    table (``_hetcim.option_tables()["inspect"]``) and ``crossbar`` ("ROWSxCOLS" or a pair).
    Returns the dict that ``hetcim inspect --json`` writes:
    ``{"model", "precision", "operators": [...], "totals": {...}, ...}``.
    """
    return _json.loads(_hetcim.inspect_json(_model(model), precision=precision,
                                            crossbar=crossbar, differential=differential,
                                            **options))


def export_onnx(model, path=None, **options):
    """The model as a standard ONNX file (fp32, or with ``int8=True`` statically quantized in QDQ
    form): the bytes ``hetcim export --onnx`` writes, also written to ``path`` when given.

    Options: the fields of ``_hetcim.option_tables()["export_onnx"]`` (weight_seed, int8,
    calibration_seed, calibration_samples). Returns the bytes.
    """
    data = _hetcim.export_onnx(_model(model), **options)
    if path is not None:
        # hetcim's own writer (util/files.h), as `hetcim export --onnx`: all or nothing through a
        # temporary beside the file; a device, FIFO or directory refused, never written through.
        _hetcim.write_file(str(path), data)
    return data


def inspect_table(model, precision="int8"):
    """The table ``hetcim inspect`` prints, as text."""
    return _hetcim.inspect_table(_model(model), precision)


def run(model, inputs=None, **options):
    """Execute a model on this CPU with the oneDNN engine.

    ``inputs``: a NumPy array (one-input models) or a dict ``{name: array}``; missing inputs are
    seeded random (``input_seed``). Options: precision ("fp32" | "int8"), threads, weight_seed,
    input_seed, calibration_seed, calibration_samples, calibration_data (a .npy file or a
    directory of them, int8), calibration_method ("minmax" | "percentile"), calibration_percentile,
    warmup, runs, fuse: the fields of the request's table (``_hetcim.option_tables()["run"]``,
    the same description the CLI's flags and help come from). Returns a dict of output
    arrays by name (views of the engine's results, no copy).
    """
    return _hetcim.run(_model(model), inputs, **options)[0]


def analog_run(model, inputs=None, **options):
    """Run a model with chosen Conv/Gemm/MatMul nodes on a simulated analog chip (seed 002's
    crossbar model) and the rest on the reference interpreter; `hetcim analog run` makes the same
    call. No libtorch involved.

    Options: chip ("FILE:PROFILE", or a bare profile name such as "A0" of the shipped
    data/chips.yaml; required), layers (comma-separated node names, or "classifier"
    for seed 002's CNN, required), mode ("physical" | "reference"), chip_seed, read_seed,
    weight_seed, input_seed. Returns (outputs by name as NumPy arrays, converter counts as a dict).
    """
    return _hetcim.analog_run(_model(model), inputs, **options)


def analog_audit(model, **options):
    """The per-layer mapping report of an ONNX model's weights on a chip profile (seed 002 eq. 4-5),
    as `hetcim analog audit` prints it. Options: chip ("FILE:PROFILE"), layers, chip_seed.
    Returns (list of per-layer dicts, skipped layers, the CLI's table as text)."""
    return _hetcim.analog_audit(model=str(model), **options)


def run_timed(model, inputs=None, **options):
    """As :func:`run`, returning ``(outputs, timing)``: ``timing.latency_s`` (median wall time
    per run, measured on this machine), ``latency_min_s``, ``cpu_s``, ``operators``."""
    return tuple(_hetcim.run(_model(model), inputs, **options))


def profile(model, **options):
    """Measure this CPU as a host, per operator (median / min / p90 after warm-up).

    Options as :func:`run` (warmup 10, runs 50 by default). Returns the host profile as the dict
    ``hetcim profile --json`` writes; the partitioner reads it back from a file (``host=path``).
    """
    return _json.loads(_hetcim.profile_json(_model(model), **options))


def partition(model, **options):
    """Partition a network between the host and the crossbar accelerator (seed 000).

    Options: every flag of ``hetcim partition`` but the output paths, with underscores: preset,
    hw (YAML file), crossbars, t_mvm ("50ns" or seconds), host (arm, x86, a profile file,
    "this"), solver ("exact" | "milp"), time_limit, node_limit (exact solver: deterministic limit
    on search nodes), gap, threads, replicas, transfers, bus_model, energy_weight, replay (a
    partition file to replay instead of solving); the accuracy budget: sensitivity (a file of
    :func:`sensitivity` / ``hetcim sensitivity``), max_accuracy_drop ("2%" or the fraction 0.02),
    chip, chip_seed, read_seed, weight_seed, dataset, calibration, data_dir, cache_dir, cost,
    verify, evaluate_plans, max_tightening, eval_samples, eval_seed. The fields of the request's
    table (``_hetcim.option_tables()["partition"]``, the same description the CLI's flags and
    help come from).
    Returns a :class:`PartitionResult`: ``latency_s``, ``status``, ``json`` (the file
    ``--json`` writes, with ``accuracy`` when the plan was re-evaluated on the chip),
    ``text()``, ``gantt_svg()``, ``save(path)``; ``assignment(plan)`` gives
    ``{operator: "host" | "cim"}``.
    """
    return _hetcim.partition(_model(model), **options)


def partition_milp(model, format="mps", **options):  # noqa: A002  (the CLI's word)
    """The paper's MILP of the problem as the text of an MPS (``format="mps"``) or LP file, as
    ``hetcim partition --mps / --lp`` writes it; options as :func:`partition`."""
    return _hetcim.partition_milp(_model(model), format, **options)


def partition_front_3d(model, **options):
    """The latency x energy x accuracy-drop front (``hetcim partition --pareto-3d``): needs
    ``sensitivity`` and ``chip``; options as :func:`partition`. Returns the dict of its JSON."""
    return _json.loads(_hetcim.partition_front_3d_json(_model(model), **options))


def assignment(plan):
    """``{operator name: "host" | "cim"}`` of a :class:`PartitionResult`."""
    return {op["name"]: op["device"] for op in _json.loads(plan.json)["operators"]}


def partition_front(model, **options):
    """The latency-energy Pareto front (exact solver over every weight).

    Options as :func:`partition` (no solver, replay or energy_weight), and ``front``:
    ``"supported"`` (default: the points a weighted sum reaches) or ``"full"`` (every
    non-dominated point, ``hetcim partition --pareto F --front full``). Returns ``(front, svg)``:
    the dict ``hetcim partition --pareto`` writes and the SVG plot.
    """
    text, svg = _hetcim.partition_front(_model(model), **options)
    return _json.loads(text), svg


def partition_platform(model, **options):
    """A network mapped across the K engines of a platform by the K-engine exact solver (or the
    K-engine MILP on CBC); returns the dict ``hetcim partition MODEL --platform P --json`` writes.

    Options: platform (seed000-arm, seed000-x86, seed001-cluster or a YAML file; default
    seed001-cluster), imas, reprogram (True: the platform's crossbar reprogramming, e.g. the
    IMA's PCM figures; each crossbar operator resident or rewritten at every inference), objective
    (latency | energy), time_limit (s), node_limit, solver (exact | milp), gap and threads (MILP).
    """
    return _json.loads(_hetcim.partition_platform_json(_model(model), **options))


def dse(**options):
    """Seed 000's design-space exploration; returns the list of points of ``dse.json`` (each with
    its host source, status and cached flag; the whole document, with its provenance and summary,
    is ``json.loads(hetcim._hetcim.dse_json(**options))``).

    Options: models, crossbars, t_mvm (list of "50ns" or seconds), hosts, bus, time_limit (per
    exact solve; a point it stops keeps its best plan and bound), milp, milp_time_limit, threads,
    replicas, transfers, bus_model, cache_dir.
    """
    return _json.loads(_hetcim.dse_json(**options))["points"]


def dse_platform(**options):
    """A platform's design-space exploration (``hetcim dse --platform P --sweep KEY=v1,v2``):
    every model mapped by the K-engine exact solver at every grid point. Returns the dict of
    ``platform_dse.json``.

    Options: platform (preset or YAML file), sweep (a list of "KEY=v1,v2,..."), imas, models,
    objective (latency | energy), time_limit (s, per point), threads, cache_dir ("": none).
    """
    return _json.loads(_hetcim.dse_platform_json(**options))


class cluster:  # noqa: N801  (a namespace, as in the CLI: hetcim cluster roofline | bottleneck)
    """Seed 001's heterogeneous cluster as an analytical model."""

    @staticmethod
    def roofline(**options):
        """Fig. 7: options preset, config, tcdm_contention, vectors (the table
        ``_hetcim.option_tables()["cluster_roofline"]``), bus_widths, utilizations, executions."""
        return _json.loads(_hetcim.cluster_roofline_json(**options))

    @staticmethod
    def bottleneck(**options):
        """Fig. 8-10: options preset, config, bus_width (bits), execution, tcdm_contention,
        height, width, c_in, expansion, c_out, stride (the table
        ``_hetcim.option_tables()["cluster_bottleneck"]``), mappings."""
        return _json.loads(_hetcim.cluster_bottleneck_json(**options))

    @staticmethod
    def constants(**options):
        """Every constant of the cluster model with its value and source (paper, derived,
        literature, assumed or calibrated): the table ``hetcim cluster constants`` prints, as
        text. Options: preset, config."""
        return _hetcim.cluster_constants_text(**options)

    @staticmethod
    def calibrate(**options):
        """A CALIBRATION, not a reproduction: the per-job overhead and the cores' rates fitted
        to Fig. 9, and Fig. 7 with them; options preset, config, fit ("fig9"), max_overhead,
        rate_points."""
        return _json.loads(_hetcim.cluster_calibrate_json(**options))


def sensitivity(model, **options):
    """Per-operator accuracy drops of a network on a simulated analog chip (issue 13), with
    greedy and pairwise additivity checks; returns the dict of the sensitivity file
    (``hetcim sensitivity --out``), which ``hetcim partition --sensitivity`` reads.

    Options: chip ("data/chips.yaml:A3", required), dataset ("fashion-mnist" | "cifar10" |
    "synthetic"), data_dir, calibration ("holdout", the default: seeded held-out training images,
    those of the model's .train.json when present; or "test"), holdout, holdout_seed, samples,
    chip_seed, read_seed, input_seed, weight_seed, cache_dir, cost ("top1", the default, or
    "logit": the cost a partition budgets), level, max_pairs, greedy, operators.
    """
    return _json.loads(_hetcim.sensitivity_json(_model(model), **options))


def execute(model, **options):
    """A partition plan end to end: host operators on oneDNN, CIM operators on a simulated chip;
    returns the dict ``hetcim execute --json`` writes. ``model`` is a zoo name or an ONNX path.

    Options: plan (a partition file, required), chip (required), mode, host, dataset,
    dataset_dir, split, limit, batch, threads, chip_seed, read_seed, weight_seed, certify, risk,
    certificate_delta, design_risk, design_delta, split_seed.
    """
    return _json.loads(_hetcim.execute_json(model, **options))


def analog_select(model, **options):
    """The former name of :func:`hetcim.analog.select` (kept as an alias)."""
    return analog.select(model, **options)


from . import analog  # noqa: E402  (pure Python; loads libtorch only on its first call)
