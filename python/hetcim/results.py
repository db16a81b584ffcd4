"""Result objects of the partitioning jobs: one shape for :func:`hetcim.partition`,
:func:`hetcim.partition_platform`, :func:`hetcim.partition_front` and :func:`hetcim.dse`.

Each holds the document the matching command writes with ``--json`` (``to_dict()``, and
``r["key"]`` as on that dict), shows a one-line summary as its ``repr``, gives NumPy arrays for
its per-operator or per-point numbers (``column(key)`` and the named properties) and, where the
command draws one, its figure as SVG (``svg``; ``_repr_svg_`` shows it in Jupyter). The numbers
are the document's: modelled by the hardware preset or measured, as its ``provenance`` says.
"""

import copy as _copy
import json as _json

import numpy as _np


def _time(s):
    """Seconds in the unit a reader expects (ms for a network's latency)."""
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale or unit == "ns":
            return f"{s / scale:.4g} {unit}"
    return f"{s:g} s"


def _energy(j):
    if j is None:
        return "-"
    for unit, scale in (("J", 1.0), ("mJ", 1e-3), ("uJ", 1e-6), ("nJ", 1e-9)):
        if abs(j) >= scale or unit == "nJ":
            return f"{j / scale:.4g} {unit}"
    return f"{j:g} J"


def _column(rows, key):
    """The values of `key` over `rows` as a NumPy array (float, with NaN for a missing value, when
    they are numbers; an object array otherwise). A dotted key reaches into nested dicts
    ("energy_j.total")."""
    values = []
    for row in rows:
        v = row
        for part in key.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        values.append(v)
    if all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values):
        return _np.array([_np.nan if v is None else v for v in values], dtype=float)
    return _np.array(values, dtype=object)


class Result:
    """A job's result: the document its command writes as JSON, plus its figure when it has one.

    ``to_dict()`` (a copy), ``to_json()``, ``r["key"]``, ``"key" in r``, ``keys()``, ``get()``;
    ``provenance``; ``svg`` and ``_repr_svg_`` (None without a figure); ``column(key)``."""

    _rows_key = "operators"

    def __init__(self, doc, svg=None):
        self._doc = doc
        self._svg = svg

    def to_dict(self):
        """The document as a dict (a deep copy: changing it leaves the result alone)."""
        return _copy.deepcopy(self._doc)

    def to_json(self, indent=1):
        return _json.dumps(self._doc, indent=indent)

    def __getitem__(self, key):
        return self._doc[key]

    def __contains__(self, key):
        return key in self._doc

    def keys(self):
        return self._doc.keys()

    def get(self, key, default=None):
        return self._doc.get(key, default)

    @property
    def provenance(self):
        """Where the numbers come from: command line, commit, date, host source, solver, ..."""
        return self._doc.get("provenance")

    @property
    def svg(self):
        """The figure (Gantt chart or front) as SVG text, or None."""
        return self._svg

    def _repr_svg_(self):
        return self._svg

    def save_svg(self, path):
        """Writes the figure as hetcim writes its outputs (all or nothing)."""
        if self._svg is None:
            raise ValueError(f"{type(self).__name__} has no figure")
        from . import _hetcim  # noqa: PLC0415
        import os  # noqa: PLC0415
        _hetcim.write_file(os.fspath(path), self._svg.encode())

    def column(self, key):
        """``key`` over the result's rows (operators or points) as a NumPy array."""
        return _column(self._doc.get(self._rows_key, []), key)

    def __repr__(self):
        return f"<hetcim.{type(self).__name__} {self._summary()}>"

    def _summary(self):
        return ", ".join(sorted(self._doc))


class PartitionResult(Result):
    """One network on the host + CIM accelerator (:func:`hetcim.partition`).

    As before: ``latency_s``, ``status`` (the call's and the solver's, "ok, optimal, solved"),
    ``json`` (the text ``--json`` writes), ``text()`` (what the command prints), ``gantt_svg()``,
    ``save(path)`` (a partition file, ``replay=path`` replays it). Also ``cpu_only_s`` (all on
    the host), ``speedup``, ``energy_j``, ``assignment`` ({operator: "host" | "cim"}), the
    per-operator arrays ``start_s``, ``finish_s``, ``on_cim`` and ``names``; the Gantt chart as
    ``svg``."""

    def __init__(self, native):
        self._native = native
        super().__init__(_json.loads(native.json))

    # The native object's calls (the C++ report functions).
    @property
    def latency_s(self):
        return self._native.latency_s

    @property
    def status(self):
        return self._native.status

    @property
    def json(self):
        return self._native.json

    def text(self):
        return self._native.text()

    def gantt_svg(self):
        return self._native.gantt_svg()

    def save(self, path):
        import os  # noqa: PLC0415
        self._native.save(os.fspath(path))

    @property
    def svg(self):
        if self._svg is None:
            self._svg = self._native.gantt_svg()
        return self._svg

    def _repr_svg_(self):
        return self.svg

    @property
    def cpu_only_s(self):
        """The network all on the host (the same cost model), s."""
        return self._doc.get("cpu_only_s")

    @property
    def speedup(self):
        return self._doc.get("speedup")

    @property
    def energy_j(self):
        return self._doc.get("energy_j")

    @property
    def operators(self):
        return self._doc["operators"]

    @property
    def assignment(self):
        return {op["name"]: op["device"] for op in self._doc["operators"]}

    @property
    def names(self):
        return [op["name"] for op in self._doc["operators"]]

    @property
    def start_s(self):
        return self.column("start_s")

    @property
    def finish_s(self):
        return self.column("finish_s")

    @property
    def on_cim(self):
        return _np.array([op["device"] == "cim" for op in self._doc["operators"]], dtype=bool)

    def _summary(self):
        d = self._doc
        ops = d.get("operators", [])
        cim = sum(1 for op in ops if op.get("device") == "cim")
        s = (f"{d.get('model')} on {d.get('hardware')}, {d.get('crossbar_budget')} crossbars: "
             f"{_time(self.latency_s)}")
        if d.get("cpu_only_s"):
            s += f" ({d.get('speedup', 0):.3g}x the all-host {_time(d['cpu_only_s'])})"
        return s + f", {cim} of {len(ops)} operators on CIM; {self.status}"


class PlatformResult(Result):
    """One network across the K engines of a platform (:func:`hetcim.partition_platform`): the
    document ``partition --platform --json`` writes, its Gantt chart as ``svg``; ``latency_s``,
    ``status``, ``engine`` (per operator), ``start_s``, ``finish_s``."""

    @property
    def latency_s(self):
        return self._doc.get("latency_s")

    @property
    def status(self):
        return self._doc.get("status")

    @property
    def operators(self):
        return self._doc["operators"]

    @property
    def engine(self):
        return [op["engine"] for op in self._doc["operators"]]

    @property
    def start_s(self):
        return self.column("start_s")

    @property
    def finish_s(self):
        return self.column("finish_s")

    def _summary(self):
        d = self._doc
        return (f"{d.get('model')} on {d.get('platform')}: {_time(d.get('latency_s'))}, "
                f"{_energy(d.get('energy_j'))}, {d.get('status')} ({d.get('solver')}), "
                f"{len(d.get('operators', []))} operators on {len(d.get('engines', []))} engines")


class Front(Result):
    """The latency-energy Pareto front (:func:`hetcim.partition_front`): the document ``partition
    --pareto`` writes, the plot as ``svg``; ``points``, and the arrays ``latency_s``,
    ``energy_j`` (total per point), ``crossbars_used``.

    Unpacking as the older tuple still works: ``front, svg = hetcim.partition_front(...)`` gives
    the document as a dict and the SVG text."""

    _rows_key = "points"

    @property
    def points(self):
        return self._doc["points"]

    @property
    def latency_s(self):
        return self.column("latency_s")

    @property
    def energy_j(self):
        return self.column("energy_j.total")

    @property
    def crossbars_used(self):
        return self.column("crossbars_used")

    def __iter__(self):  # the older (dict, svg) tuple
        return iter((self.to_dict(), self._svg))

    def __len__(self):
        return 2

    def _summary(self):
        lat, en = self.latency_s, self.energy_j
        s = f"{len(self.points)} points ({self._doc.get('kind')})"
        if len(lat):
            s += (f", latency {_time(lat.min())} to {_time(lat.max())}, energy "
                  f"{_energy(en.min())} to {_energy(en.max())}")
        return s


class DseResult(Result):
    """Klein et al. 2026's design-space exploration (:func:`hetcim.dse`): the whole ``dse.json``
    (``to_dict()``: points, provenance, summary); a sequence of its points as before
    (``len(r)``, ``r[0]``, ``for p in r``); arrays ``latency_s``, ``bound_s``, ``crossbars``,
    ``t_mvm_s``, ``speedup`` and ``column(key)`` for any other field of a point."""

    _rows_key = "points"

    @property
    def points(self):
        return self._doc["points"]

    @property
    def summary(self):
        return self._doc.get("summary")

    def __len__(self):
        return len(self._doc["points"])

    def __iter__(self):
        return iter(self._doc["points"])

    def __getitem__(self, key):
        if isinstance(key, (int, slice)):
            return self._doc["points"][key]
        return self._doc[key]

    @property
    def latency_s(self):
        return self.column("latency_s")

    @property
    def bound_s(self):
        return self.column("bound_s")

    @property
    def crossbars(self):
        return self.column("crossbars")

    @property
    def t_mvm_s(self):
        return self.column("t_mvm_s")

    @property
    def speedup(self):
        return self.column("speedup")

    def _summary(self):
        pts = self.points
        models = sorted({p.get("model") for p in pts})
        hosts = sorted({p.get("host") for p in pts})
        optimal = sum(1 for p in pts if p.get("status") == "optimal")
        cached = sum(1 for p in pts if p.get("cached"))
        return (f"{len(pts)} points ({', '.join(models)} on {', '.join(hosts)}): {optimal} proven "
                f"optimal, {cached} from the cache")


class SelectResult(Result):
    """RACE-AIMC over a pool (:func:`hetcim.analog.select`): the document ``hetcim analog select
    --json`` writes (``to_dict()``: options, accelerators, selected, certificate, test, energy_uJ,
    provenance) and the frozen policy ``--policy-out`` writes (``policy``, a dict; ``save_policy``
    writes it for :func:`hetcim.analog.serve`). Per accelerator of the pool, as NumPy arrays in
    pool order: ``names``, ``energy_uJ``, ``coverage`` (on the policy split at its threshold),
    ``test_coverage``, ``test_risk``; ``selected``, ``certified``, ``upper_bound``.

    Unpacking as the older tuple still works: ``selection, policy = hetcim.analog.select(...)``
    gives both documents as dicts."""

    _rows_key = "accelerators"

    def __init__(self, doc, policy):
        super().__init__(doc)
        self._policy = policy

    @property
    def policy(self):
        """The frozen policy (a copy), as ``--policy-out`` writes it."""
        return _copy.deepcopy(self._policy)

    def save_policy(self, path):
        """Writes the frozen policy as hetcim writes its outputs (all or nothing)."""
        from . import _hetcim  # noqa: PLC0415
        import os  # noqa: PLC0415
        _hetcim.write_file(os.fspath(path), (_json.dumps(self._policy, indent=1) + "\n").encode())

    @property
    def accelerators(self):
        return self._doc.get("accelerators", [])

    @property
    def names(self):
        return self.column("name")

    @property
    def energy_uJ(self):
        return self.column("energy_uJ")

    @property
    def coverage(self):
        return self.column("fit.policy.coverage")

    @property
    def test_coverage(self):
        return self.column("test.coverage")

    @property
    def test_risk(self):
        return self.column("test.selective_risk")

    @property
    def selected(self):
        return self._doc.get("selected")

    @property
    def certified(self):
        return bool((self._doc.get("certificate") or {}).get("certified"))

    @property
    def upper_bound(self):
        return (self._doc.get("certificate") or {}).get("upper_bound")

    def __iter__(self):  # the older (selection, policy) tuple
        return iter((self.to_dict(), self.policy))

    def __getitem__(self, key):  # r[0], r[1] as on the older tuple; r["key"] on the document
        if isinstance(key, (int, slice)):
            return (self.to_dict(), self.policy)[key]
        return self._doc[key]

    def __len__(self):
        return 2

    def _summary(self):
        cert = self._doc.get("certificate") or {}
        test = self._doc.get("test") or {}
        s = (f"{self.selected or 'no accelerator'} selected of {len(self.accelerators)}; "
             f"certificate {'holds' if cert.get('certified') else 'not certified'}")
        if cert.get("upper_bound") is not None:
            s += f" (risk <= {cert['upper_bound']:.4g} at target {cert.get('risk_target')})"
        if test.get("hybrid_accuracy") is not None:
            s += f"; test accuracy {100 * test['hybrid_accuracy']:.2f} % hybrid"
        return s


class StudyResult(Result):
    """The RACE-AIMC study (:func:`hetcim.analog.study`): the document of ``study.json``
    (``to_dict()``, ``r["key"]`` as the older dict: options, the protocol's runs under
    ``base``, the ablations, Fig. 2 data, provenance). ``runs``: the protocol's figures per model;
    ``column(key)`` of them as a NumPy array (e.g. ``"test_coverage"``, ``"hybrid_accuracy"``)."""

    @property
    def runs(self):
        return (self._doc.get("base") or {}).get("runs", [])

    def column(self, key):
        return _column(self.runs, key)

    def _summary(self):
        base = self._doc.get("base") or {}
        s = f"{len(self.runs)} models"
        for key, name in (("certified_coverage", "certified coverage"),
                          ("hybrid_accuracy", "test accuracy")):
            m = (base.get(key) or {}).get("mean")
            if m is not None:
                s += f", {name} {100 * m:.2f} % (mean)"
        return s
