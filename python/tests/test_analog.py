"""hetcim.analog (seed 002's libtorch jobs) against `hetcim` itself: each binding and the CLI
command on the same request and seeds give the same numbers (everything but provenance, paths and
the measured seconds), and a bad argument raises the exact message the CLI prints. Tiny models
and data subsets keep it to seconds."""

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import hetcim

BIN = os.environ.get("HETCIM_BIN", "")
CHIPS = os.path.join(os.path.dirname(__file__), "..", "..", "data", "chips.yaml")
FASHION = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"

pytestmark = pytest.mark.skipif(
    not os.path.exists(FASHION) and os.environ.get("HETCIM_REQUIRE_DATA") != "1",
    reason="Fashion-MNIST is not installed")


def cli(*args, check=True):
    r = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def same_error(call, *flags):
    """The binding raises hetcim.UserError with the message `hetcim` prints for `flags`."""
    with pytest.raises(hetcim.UserError) as e:
        call()
    r = cli(*flags, check=False)
    assert r.returncode == 1
    assert r.stderr == f"hetcim: error: {e.value}\n"
    return str(e.value)


def drop(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("analog")


# The module's model: 1 epoch on 2000 images, 1000 training images held out (the calibration pool
# of select); enough for the pool to have a chip to select at loose risks.
TRAIN_FLAGS = ["--preset", "fast", "--epochs", "1", "--train-limit", "2000", "--holdout", "1000",
               "--eval-limit", "200", "--batch-size", "64", "--seed", "6", "--threads", "1"]
TRAIN_KWARGS = dict(preset="fast", epochs=1, train_limit=2000, holdout=1000, eval_limit=200,
                    batch_size=64, seed=6, threads=1)


@pytest.fixture(scope="module")
def model(work):
    onnx = work / "model.onnx"
    return onnx, hetcim.analog.train(onnx, **TRAIN_KWARGS)


def test_train_writes_the_clis_bytes(model, work):
    onnx, r = model
    assert r["model"] == str(onnx) and r["eval_set"] == "held-out accuracy"
    ref = work / "cli.onnx"
    out = cli("train", "race-cnn", "--out", ref, *TRAIN_FLAGS, "--quiet")
    # Same seed, same options, one libtorch thread: the same weights, byte for byte.
    assert onnx.read_bytes() == ref.read_bytes()
    assert "held-out accuracy %.2f%%, clean test accuracy %.2f%%" % (
        100 * r["eval_accuracy"], 100 * r["test_accuracy"]) in out.stdout
    rec = json.loads((work / "model.onnx.train.json").read_text())
    assert rec["holdout"]["images"] == 1000 and rec["train_images"] == 2000
    assert rec["options"]["epochs"] == 1


EVAL_FLAGS = ["--chip", CHIPS + ":A3", "--digital", "--limit", "300", "--seed", "7",
              "--read-seed", "2", "--threads", "1"]


def test_evaluate_is_the_clis_call(model, work):
    onnx, _ = model
    # The call: a loaded model, the data set, a chip, the classifier layers, a seed.
    r = hetcim.analog.evaluate(hetcim.load_model(str(onnx)), dataset="fashion-mnist",
                               chip=CHIPS + ":A3", layers="classifier", seed=7, digital=True,
                               limit=300, read_seed=2, threads=1)
    out = work / "eval.json"
    text = cli("analog", "eval", onnx, *EVAL_FLAGS, "--quiet", "--json", out).stdout
    ref = json.loads(out.read_text())
    assert [drop(x, "seconds") for x in r["runs"]] == [drop(x, "seconds") for x in ref["runs"]]
    assert drop(r, "runs", "provenance") == drop(ref, "runs", "provenance")
    assert r["provenance"]["facts"] == ref["provenance"]["facts"]
    assert [x["chip"] for x in r["runs"]] == ["digital", "A3"]
    for x in r["runs"]:  # a count of correct images out of 300
        assert x["images"] == 300 and abs(x["accuracy"] * 300 - round(x["accuracy"] * 300)) < 1e-9
        assert "%.2f%%" % (100 * x["accuracy"]) in text
    # `seed` is the CLI's alias of chip_seed: the same chip, the same figures.
    again = hetcim.analog.evaluate(onnx, chip=CHIPS + ":A3", limit=300, chip_seed=7, read_seed=2,
                                   threads=1)
    assert [drop(x, "seconds") for x in again["runs"]] == [drop(r["runs"][1], "seconds")]


def test_bad_evaluate_input_raises_the_clis_message(model):
    onnx, _ = model
    msg = same_error(lambda: hetcim.analog.evaluate(onnx, chip=CHIPS + ":A9", limit=10),
                     "analog", "eval", onnx, "--chip", CHIPS + ":A9", "--limit", "10")
    assert "A9" in msg
    same_error(lambda: hetcim.analog.evaluate(onnx), "analog", "eval", onnx)
    with pytest.raises(hetcim.UserError, match="unknown keyword 'chips'"):
        hetcim.analog.evaluate(onnx, chips=CHIPS)
    with pytest.raises(hetcim.UserError, match="read_seed: -1 does not fit"):
        hetcim.analog.evaluate(onnx, chip=CHIPS + ":A3", read_seed=-1)
    with pytest.raises(hetcim.UserError, match="limit: wrong type str"):
        hetcim.analog.evaluate(onnx, chip=CHIPS + ":A3", limit="all")


# A 1-epoch model: loose risk targets, so that the pool has a chip to select.
SELECT_FLAGS = ["--pool", "A0,A1", "--hardware", "200", "--policy", "300", "--certificate", "400",
                "--test", "300", "--split-seed", "2", "--seed", "3", "--read-seed", "8",
                "--design-alpha", "0.25", "--alpha", "0.3", "--threads", "1"]
SELECT_KWARGS = dict(pool="A0,A1", hardware_rows=200, policy_rows=300, certificate_rows=400,
                     test_rows=300, split_seed=2, chip_seed=3, read_seed=8, design_risk=0.25,
                     risk=0.3, threads=1)


@pytest.fixture(scope="module")
def policy(model, work):
    onnx, _ = model
    out, pol = work / "select.json", work / "policy.json"
    cli("analog", "select", onnx, "--chips", CHIPS, *SELECT_FLAGS, "--quiet", "--json", out,
        "--policy-out", pol)
    return json.loads(out.read_text()), pol


def test_select_on_the_held_out_images_is_the_clis_call(model, policy):
    onnx, _ = model
    ref, pol = policy
    selection, frozen = hetcim.analog.select(onnx, chips=CHIPS, **SELECT_KWARGS)
    assert drop(selection, "provenance") == drop(ref, "provenance")
    assert frozen == json.loads(pol.read_text())
    assert selection["rows"] == 1000 + 300  # every held-out image, then the first 300 test images
    # The old name is an alias of the same call.
    assert hetcim.analog_select(onnx, chips=CHIPS, **SELECT_KWARGS)[1] == frozen


SELECT_CHILD = r"""
import signal, sys, time
import hetcim
signal.signal(signal.SIGINT, signal.default_int_handler)
model, chips = sys.argv[1], sys.argv[2]
print("calling", flush=True)
start = time.monotonic()
try:
    # Twelve units on every test image each (tens of seconds): Ctrl-C must stop it between two
    # batches of images (util/cancel.h in train/evaluate.cpp), not when it returns.
    r = hetcim.analog.select(model, chips=chips, calibration="test", split="test",
                             pool=",".join("A%d#%d" % (p, u) for p in range(6) for u in (1, 2)),
                             hardware_rows=2000, policy_rows=3000, certificate_rows=4000,
                             test_rows=1000, threads=1, batch_size=64)
    print("returned after %.1f s" % (time.monotonic() - start), flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
r = hetcim.analog.select(model, chips=chips, pool="A0", hardware_rows=200, policy_rows=300,
                         certificate_rows=400, test_rows=100, threads=1, risk=0.3)
print("next:", type(r).__name__, r.names.tolist(), flush=True)
"""


def test_ctrl_c_stops_a_select_between_batches(model):
    import signal  # noqa: PLC0415
    onnx, _ = model
    p = subprocess.Popen([sys.executable, "-c", SELECT_CHILD, str(onnx), CHIPS],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "calling\n"
        time.sleep(3.0)  # inside the simulations
        assert p.poll() is None, p.stderr.read()
        p.send_signal(signal.SIGINT)
        sent = time.monotonic()
        line = p.stdout.readline()
        waited = time.monotonic() - sent
        assert line == "KeyboardInterrupt\n", line + p.stderr.read()
        assert waited < 3.0, f"KeyboardInterrupt {waited:.2f} s after SIGINT"
        rest, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert rest == "next: SelectResult ['A0']\n", rest + err
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()


def test_serve_takes_the_clis_decisions(model, policy, work):
    ref_select, pol = policy
    assert ref_select["selected"] is not None, "a tiny model selected nothing; serve needs one"
    summary, decisions = hetcim.analog.serve(pol, dataset="fashion-mnist", limit=300)
    out, csv = work / "served.json", work / "decisions.csv"
    cli("analog", "serve", pol, "--dataset", "fashion-mnist", "--limit", "300", "--quiet",
        "--json", out, "--decisions", csv)
    assert summary == json.loads(out.read_text())
    rows = [line.split(",") for line in csv.read_text().splitlines()[1:]]
    assert decisions["route"] == [r[1] for r in rows]
    assert decisions["label"].tolist() == [int(r[2]) for r in rows]
    np.testing.assert_allclose(decisions["score"], [float(r[3]) for r in rows], rtol=1e-5)
    # Independent count: the routes add up to the summary's counts, and serving the official
    # test images takes the offline test split's decisions (select's selected chip).
    assert decisions["route"].count("accept") == summary["accepted"]
    assert summary["queries"] == 300 == len(rows)
    sel = [a for a in ref_select["accelerators"] if a["name"] == ref_select["selected"]][0]
    assert summary["accepted"] == sel["test"]["accepted"]


def test_bad_serve_input_raises_the_clis_message(policy):
    _, pol = policy
    same_error(lambda: hetcim.analog.serve(pol), "analog", "serve", pol)


DRIFT_FLAGS = ["--chip", CHIPS + ":A3", "--times", "1s,1y", "--limit", "200", "--seed", "5",
               "--threads", "1"]


def test_drift_is_the_clis_call(model, work):
    onnx, _ = model
    d = hetcim.analog.drift(onnx, chip=CHIPS + ":A3", times="1s,1y", limit=200, seed=5, threads=1)
    out = work / "drift"
    cli("analog", "drift", onnx, *DRIFT_FLAGS, "--quiet", "--out", out)
    ref = json.loads((out / "drift.json").read_text())
    assert drop(d, "provenance") == drop(ref, "provenance")
    assert [p["label"] for p in d["points"]][-2:] == ["1s", "1y"]
    # 1 s is before the profile's t0 (20 s): nothing has drifted yet, t0 and 1 s read the same.
    assert d["points"][0]["accuracy"] == d["points"][1]["accuracy"]


def test_bad_drift_input_raises_the_clis_message(model, policy):
    onnx, _ = model
    _, pol = policy
    same_error(lambda: hetcim.analog.drift(onnx, chip=CHIPS + ":A3", policy=pol),
               "analog", "drift", onnx, "--chip", CHIPS + ":A3", "--policy", pol, "--out", "x")
    same_error(lambda: hetcim.analog.drift(onnx, chip=CHIPS + ":A3", times="1y,1s"),
               "analog", "drift", onnx, "--chip", CHIPS + ":A3", "--times", "1y,1s", "--out", "x")


STUDY_FLAGS = ["--pool", "A0,A1", "--models", "2", "--preset", "fast", "--epochs", "1",
               "--train-limit", "200", "--holdout", "500", "--hardware", "100", "--policy",
               "150", "--certificate", "200", "--test", "100", "--availability", "1",
               "--design-risks", "0.1,0.2", "--seed", "1", "--split-seed", "1", "--threads", "1"]
STUDY_KWARGS = dict(pool="A0,A1", models=2, preset="fast", epochs=1, train_limit=200,
                    holdout=500, hardware_rows=100, policy_rows=150, certificate_rows=200,
                    test_rows=100, availability=1, design_risks=[0.1, 0.2], seed=1, split_seed=1,
                    threads=1)


def test_study_is_the_clis_call(work):
    # The CLI trains and simulates; the same request from Python on the same directory finds
    # every model (a model trained with other options is refused by its record) and every
    # logit (the cache keys hold the model hash, unit, seeds and images), so a keyword that
    # mapped to another value would train or simulate, and the counts below would differ.
    out = work / "study"
    cli("analog", "study", "--chips", CHIPS, *STUDY_FLAGS, "--quiet", "--out", out)
    ref = json.loads((out / "study.json").read_text())
    s = hetcim.analog.study(chips=CHIPS, out=out, **STUDY_KWARGS)
    assert drop(s.to_dict(), "provenance") == drop(ref, "provenance")
    assert len(s["base"]["runs"]) == 2
    assert "0 trained now, 2 reused" in s["provenance"]["models"]
    # 2 models x (digital, A0, A1) x (calibration, test part)
    assert "0 now, 12 from the cache" in s["provenance"]["logits"]
    assert "12 now, 0 from the cache" in ref["provenance"]["logits"]


def test_bad_study_input_raises_the_clis_message(work):
    msg = same_error(
        lambda: hetcim.analog.study(chips=CHIPS, pool="A0,B7", out=str(work / "bad")),
        "analog", "study", "--chips", CHIPS, "--pool", "A0,B7", "--out", work / "bad")
    assert "no profile 'B7'" in msg
    assert not (work / "bad").exists()
    with pytest.raises(hetcim.UserError, match="design_risks: expected comma-separated numbers"):
        hetcim.analog.study(chips=CHIPS, out=str(work / "bad"), design_risks="0.1,x")


def test_bad_train_input_raises_the_clis_message(work):
    same_error(lambda: hetcim.analog.train(work / "t.onnx", data_dir=work / "none"),
               "train", "race-cnn", "--out", work / "t.onnx", "--data-dir", work / "none")


def test_evaluate_releases_the_gil(model):
    # While evaluate runs in another thread, this one keeps executing Python only if the call
    # released the GIL: holding it, this thread could not run dozens of 1 ms sleeps.
    onnx, _ = model
    started, out = threading.Event(), {}

    def call():
        started.set()
        out["r"] = hetcim.analog.evaluate(onnx, chip=CHIPS + ":A3", limit=2000, threads=1)

    t = threading.Thread(target=call)
    t.start()
    started.wait()
    ticks = 0
    while t.is_alive():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert out["r"]["runs"][0]["images"] == 2000
    assert ticks >= 20, ticks


def test_import_hetcim_analog_does_not_load_libtorch():
    code = ("import sys, hetcim, hetcim.analog; maps = open('/proc/self/maps').read(); "
            "print('hetcim._hetcim_torch' in sys.modules, 'libtorch' in maps)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]
