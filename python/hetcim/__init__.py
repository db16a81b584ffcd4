"""hetcim: put neural networks on host CPUs plus in-memory-computing (CIM) accelerators.

The same front door as the C++ library (``#include <hetcim/hetcim.h>``) and the ``hetcim``
command: every function here is one call of the api module. Bad input raises
:class:`hetcim.UserError` (a ``ValueError``) with the message the command line prints.

>>> import hetcim
>>> m = hetcim.load_model("resnet18")
>>> plan = hetcim.partition(m, preset="cortex-a72-rram", crossbars=100, t_mvm="50ns")
>>> plan                      # <hetcim.PartitionResult resnet18 on cortex-a72-rram, ...>
>>> plan.latency_s, plan.speedup, plan.to_dict()["operators"][0]

Every option is a keyword with its default and help (``help(hetcim.partition)``,
``inspect.signature``; the stubs ``__init__.pyi`` for static tools), generated from the request's
field table that the CLI's flags come from. The partitioning jobs return result objects
(:mod:`hetcim.results`: ``repr``, ``to_dict()``, NumPy arrays, their figure as SVG for Jupyter);
long calls stop on Ctrl-C (KeyboardInterrupt) and report progress (``progress=callable`` or a
tqdm bar when tqdm is installed).

RACE-AIMC's libtorch jobs (evaluate, select, study, drift, serve, train) are in
:mod:`hetcim.analog`, which loads libtorch on its first call only.
"""

import json as _json
import os as _os

from ._hetcim import (  # noqa: F401  (re-exported)
    InternalError,
    Model,
    RunResult,
    UserError,
    build_info,
    list_models,
    load_model,
)
from . import _hetcim
from . import _progress
from ._signatures import options as _options
from .results import DseResult, Front, PartitionResult, PlatformResult, Result  # noqa: F401

__version__ = _hetcim.build_info()["version"]

_KEYWORDS = _hetcim.keywords()
_TABLES = _hetcim.option_tables()


def _job(name, *, progress=True, returns=None):
    return _options(name, _KEYWORDS, _TABLES, progress=progress, returns=returns)


def _model(model, batch=1):
    return model if isinstance(model, Model) else load_model(_os.fspath(model), batch)


def _kw(options):
    """Paths may be given as os.PathLike (pathlib.Path) wherever the CLI takes a file."""
    return {k: _os.fspath(v) if isinstance(v, _os.PathLike) else v for k, v in options.items()}


def _split(value, cast=str):
    """A list keyword given as the CLI's comma-separated text ("resnet18,yolov5n")."""
    if isinstance(value, str):
        return [cast(v.strip()) for v in value.split(",") if v.strip()]
    return value


@_job("inspect", progress=False, returns="dict")
def inspect(model, **options):
    """What a network asks of a crossbar system, per operator and in total.

    ``model`` is a :class:`Model` or a zoo name / ONNX path. Returns the dict that
    ``hetcim inspect --json`` writes:
    ``{"model", "precision", "operators": [...], "totals": {...}, ...}``.
    """
    return _json.loads(_hetcim.inspect_json(_model(model), **_kw(options)))


@_job("export_onnx", progress=False, returns="bytes")
def export_onnx(model, path=None, **options):
    """The model as a standard ONNX file (fp32, or with ``int8=True`` statically quantized in QDQ
    form): the bytes ``hetcim export --onnx`` writes, also written to ``path`` when given.
    Returns the bytes.
    """
    data = _hetcim.export_onnx(_model(model), **_kw(options))
    if path is not None:
        # hetcim's own writer (util/files.h), as `hetcim export --onnx`: all or nothing through a
        # temporary beside the file; a device, FIFO or directory refused, never written through.
        _hetcim.write_file(str(path), data)
    return data


def inspect_table(model, precision="int8"):
    """The table ``hetcim inspect`` prints, as text."""
    return _hetcim.inspect_table(_model(model), precision)


@_job("run", progress=False, returns="dict[str, numpy.ndarray]")
def run(model, inputs=None, **options):
    """Execute a model on this CPU with the oneDNN engine.

    ``inputs``: an array (one-input models) or a dict ``{name: array}``; any array-like is taken
    as NumPy makes it, and a float64 array for a float32 input is converted to float32; missing
    inputs are seeded random (``input_seed``). Returns a dict of output arrays by name (views of
    the engine's results, no copy).
    """
    return _hetcim.run(_model(model), inputs, **_kw(options))[0]


@_job("analog_run", progress=False, returns="tuple[dict[str, numpy.ndarray], dict]")
def analog_run(model, inputs=None, **options):
    """Run a model with chosen Conv/Gemm/MatMul nodes on a simulated analog chip (RACE-AIMC's
    crossbar model) and the rest on the reference interpreter; `hetcim analog run` makes the same
    call. No libtorch involved. ``chip`` ("FILE:PROFILE", or a bare profile name such as "A0" of
    the shipped data/chips.yaml) and ``layers`` are required; ``inputs`` as :func:`run`.
    Returns (outputs by name as NumPy arrays, converter counts as a dict).
    """
    return _hetcim.analog_run(_model(model), inputs, **_kw(options))


@_job("analog_audit", progress=False, returns="tuple[list[dict], list[str], str]")
def analog_audit(model, **options):
    """The per-layer mapping report of an ONNX model's weights on a chip profile (RACE-AIMC
    eq. 4-5), as `hetcim analog audit` prints it. Returns (list of per-layer dicts, skipped layers, the
    CLI's table as text)."""
    return _hetcim.analog_audit(model=_os.fspath(model), **_kw(options))


@_job("run", progress=False, returns="tuple[dict[str, numpy.ndarray], RunResult]")
def run_timed(model, inputs=None, **options):
    """As :func:`run`, returning ``(outputs, timing)``: ``timing.latency_s`` (median wall time
    per run, measured on this machine), ``latency_min_s``, ``cpu_s``, ``operators``."""
    return tuple(_hetcim.run(_model(model), inputs, **_kw(options)))


@_job("profile", returns="dict")
def profile(model, *, progress=None, **options):
    """Measure this CPU as a host, per operator (median / min / p90 after warm-up).

    Returns the host profile as the dict ``hetcim profile --json`` writes; the partitioner reads
    it back from a file (``host=path``).
    """
    return _json.loads(_progress.call(_hetcim.profile_json, "profile", progress, _model(model),
                                      **_kw(options)))


@_job("partition", returns="PartitionResult | PlatformResult")
def partition(model, *, progress=None, **options):
    """Partition a network between the host and the crossbar accelerator (Klein et al. 2026).

    Every flag of ``hetcim partition`` but the output paths is a keyword, with underscores; the
    accuracy budget (``sensitivity``: a file of :func:`sensitivity`, ``max_accuracy_drop``,
    ``chip``, ...) re-evaluates the plan on the chip. Returns a :class:`PartitionResult`:
    ``latency_s``, ``status``, ``speedup``, ``json`` (the file ``--json`` writes, with
    ``accuracy`` when the plan was re-evaluated on the chip), ``to_dict()``, ``text()``,
    ``gantt_svg()``, ``save(path)``, ``assignment``. Ctrl-C stops the search (KeyboardInterrupt).
    With ``platform`` (as ``--platform``), the call is :func:`partition_platform`'s and returns
    its :class:`PlatformResult`.
    """
    if options.get("platform"):
        return partition_platform(model, progress=progress, **options)
    return PartitionResult(_progress.call(_hetcim.partition, "host measurement", progress,
                                          _model(model), **_kw(options)))


@_job("partition_milp", returns="str")
def partition_milp(model, format="mps", *, progress=None, **options):  # noqa: A002  (the CLI's word)
    """The paper's MILP of the problem as the text of an MPS (``format="mps"``) or LP file, as
    ``hetcim partition --mps / --lp`` writes it; options as :func:`partition`."""
    return _progress.call(_hetcim.partition_milp, "host measurement", progress, _model(model),
                          format, **_kw(options))


@_job("partition_front_3d", returns="Result")
def partition_front_3d(model, *, progress=None, **options):
    """The latency x energy x accuracy-drop front (``hetcim partition --pareto-3d``): needs
    ``sensitivity`` and ``chip``; options as :func:`partition`. Returns a :class:`Result` of its
    JSON (``to_dict()``, ``r["points"]``, ``column("latency_s")``)."""
    r = Result(_json.loads(_progress.call(_hetcim.partition_front_3d_json, "host measurement",
                                          progress, _model(model), **_kw(options))))
    r._rows_key = "points"
    return r


def assignment(plan):
    """``{operator name: "host" | "cim"}`` of a :class:`PartitionResult`."""
    return {op["name"]: op["device"] for op in _json.loads(plan.json)["operators"]}


@_job("partition_front", returns="Front")
def partition_front(model, *, progress=None, **options):
    """The latency-energy Pareto front (exact solver over every weight); options as
    :func:`partition` (no solver, replay or energy_weight), and ``front``: ``"supported"`` (the
    points a weighted sum reaches) or ``"full"`` (every non-dominated point).

    Returns a :class:`Front`: the document ``hetcim partition --pareto`` writes (``to_dict()``),
    ``points``, the arrays ``latency_s`` and ``energy_j``, the plot as ``svg`` (shown by
    Jupyter). ``front, svg = hetcim.partition_front(...)`` still unpacks as the older tuple.
    """
    text, svg = _progress.call(_hetcim.partition_front, "host measurement", progress,
                               _model(model), **_kw(options))
    return Front(_json.loads(text), svg)


@_job("partition_platform", returns="PlatformResult")
def partition_platform(model, *, platform="pulp-pcm-cluster", progress=None, **options):
    """A network mapped across the K engines of a platform by the exact solver its shape calls for
    (Klein et al. 2026's two-device solver on a host + crossbar + one link platform, the K-engine
    one otherwise) or the K-engine MILP on CBC. Returns a :class:`PlatformResult`: the document
    ``hetcim partition MODEL --platform P --json`` writes (``r["latency_s"]``, ``to_dict()``),
    its Gantt chart as ``svg``.
    """
    text, svg = _progress.call(_hetcim.partition_platform_json, "partition", progress,
                               _model(model), **_kw(dict(options, platform=platform)))
    return PlatformResult(_json.loads(text), svg)


@_job("partition_platform", returns="str")
def partition_platform_problem(model, *, platform="pulp-pcm-cluster", progress=None, **options):
    """A platform's problem written out whole, before it is solved, as the JSON text ``hetcim
    partition MODEL --platform P --problem-json`` writes: every operator's options and costs per
    engine, capacities, exclusive groups, links and edge bytes; options as
    :func:`partition_platform`."""
    return _progress.call(_hetcim.partition_platform_problem, "partition", progress,
                          _model(model), **_kw(dict(options, platform=platform)))


@_job("partition_platform", returns="str")
def partition_platform_milp(model, format="mps", *, platform="pulp-pcm-cluster", progress=None,
                            **options):  # noqa: A002  (the CLI's word)
    """The K-engine MILP of a platform's problem as the text of an MPS (``format="mps"``) or LP
    file, as ``hetcim partition MODEL --platform P --mps / --lp`` writes it; options as
    :func:`partition_platform`."""
    return _progress.call(_hetcim.partition_platform_milp, "partition", progress, _model(model),
                          format, **_kw(dict(options, platform=platform)))


@_job("dse", returns="DseResult")
def dse(*, progress=None, **options):
    """Klein et al. 2026's design-space exploration: every model on every host for every crossbar
    budget and MVM latency, each point solved to proven optimality (or stopped by ``time_limit`` with
    its best plan and bound). The grid's lists take a list or the CLI's comma-separated text
    (``models="resnet18,yolov5n"``).

    Returns a :class:`DseResult`: the whole ``dse.json`` (``to_dict()``, with provenance and
    summary), a sequence of its points as before (``r[0]["latency_s"]``), arrays
    (``r.latency_s``, ``r.column("speedup")``).
    """
    o = _kw(options)
    for key, cast in (("models", str), ("hosts", str), ("crossbars", int), ("t_mvm", str)):
        if key in o:
            o[key] = _split(o[key], cast)
    return DseResult(_json.loads(_progress.call(_hetcim.dse_json, "DSE points", progress, **o)))


@_job("dse_platform", returns="Result")
def dse_platform(*, progress=None, **options):
    """A platform's design-space exploration (``hetcim dse --platform P --sweep KEY=v1,v2``):
    every model mapped by the exact solver its shape calls for at every grid point. Returns a
    :class:`Result` of ``platform_dse.json`` (``r["points"]``, ``to_dict()``).
    """
    o = _kw(options)
    if isinstance(o.get("sweep"), str):
        o["sweep"] = [o["sweep"]]
    if "models" in o:
        o["models"] = _split(o["models"])
    r = Result(_json.loads(_progress.call(_hetcim.dse_platform_json, "platform DSE points",
                                          progress, **o)))
    r._rows_key = "points"
    return r


class cluster:  # noqa: N801  (a namespace, as in the CLI: hetcim cluster roofline | bottleneck)
    """Garofalo et al. 2022's heterogeneous cluster as an analytical model."""

    @staticmethod
    @_job("cluster_roofline", progress=False, returns="dict")
    def roofline(**options):
        """Fig. 7 of Garofalo et al. 2022: the roofline of the cluster's executions (the dict
        ``hetcim cluster roofline --json`` writes)."""
        return _json.loads(_hetcim.cluster_roofline_json(**_kw(options)))

    @staticmethod
    @_job("cluster_bottleneck", progress=False, returns="dict")
    def bottleneck(**options):
        """Fig. 8-10 of Garofalo et al. 2022: the Bottleneck study (the dict ``hetcim cluster
        bottleneck --json`` writes)."""
        return _json.loads(_hetcim.cluster_bottleneck_json(**_kw(options)))

    @staticmethod
    @_job("cluster_constants", progress=False, returns="str")
    def constants(**options):
        """Every constant of the cluster model with its value and source (paper, derived,
        literature, assumed or calibrated): the table ``hetcim cluster constants`` prints, as
        text."""
        return _hetcim.cluster_constants_text(**_kw(options))

    @staticmethod
    @_job("cluster_calibrate", returns="dict")
    def calibrate(*, progress=None, **options):
        """A CALIBRATION, not a reproduction: the per-job overhead and the cores' rates fitted
        to Fig. 9, and Fig. 7 with them (the dict ``hetcim cluster calibrate --json`` writes)."""
        return _json.loads(_progress.call(_hetcim.cluster_calibrate_json, "calibration",
                                          progress, **_kw(options)))


@_job("sensitivity", returns="dict")
def sensitivity(model, *, progress=None, **options):
    """Per-operator accuracy drops of a network on a simulated analog chip (issue 13), with
    greedy and pairwise additivity checks; returns the dict of the sensitivity file
    (``hetcim sensitivity --out``), which ``hetcim partition --sensitivity`` reads. ``chip``
    ("data/chips.yaml:A3") is required. Progress counts the chip runs; Ctrl-C stops the call
    after the run under way.
    """
    return _json.loads(_progress.call(_hetcim.sensitivity_json, "sensitivity runs", progress,
                                      _model(model), **_kw(options)))


@_job("execute", progress=False, returns="dict")
def execute(model, **options):
    """A partition plan end to end: host operators on oneDNN, CIM operators on a simulated chip;
    returns the dict ``hetcim execute --json`` writes. ``model`` is a zoo name or an ONNX path;
    ``plan`` (a partition file) and ``chip`` are required.
    """
    spec = model.spec if isinstance(model, Model) else _os.fspath(model)
    return _json.loads(_hetcim.execute_json(spec, **_kw(options)))


def analog_select(model, **options):
    """The former name of :func:`hetcim.analog.select` (kept as an alias)."""
    return analog.select(model, **options)


_show = globals()
for _name in ("Model", "RunResult", "UserError", "InternalError"):
    _show[_name].__module__ = "hetcim"
del _show, _name


from . import analog  # noqa: E402  (pure Python; loads libtorch only on its first call)
