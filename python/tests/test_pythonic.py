"""What a Python user expects of the package (issue 36): real signatures made from the options
tables, result objects (repr, to_dict, NumPy arrays, SVG for Jupyter) that agree with the
documents the calls return, progress callbacks, array-likes and comma lists accepted. Values are
checked against the document the same call returns, the option tables, or counts known by hand."""

import inspect
import json

import numpy as np
import pytest

import hetcim
import hetcim.analog
from hetcim import _hetcim, _torch_tables

# Public function -> the job whose keywords it takes (the binding's name).
JOBS = {
    hetcim.partition: "partition",
    hetcim.partition_front: "partition_front",
    hetcim.partition_front_3d: "partition_front_3d",
    hetcim.partition_milp: "partition_milp",
    hetcim.partition_platform: "partition_platform",
    hetcim.partition_platform_problem: "partition_platform",
    hetcim.partition_platform_milp: "partition_platform",
    hetcim.dse: "dse",
    hetcim.dse_platform: "dse_platform",
    hetcim.run: "run",
    hetcim.run_timed: "run",
    hetcim.profile: "profile",
    hetcim.inspect: "inspect",
    hetcim.export_onnx: "export_onnx",
    hetcim.sensitivity: "sensitivity",
    hetcim.execute: "execute",
    hetcim.analog_run: "analog_run",
    hetcim.analog_audit: "analog_audit",
    hetcim.cluster.roofline: "cluster_roofline",
    hetcim.cluster.bottleneck: "cluster_bottleneck",
    hetcim.cluster.calibrate: "cluster_calibrate",
    hetcim.cluster.constants: "cluster_constants",
    hetcim.analog.evaluate: "analog_eval",
    hetcim.analog.select: "analog_select",
    hetcim.analog.study: "analog_study",
    hetcim.analog.drift: "analog_drift",
    hetcim.analog.serve: "analog_serve",
    hetcim.analog.train: "train",
}


def keywords():
    k = dict(_hetcim.keywords())
    k.update(_torch_tables.KEYWORDS)
    return k


def tables():
    t = dict(_hetcim.option_tables())
    t.update(_torch_tables.TABLES)
    return t


@pytest.fixture(scope="module")
def resnet18():
    return hetcim.load_model("resnet18")


@pytest.mark.parametrize("func", list(JOBS), ids=lambda f: f.__qualname__)
def test_every_keyword_of_the_binding_is_a_keyword_only_parameter(func):
    job = JOBS[func]
    sig = inspect.signature(func)
    kw_only = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]
    names = set(kw_only) - {"progress"}
    positional = {p.name for p in sig.parameters.values() if p.kind != p.KEYWORD_ONLY}
    # Every keyword the binding applies is in the signature (a leading parameter such as
    # export_onnx's path or partition_milp's format aside), and nothing else is.
    assert names | (positional & set(keywords()[job])) == set(keywords()[job])
    assert not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    for f in tables().get(job, []):
        if f["name"] not in names:
            continue
        p = sig.parameters[f["name"]]
        # The help of the table is in the docstring, the default is the table's.
        assert f"``{f['name']}`` (default {p.default!r}): {f['help']}" in func.__doc__
        if f["default"] == "":
            assert p.default is None
        elif f["kind"] == "bool":
            assert p.default == (f["default"] == "true")
        elif f["unit"] or f["percent"]:
            assert p.default == f["default"]
        elif f["kind"] in ("int", "float"):
            assert float(p.default) == float(f["default"])
        else:
            assert p.default == f["default"]


def test_the_torch_tables_are_those_of_the_built_module():
    torch = pytest.importorskip("hetcim._hetcim_torch")
    assert _torch_tables.KEYWORDS == {k: list(v) for k, v in torch.keywords().items()}
    assert _torch_tables.TABLES == {k: [dict(f) for f in v]
                                    for k, v in torch.option_tables().items()}


def test_passing_every_default_shown_gives_the_result_of_passing_none(resnet18):
    # The defaults in the signature are the request's own: giving all of them explicitly (units
    # as their text, '600 s') changes nothing.
    sig = inspect.signature(hetcim.partition)
    given = {n: p.default for n, p in sig.parameters.items()
             if p.kind == p.KEYWORD_ONLY and n != "progress" and p.default is not None}
    assert given["time_limit"] == "600 s" and given["preset"] == "cortex-a72-rram"
    a = hetcim.partition(resnet18, crossbars=100, t_mvm="50ns")
    b = hetcim.partition(resnet18, **{**given, "crossbars": 100, "t_mvm": "50ns"})
    assert a.to_dict()["operators"] == b.to_dict()["operators"]
    assert a.latency_s == b.latency_s


def test_partition_result_agrees_with_its_document(resnet18):
    plan = hetcim.partition(resnet18, preset="seed000-arm", crossbars=100, t_mvm="50ns")
    doc = json.loads(plan.json)
    assert plan.to_dict() == doc and plan["operators"] == doc["operators"]
    ops = doc["operators"]
    np.testing.assert_array_equal(plan.start_s, [o["start_s"] for o in ops])
    np.testing.assert_array_equal(plan.finish_s, [o["finish_s"] for o in ops])
    assert plan.on_cim.dtype == bool and int(plan.on_cim.sum()) == doc["cim_ops"]
    assert plan.assignment == hetcim.assignment(plan)
    assert plan.speedup == pytest.approx(doc["cpu_only_s"] / doc["latency_s"], rel=1e-12)
    text = repr(plan)
    assert text.startswith("<hetcim.PartitionResult resnet18 on seed000-arm, 100 crossbars: ")
    assert f"{doc['cim_ops']} of {len(ops)} operators on CIM" in text
    assert "ok, optimal, solved" in text
    assert plan._repr_svg_() == plan.gantt_svg() and "<svg" in plan.svg
    # to_dict is a copy: changing it leaves the result alone.
    d = plan.to_dict()
    d["operators"].clear()
    assert len(plan["operators"]) == len(ops)


def test_front_is_a_result_and_still_unpacks(resnet18):
    r = hetcim.partition_front(resnet18, preset="seed000-x86", t_mvm="500ns")
    doc, svg = r
    assert doc == r.to_dict() and svg == r.svg == r._repr_svg_() and "<svg" in svg
    np.testing.assert_array_equal(r.latency_s, [p["latency_s"] for p in doc["points"]])
    np.testing.assert_array_equal(r.energy_j, [p["energy_j"]["total"] for p in doc["points"]])
    assert repr(r).startswith(f"<hetcim.Front {len(doc['points'])} points (supported)")


def test_platform_result_has_its_gantt():
    r = hetcim.partition_platform("bottleneck", platform="seed001-cluster", imas=8)
    assert isinstance(r, hetcim.Result) and r["status"] == "optimal" == r.status
    assert r.engine == [o["engine"] for o in r["operators"]]
    assert "<svg" in r._repr_svg_()
    assert repr(r).startswith("<hetcim.PlatformResult bottleneck on seed001-cluster: ")


def test_dse_takes_the_clis_comma_lists_and_is_a_sequence_of_points():
    a = hetcim.dse(models="resnet18,mobilenetv2", crossbars="50,100", t_mvm="50ns,100ns",
                   hosts="arm")
    b = hetcim.dse(models=["resnet18", "mobilenetv2"], crossbars=[50, 100],
                   t_mvm=["50ns", "100ns"], hosts=["arm"])
    assert len(a) == 2 * 2 * 2 == len(b)  # models x crossbars x t_mvm
    assert [p["latency_s"] for p in a] == [p["latency_s"] for p in b]
    doc = a.to_dict()
    assert set(doc) >= {"points", "provenance", "summary"}
    np.testing.assert_array_equal(a.latency_s, [p["latency_s"] for p in doc["points"]])
    np.testing.assert_array_equal(a.crossbars, [50, 50, 100, 100] * 2)
    assert a[0] == doc["points"][0] and a[-1] == doc["points"][-1]
    assert repr(a).startswith("<hetcim.DseResult 8 points (mobilenetv2, resnet18 on arm): 8 ")


def test_float64_and_lists_are_converted_for_a_float32_input(resnet18):
    x = np.random.default_rng(3).random((1, 3, 224, 224), dtype=np.float32)
    ref = hetcim.run(resnet18, x, warmup=0, runs=1)
    (name,) = ref
    # Every float32 value is exact in float64 and back, so the outputs are bit-identical.
    for given in (x.astype(np.float64), x.tolist(), {"input": x.astype(np.float64)}):
        np.testing.assert_array_equal(hetcim.run(resnet18, given, warmup=0, runs=1)[name],
                                      ref[name])


def test_progress_sees_every_step_of_a_sensitivity():
    seen = []
    hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8, max_pairs=0,
                       progress=lambda done, total: seen.append((done, total)))
    # race_cnn_mnist has 5 chip operators: 1 digital run + 5 single + 4 greedy runs = 10.
    assert seen and seen[-1] == (10, 10)
    assert all(t == 10 for _, t in seen) and [d for d, _ in seen] == sorted({d for d, _ in seen})
    with pytest.raises(TypeError, match="progress"):
        hetcim.sensitivity("race_cnn_mnist", chip="A3", progress=3)


def test_an_exception_in_the_progress_callback_stops_the_call():
    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop(f"{done}/{total}")

    with pytest.raises(Stop):
        hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8,
                           max_pairs=0, progress=stop)
    # The next call runs to its end (the stop request was cleared).
    seen = []
    hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8, max_pairs=0,
                       progress=lambda d, t: seen.append(d))
    assert seen[-1] == 10


def test_a_tqdm_bar_when_asked(capsys):
    pytest.importorskip("tqdm")
    hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8, max_pairs=0,
                       progress=True)
    assert "10/10" in capsys.readouterr().err


def test_outputs_keep_the_models_names_in_every_precision(resnet18):
    # The int8 lowering renames the graph's float output (fc -> fc_dequantized); the dict does not.
    assert resnet18.outputs == ["fc"]
    for precision in ("fp32", "int8"):
        assert list(hetcim.run(resnet18, precision=precision, warmup=0, runs=1)) == ["fc"]


def test_select_and_study_results_read_their_documents():
    # A select document and a policy as `analog select --json` / `--policy-out` write them (the
    # keys of report/race_select.cpp), made by hand: two accelerators, A1 selected.
    stats = lambda rows, acc, err: {"rows": rows, "accepted": acc, "errors": err,  # noqa: E731
                                    "correct": acc - err, "coverage": acc / rows,
                                    "selective_risk": err / acc, "accuracy": 0.9}
    doc = {"accelerators": [
        {"name": "A0", "energy_uJ": 0.7, "fit": {"policy": stats(1000, 600, 30)},
         "test": stats(2000, 1300, 70)},
        {"name": "A1", "energy_uJ": 0.5, "fit": {"policy": stats(1000, 800, 40)},
         "test": stats(2000, 1500, 90)}],
        "selected": "A1",
        "certificate": {"certified": True, "risk_target": 0.1, "upper_bound": 0.0625},
        "test": {"hybrid_accuracy": 0.9123}}
    policy = {"kind": "hetcim frozen policy (seed 002)", "accelerator": "A1"}
    r = hetcim.results.SelectResult(doc, policy)
    assert list(r.names) == ["A0", "A1"]
    np.testing.assert_allclose(r.energy_uJ, [0.7, 0.5])
    np.testing.assert_allclose(r.coverage, [0.6, 0.8])
    np.testing.assert_allclose(r.test_risk, [70 / 1300, 90 / 1500])
    assert r.selected == "A1" and r.certified and r.upper_bound == 0.0625
    assert repr(r) == ("<hetcim.SelectResult A1 selected of 2; certificate holds (risk <= 0.0625 "
                       "at target 0.1); test accuracy 91.23 % hybrid>")
    selection, pol = r  # the older tuple
    assert selection == doc and pol == policy and r[1] == policy and r["selected"] == "A1"
    pol["accelerator"] = "A0"  # copies: the result is unchanged
    assert r.policy["accelerator"] == "A1"

    study = {"base": {"runs": [{"test_coverage": 0.7, "hybrid_accuracy": 0.9},
                               {"test_coverage": 0.8, "hybrid_accuracy": 0.92}],
                      "certified_coverage": {"mean": 0.75}, "hybrid_accuracy": {"mean": 0.91}},
             "options": {}}
    s = hetcim.results.StudyResult(study)
    np.testing.assert_allclose(s.column("test_coverage"), [0.7, 0.8])
    assert s["options"] == {} and s.to_dict() == study
    assert repr(s) == ("<hetcim.StudyResult 2 models, certified coverage 75.00 % (mean), test "
                       "accuracy 91.00 % (mean)>")
