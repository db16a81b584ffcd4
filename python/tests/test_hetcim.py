"""The Python package against independent figures: the numbers `hetcim` (the CLI) prints and
writes for the same input, published model facts, and exact determinism. One test per job."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import hetcim

BIN = os.environ.get("HETCIM_BIN", "")


def cli(*args, check=True):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def cli_json(tmp_path, *args):
    out = tmp_path / "cli.json"
    cli(*args, "--json", str(out), "--quiet")
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def resnet18():
    return hetcim.load_model("resnet18")


def test_build_info_names_the_libraries():
    b = hetcim.build_info()
    assert b["version"] == hetcim.__version__
    assert {"oneDNN", "CBC", "ONNX"} <= set(b["dependencies"])


def test_zoo_lists_resnet18_with_its_input_and_the_cli_the_same_models():
    zoo = {m["name"]: m for m in hetcim.list_models()}
    assert zoo["resnet18"]["input"] == [1, 3, 224, 224]
    # torchvision's ResNet-18: 11,689,512 parameters (published).
    assert zoo["resnet18"]["parameters"] == 11689512
    # `hetcim models` prints the same list (one api call behind both): name, input, parameters.
    rows = [line.split()[:3] for line in cli("models").stdout.splitlines()[1:]]
    assert rows == [[m["name"], "x".join(map(str, m["input"])), str(m["parameters"])]
                    for m in hetcim.list_models()]


def test_inspect_matches_the_cli_and_the_published_parameter_count(resnet18, tmp_path):
    r = hetcim.inspect(resnet18)
    # torchvision's ResNet-18 has 11,689,512 parameters (published); 38 operators and 201
    # crossbars of 256x256 are what `hetcim inspect resnet18` prints (tests/integration/cli_test).
    assert r["totals"]["params_published"] == 11689512
    assert r["totals"]["operators"] == 38
    assert r["totals"]["crossbars"] == 201
    assert r == cli_json(tmp_path, "inspect", "resnet18")
    small = hetcim.inspect("resnet18", crossbar="128x128")
    assert small["totals"]["crossbars"] > 201
    assert "crossbars (eq. 1)" in hetcim.inspect_table(resnet18)


def test_run_is_deterministic_zero_copy_and_matches_the_cli(resnet18, tmp_path):
    y1 = hetcim.run(resnet18, warmup=0, runs=1)
    y2 = hetcim.run(resnet18, warmup=0, runs=1)
    (name,) = y1
    out = y1[name]
    assert out.dtype == np.float32 and out.shape == (1, 1000)
    assert not out.flags["OWNDATA"]  # a view of the engine's tensor
    np.testing.assert_array_equal(out, y2[name])
    npy = tmp_path / "out.npy"
    cli("run", "resnet18", "--warmup", "0", "--runs", "1", "--output", str(npy))
    np.testing.assert_array_equal(out, np.load(npy))
    # The same input given explicitly gives the same output as the seeded one read back by the CLI.
    x = np.random.default_rng(3).random((1, 3, 224, 224), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    cli("run", "resnet18", "--warmup", "0", "--runs", "1", "--input", str(tmp_path / "x.npy"),
        "--output", str(npy))
    np.testing.assert_array_equal(hetcim.run(resnet18, x, warmup=0, runs=1)[name], np.load(npy))
    outputs, timing = hetcim.run_timed(resnet18, x, warmup=0, runs=2)
    assert timing.latency_s > 0 and timing.operators > 0


def test_run_rejects_wrong_dtype_and_shape_with_the_clis_message(resnet18, tmp_path):
    # (float64, NumPy's default, is converted for a float32 input: test_pythonic.py.)
    with pytest.raises(hetcim.UserError) as e:
        hetcim.run(resnet18, np.zeros((1, 3, 224, 224), dtype=np.int32), runs=1, warmup=0)
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((1, 3, 224, 224), dtype=np.int32))
    r = cli("run", "resnet18", "--runs", "1", "--warmup", "0", "--input", str(bad), check=False)
    assert r.returncode == 1
    assert r.stderr == f"hetcim: error: {e.value}\n"
    with pytest.raises(ValueError, match="input"):
        hetcim.run(resnet18, np.zeros((1, 3, 32, 32), dtype=np.float32), runs=1, warmup=0)
    with pytest.raises(hetcim.UserError, match="complex"):
        hetcim.run(resnet18, np.zeros((1, 3, 224, 224), dtype=np.complex64), runs=1, warmup=0)


def test_profile_measures_every_operator_the_partitioner_reads(resnet18, tmp_path):
    p = hetcim.profile(resnet18, warmup=0, runs=1)
    assert p["precision"] == "int8"
    names = {op["name"] for op in hetcim.inspect(resnet18)["operators"]}
    assert {op["name"] for op in p["ops"]} == names
    path = tmp_path / "host.json"
    path.write_text(json.dumps(p))
    plan = hetcim.partition(resnet18, host=str(path))
    assert "measured" in json.loads(plan.json)["host"]


def test_partition_matches_the_cli_and_replays(resnet18, tmp_path):
    plan = hetcim.partition(resnet18, preset="seed000-arm", crossbars=100, t_mvm="50ns")
    assert plan.status == "ok, optimal, solved"
    doc = json.loads(plan.json)
    ref = cli_json(tmp_path, "partition", "resnet18", "--preset", "seed000-arm", "--crossbars",
                   "100", "--t-mvm", "50ns")
    assert doc["latency_s"] == ref["latency_s"]
    assert doc["operators"] == ref["operators"]
    assert plan.latency_s == doc["latency_s"]
    a = hetcim.assignment(plan)
    assert len(a) == 38 and set(a.values()) <= {"host", "cim"}
    path = tmp_path / "plan.json"
    plan.save(str(path))
    again = hetcim.partition(resnet18, crossbars=100, t_mvm=50e-9, replay=str(path))
    assert again.status == "ok, replayed"
    assert again.latency_s == pytest.approx(plan.latency_s, rel=1e-12)
    assert plan.gantt_svg().startswith("<svg") or "<svg" in plan.gantt_svg()[:400]


def test_node_limit_is_reproducible_and_matches_the_cli(tmp_path):
    # YOLOv5n needs more than 100 search nodes to prove optimality (tests/api/api_test.cpp).
    a = hetcim.partition("yolov5n", node_limit=100)
    b = hetcim.partition("yolov5n", node_limit=100)
    assert a.status == "ok, node-limit, solved"
    assert json.loads(a.json)["operators"] == json.loads(b.json)["operators"]
    assert a.latency_s == b.latency_s
    ref = cli_json(tmp_path, "partition", "yolov5n", "--node-limit", "100")
    assert ref["solver"]["status"] == "node-limit"
    assert ref["latency_s"] == a.latency_s


def test_partition_front_is_a_front(resnet18):
    front, svg = hetcim.partition_front(resnet18, preset="seed000-x86", t_mvm="500ns")
    points = front["points"]
    assert len(points) >= 2
    lat = [p["latency_s"] for p in points]
    energy = [p["energy_j"]["total"] for p in points]
    assert lat == sorted(lat) and energy == sorted(energy, reverse=True)
    assert "<svg" in svg


def test_full_front_contains_the_supported_front(resnet18):
    sup, _ = hetcim.partition_front(resnet18, preset="seed000-x86", t_mvm="500ns")
    full, _ = hetcim.partition_front(resnet18, preset="seed000-x86", t_mvm="500ns", front="full")
    assert sup["kind"] == "supported" and full["kind"] == "full"
    hull = [(p["latency_s"], p["energy_j"]["total"]) for p in full["points"] if p["supported"]]
    assert len(hull) == len(sup["points"])
    for (l, e), p in zip(hull, sup["points"]):
        assert l == pytest.approx(p["latency_s"], rel=1e-9)
        assert e == pytest.approx(p["energy_j"]["total"], rel=1e-9)
    assert len(full["points"]) >= len(sup["points"])


def test_dse_point_equals_the_single_partition(resnet18):
    points = hetcim.dse(models=["resnet18"], crossbars=[100], t_mvm=["50ns"], hosts=["arm"])
    assert len(points) == 1
    plan = hetcim.partition(resnet18, preset="seed000-arm", crossbars=100, t_mvm="50ns")
    assert points[0]["latency_s"] == pytest.approx(plan.latency_s, rel=1e-12)


def test_dse_time_limit_reaches_each_solve():
    # One of the grid's hardest points (about 10^6 nodes, seconds): a 1 ns limit stops it at the
    # first clock reading, with a plan no faster than its bound.
    points = hetcim.dse(
        models=["yolov5n"], crossbars=[200], t_mvm=["50ns"], hosts=["x86"], replicas=4,
        bus_model="serial", time_limit="1ns",
    )
    assert points[0]["status"] == "time-limit"
    assert points[0]["bound_s"] <= points[0]["latency_s"]
    with pytest.raises(hetcim.UserError, match="time_limit"):
        hetcim.dse(models=["resnet18"], time_limit="0s")


def test_cluster_studies_match_the_cli(tmp_path):
    # The same figures and the same provenance facts (source, solver, cache, seeds); the command
    # line and date of the provenance are the caller's.
    roof = hetcim.cluster.roofline(bus_widths=[128], executions=["pipelined"])
    out = tmp_path / "roof.json"
    cli("cluster", "roofline", "--bus-widths", "128", "--executions", "pipelined", "--json", str(out))
    ref = json.loads(out.read_text())
    assert roof.pop("provenance")["facts"] == ref.pop("provenance")["facts"]
    assert roof == ref
    bn = hetcim.cluster.bottleneck(mappings=["cores", "ima+dw"])
    cli("cluster", "bottleneck", "--mappings", "cores,ima+dw", "--json", str(out))
    ref = json.loads(out.read_text())
    assert bn.pop("provenance")["facts"] == ref.pop("provenance")["facts"]
    assert bn == ref
    cal = hetcim.cluster.calibrate(max_overhead=20, rate_points=7)
    cli("cluster", "calibrate", "--max-overhead", "20", "--rate-points", "7", "--json", str(out))
    ref = json.loads(out.read_text())
    assert cal["kind"] == "calibration"
    assert cal.pop("provenance")["facts"] == ref.pop("provenance")["facts"]
    assert cal == ref


def test_platform_partition_matches_the_cli(tmp_path):
    # The same mapping as `hetcim partition bottleneck --platform seed001-cluster --imas 8`.
    plan = hetcim.partition_platform("bottleneck", platform="seed001-cluster", imas=8)
    out = tmp_path / "p.json"
    cli("partition", "bottleneck", "--platform", "seed001-cluster", "--imas", "8", "--quiet",
        "--json", str(out))
    ref = json.loads(out.read_text())
    assert plan["status"] == "optimal"
    assert plan["latency_s"] == ref["latency_s"]
    assert [o["engine"] for o in plan["operators"]] == [o["engine"] for o in ref["operators"]]
    # The K-engine MILP on CBC proves the same optimum (to CBC's tolerance).
    milp = hetcim.partition_platform("bottleneck", platform="seed001-cluster", imas=8,
                                     solver="milp")
    assert milp["solver"] == "milp" and milp["status"] == "optimal"
    assert abs(milp["latency_s"] - ref["latency_s"]) <= 1e-6 * ref["latency_s"]


def test_partition_with_a_platform_is_partition_platform(tmp_path):
    # One request (issue 33): hetcim.partition with platform= is partition_platform's call, as
    # `hetcim partition --platform` is; a field a platform does not take is refused by name.
    one = hetcim.partition("bottleneck", platform="seed001-cluster", imas=8)
    ref = hetcim.partition_platform("bottleneck", platform="seed001-cluster", imas=8)
    assert isinstance(one, hetcim.PlatformResult)
    assert one["operators"] == ref["operators"] and one["latency_s"] == ref["latency_s"]
    with pytest.raises(hetcim.UserError) as e:
        hetcim.partition("bottleneck", platform="seed001-cluster", transfers="per-tensor")
    assert "unknown keyword 'transfers'" in str(e.value)
    r = cli("partition", "bottleneck", "--platform", "seed001-cluster", "--transfers",
            "per-tensor", check=False)
    assert r.returncode == 1
    assert r.stderr.startswith("hetcim: error: transfers: does not apply with a platform")


def test_platform_problem_and_milp_match_the_cli_files(tmp_path):
    # `hetcim partition bottleneck --platform seed001-cluster --imas 8 --problem-json F --mps M`:
    # the same text; the JSON lists the operators the plan maps, each with its options.
    doc = hetcim.partition_platform_problem("bottleneck", platform="seed001-cluster", imas=8)
    mps = hetcim.partition_platform_milp("bottleneck", "mps", platform="seed001-cluster", imas=8)
    out, out_mps = tmp_path / "p.json", tmp_path / "p.mps"
    cli("partition", "bottleneck", "--platform", "seed001-cluster", "--imas", "8", "--quiet",
        "--problem-json", str(out), "--mps", str(out_mps))
    assert doc == out.read_text()
    assert mps == out_mps.read_text()
    assert mps.startswith("* hetcim: the K-engine partitioning MILP")
    plan = hetcim.partition_platform("bottleneck", platform="seed001-cluster", imas=8)
    problem = json.loads(doc)
    assert [o["name"] for o in problem["operators"]] == [o["name"] for o in plan["operators"]]
    assert all(len(o["options"]) >= 1 for o in problem["operators"])


def test_platform_partition_with_reprogramming_matches_the_cli(tmp_path):
    plan = hetcim.partition_platform("mobilenetv2", platform="seed001-cluster", reprogram=True)
    out = tmp_path / "p.json"
    cli("partition", "mobilenetv2", "--platform", "seed001-cluster", "--reprogram", "--quiet",
        "--json", str(out))
    ref = json.loads(out.read_text())
    assert plan["latency_s"] == ref["latency_s"]
    assert plan["reprogramming"] == ref["reprogramming"]
    assert ref["reprogramming"][0]["operators_reprogrammed"] == sum(
        1 for o in ref["operators"] if o["reprogrammed"])


@pytest.mark.parametrize("kwargs, flags", [
    ({"preset": "seed999"}, ["--preset", "seed999"]),
    ({"crossbars": -3}, ["--crossbars=-3"]),
    ({"t_mvm": "50"}, None),
    ({"solver": "simplex"}, None),
])
def test_bad_partition_input_raises_the_clis_message(resnet18, kwargs, flags):
    with pytest.raises(hetcim.UserError) as e:
        hetcim.partition(resnet18, **kwargs)
    assert str(e.value)
    if flags:
        r = cli("partition", "resnet18", *flags, check=False)
        assert r.returncode == 1
        assert r.stderr == f"hetcim: error: {e.value}\n"


def test_unknown_keyword_and_model_are_user_errors(resnet18):
    with pytest.raises(hetcim.UserError, match="unknown keyword 'crossbar'"):
        hetcim.partition(resnet18, crossbar=3)
    with pytest.raises(hetcim.UserError, match="unknown model 'resnet19'"):
        hetcim.load_model("resnet19")
    with pytest.raises(hetcim.UserError, match="crossbars: wrong type"):
        hetcim.partition(resnet18, crossbars="many")


GIL_CHECK = r"""
import os, sys, threading, time, hetcim
m = hetcim.load_model("resnet18")
plan = hetcim.partition(m)
# A partition file must be a regular file (util/files.h: a FIFO would block the reader forever),
# so a FIFO replay is refused by name before anything is opened.
fifo = os.path.join(sys.argv[1], "plan.fifo")
os.mkfifo(fifo)
try:
    hetcim.partition(m, replay=fifo)
    print("FIFO accepted")
except hetcim.UserError as e:
    print("refused" if "a FIFO (named pipe)" in str(e) and "plan.fifo" in str(e) else str(e))
# A long call in another thread: while it runs, this thread keeps executing Python only if the
# call released the GIL. Holding it, this thread could run at most the few bytecodes between
# `started` and the call (one switch interval), never dozens of 1 ms sleeps; the call takes
# hundreds of milliseconds (20 timed runs of ResNet-18 in fp32).
out, started = {}, threading.Event()
def call():
    started.set()
    out["outputs"] = hetcim.run(m, runs=20, warmup=0)
t = threading.Thread(target=call)
t.start()
started.wait()
ticks = 0
while t.is_alive():
    ticks += 1
    time.sleep(0.001)
t.join()
print("released" if ticks >= 20 else "held (%d ticks)" % ticks, len(out["outputs"]))
"""


def test_long_calls_release_the_gil(tmp_path):
    r = subprocess.run([sys.executable, "-c", GIL_CHECK, str(tmp_path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["refused", "released 1"], r.stdout


CHIPS = os.path.join(os.path.dirname(__file__), "..", "..", "data", "chips.yaml")


def test_sensitivity_matches_the_cli(tmp_path):
    opts = dict(chip=f"{CHIPS}:A3", dataset="synthetic", samples=8, max_pairs=0)
    doc = hetcim.sensitivity("race_cnn_mnist", **opts)
    out = tmp_path / "sens.json"
    cli("sensitivity", "race_cnn_mnist", "--chip", f"{CHIPS}:A3", "--dataset", "synthetic",
        "--samples", "8", "--max-pairs", "0", "--quiet", "--out", str(out))
    ref = json.loads(out.read_text())
    assert doc["operators"] == ref["operators"]
    assert doc["dataset"] == ref["dataset"] and doc["dataset"]["split"] == "synthetic"
    assert doc["model"] == ref["model"] and doc["chip"]["hash"] == ref["chip"]["hash"]
    assert len(doc["operators"]) == 5  # race_cnn_mnist: three Conv, two Gemm


def test_bad_sensitivity_input_raises_the_clis_message():
    with pytest.raises(hetcim.UserError) as e:
        hetcim.sensitivity("race_cnn_mnist", chip=f"{CHIPS}:A3", calibration="test", holdout=100)
    r = cli("sensitivity", "race_cnn_mnist", "--chip", f"{CHIPS}:A3", "--calibration", "test",
            "--holdout", "100", check=False)
    assert r.returncode == 1
    assert r.stderr == f"hetcim: error: {e.value}\n"
    with pytest.raises(hetcim.UserError, match="unknown keyword 'sample'"):
        hetcim.sensitivity("race_cnn_mnist", chip=f"{CHIPS}:A3", sample=3)


def test_execute_matches_the_cli_and_names_a_foreign_plan(tmp_path):
    if not os.path.exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"):
        if os.environ.get("HETCIM_REQUIRE_DATA") == "1":
            pytest.fail("Fashion-MNIST is required (HETCIM_REQUIRE_DATA=1)")
        pytest.skip("Fashion-MNIST is not installed")
    plan = tmp_path / "plan.json"
    hetcim.partition("race_cnn_mnist").save(str(plan))
    doc = hetcim.execute("race_cnn_mnist", plan=str(plan), chip=f"{CHIPS}:A3", limit=200)
    ref = cli_json(tmp_path, "execute", "race_cnn_mnist", "--plan", str(plan), "--chip",
                   f"{CHIPS}:A3", "--limit", "200")
    assert doc["images"] == 200
    assert doc["accuracy"] == ref["accuracy"]  # same seeds: the same logits, the same counts
    assert doc["cim_operators"] == ref["cim_operators"]
    assert doc["modelled"] == ref["modelled"]
    other = tmp_path / "other.json"
    hetcim.partition("race_cnn").save(str(other))
    with pytest.raises(hetcim.UserError) as e:
        hetcim.execute("race_cnn_mnist", plan=str(other), chip=f"{CHIPS}:A3", limit=10)
    r = cli("execute", "race_cnn_mnist", "--plan", str(other), "--chip", f"{CHIPS}:A3",
            "--limit", "10", check=False)
    assert r.returncode == 1
    assert r.stderr == f"hetcim: error: {e.value}\n"

def test_analog_run_is_the_clis_call(tmp_path):
    # The same seeds give the same bytes as `hetcim analog run` writes.
    out = tmp_path / "o.npy"
    r = cli("analog", "run", "race_cnn_mnist", "--chip", CHIPS + ":A0", "--analog-layers",
            "classifier", "--read-seed", "4", "--output", str(out))
    outs, stats = hetcim.analog_run("race_cnn_mnist", chip=CHIPS + ":A0", layers="classifier",
                                    read_seed=4)
    (name, y), = outs.items()
    assert np.array_equal(y, np.load(out))
    assert stats["analog_layers"] == 2
    assert "analog layers: 2, DAC conversions %d" % stats["dac_conversions"] in r.stdout
    # Another read seed: other read noise, other outputs.
    outs2, _ = hetcim.analog_run("race_cnn_mnist", chip=CHIPS + ":A0", layers="classifier",
                                 read_seed=5)
    assert not np.array_equal(y, outs2[name])


def test_export_writes_the_clis_bytes_and_an_int8_model_that_runs(tmp_path):
    cli_file = tmp_path / "cli.onnx"
    cli("export", "race_cnn_mnist", "--weight-seed", "3", "--onnx", str(cli_file))
    py_file = tmp_path / "py.onnx"
    data = hetcim.export_onnx("race_cnn_mnist", py_file, weight_seed=3)
    assert data == cli_file.read_bytes() == py_file.read_bytes()
    assert hetcim.export_onnx("race_cnn_mnist", weight_seed=4) != data  # the seed draws the weights
    q = tmp_path / "int8.onnx"
    hetcim.export_onnx("race_cnn_mnist", q, weight_seed=3, int8=True)
    # The QDQ file carries its own scales: it runs as it is (int8) and gives the int8 run of the
    # fp32 export with the same calibration (hetcim run --precision int8 calibrates the same way).
    x = np.random.default_rng(1).random((1, 1, 28, 28), dtype=np.float32)
    y_qdq = hetcim.run(str(q), x, warmup=0, runs=1)
    y_int8 = hetcim.run(str(cli_file), x, precision="int8", warmup=0, runs=1)
    (a,), (b,) = y_qdq.values(), y_int8.values()
    assert np.array_equal(a, b)

def test_export_onnx_writes_as_the_cli_does_never_through_a_device_or_fifo(tmp_path):
    # Issue 35: export_onnx wrote with open() through a link into a device, not atomically.
    link = tmp_path / "dev.onnx"
    os.symlink("/dev/full", link)
    with pytest.raises(hetcim.UserError, match="is a character device"):
        hetcim.export_onnx("race_cnn_mnist", link, weight_seed=3)
    assert os.path.islink(link)
    fifo = tmp_path / "pipe.onnx"
    os.mkfifo(fifo)  # open() would wait for a reader for ever
    with pytest.raises(hetcim.UserError, match="FIFO"):
        hetcim.export_onnx("race_cnn_mnist", fifo, weight_seed=3)
    out = tmp_path / "m.onnx"
    out.write_bytes(b"previous")
    data = hetcim.export_onnx("race_cnn_mnist", out, weight_seed=3)
    assert out.read_bytes() == data
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".hetcim-")]



def test_analog_audit_prints_the_clis_table(tmp_path):
    onnx = tmp_path / "cnn.onnx"
    cli("export", "race_cnn_mnist", "--onnx", str(onnx))
    r = cli("analog", "audit", str(onnx), "--chip", CHIPS + ":A3", "--chip-seed", "2")
    layers, skipped, text = hetcim.analog_audit(onnx, chip=CHIPS + ":A3", chip_seed=2)
    assert text == r.stdout
    assert [d["layer"] for d in layers] == [line.split()[0] for line in text.splitlines()[1:]
                                            if not line.startswith("not mapped")]


@pytest.mark.parametrize("kwargs,flags", [
    (dict(chip=CHIPS, layers="classifier"), ["--chip", CHIPS, "--analog-layers", "classifier"]),
    (dict(chip=CHIPS + ":A0", layers="nope"), ["--chip", CHIPS + ":A0", "--analog-layers", "nope"]),
    (dict(chip=CHIPS + ":A9", layers="classifier"),
     ["--chip", CHIPS + ":A9", "--analog-layers", "classifier"]),
])
def test_bad_analog_run_input_raises_the_clis_message(kwargs, flags):
    with pytest.raises(hetcim.UserError) as e:
        hetcim.analog_run("race_cnn_mnist", **kwargs)
    r = cli("analog", "run", "race_cnn_mnist", *flags, check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == "hetcim: error: " + str(e.value)


def test_import_does_not_load_libtorch():
    code = ("import sys, hetcim; maps = open('/proc/self/maps').read(); "
            "print('hetcim._hetcim_torch' in sys.modules, 'libtorch' in maps)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


SELECT_FLAGS = ["--pool", "A0,A5", "--calibration", "test", "--limit", "500", "--hardware", "150",
                "--policy", "150", "--certificate", "150", "--test", "50", "--split-seed", "3",
                "--seed", "11", "--read-seed", "4", "--threads", "1"]
SELECT_KWARGS = dict(pool="A0,A5", calibration="test", limit=500, hardware_rows=150,
                     policy_rows=150, certificate_rows=150, test_rows=50, split_seed=3,
                     chip_seed=11, read_seed=4, threads=1)


def test_analog_select_is_the_clis_call(tmp_path):
    # The same request from Python and from `hetcim analog select`: the same selection,
    # thresholds, certificate and policy (everything but the provenance's command line and date).
    if not os.path.exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"):
        pytest.skip("dataset-fashion-mnist is not installed")
    onnx = tmp_path / "cnn.onnx"
    cli("export", "race_cnn_mnist", "--onnx", str(onnx))
    out, pol = tmp_path / "select.json", tmp_path / "policy.json"
    cli("analog", "select", str(onnx), "--chips", CHIPS, *SELECT_FLAGS, "--quiet", "--json",
        str(out), "--policy-out", str(pol))
    selection, policy = hetcim.analog_select(onnx, chips=CHIPS, **SELECT_KWARGS)
    expected = json.loads(out.read_text())
    for d in (selection, expected):
        d.pop("provenance", None)
    assert selection == expected
    assert policy == json.loads(pol.read_text())
    assert [a["name"] for a in selection["accelerators"]] == ["A0", "A5"]


def test_bad_analog_select_input_raises_the_clis_message(tmp_path):
    onnx = tmp_path / "cnn.onnx"
    cli("export", "race_cnn_mnist", "--onnx", str(onnx))
    kwargs = dict(SELECT_KWARGS, pool="A0,B7")
    with pytest.raises(hetcim.UserError) as e:
        hetcim.analog_select(onnx, chips=CHIPS, **kwargs)
    flags = list(SELECT_FLAGS)
    flags[1] = "A0,B7"
    r = cli("analog", "select", str(onnx), "--chips", CHIPS, *flags, check=False)
    assert r.returncode == 1
    assert r.stderr == f"hetcim: error: {e.value}\n"
    with pytest.raises(hetcim.UserError, match="unknown keyword 'chip'"):
        hetcim.analog_select(onnx, chip=CHIPS)
