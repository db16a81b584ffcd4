"""One options discipline (issue 11): every migrated request describes its fields once
(api/options.h); the CLI flags and the Python keywords come from that table. Checked here against
the other face: the CLI rejects a bad value with the very message Python raises, the defaults
`--help` shows are the ones a run without flags uses, and a bare chip profile name resolves to the
shipped chips file the same way from both."""

import json
import os
import re
import subprocess

import pytest

import hetcim
import hetcim.analog
from hetcim import _hetcim

try:  # the libtorch jobs' tables, in their own module (absent from a build without libtorch)
    from hetcim import _hetcim_torch
except ImportError:
    _hetcim_torch = None

BIN = os.environ.get("HETCIM_BIN", "")
CHIPS = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "data", "chips.yaml"))


def cli(*args, check=True):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def resnet18():
    return hetcim.load_model("resnet18")


# Each migrated table: the CLI words before its flags and the Python call taking its keywords.
JOBS = {
    "partition": (["partition", "resnet18"], lambda m, **kw: hetcim.partition(m, **kw)),
    "dse": (["dse", "--models", "resnet18"], lambda m, **kw: hetcim.dse(models=["resnet18"], **kw)),
    "run": (["run", "resnet18"], lambda m, **kw: hetcim.run(m, **kw)),
    "profile": (["profile", "resnet18"], lambda m, **kw: hetcim.profile(m, **kw)),
    "inspect": (["inspect", "resnet18"], lambda m, **kw: hetcim.inspect(m, **kw)),
    "analog_run": (["analog", "run", "resnet18", "--chip", "A0", "--analog-layers", "conv1"],
                   lambda m, **kw: hetcim.analog_run(m, chip="A0", layers="conv1", **kw)),
    # No bad values (a chip, layers, a seed of any 64-bit value): the call is never made, the file
    # stands in for the ONNX model only for `--help`.
    "analog_audit": (["analog", "audit", CHIPS, "--chip", "A0"],
                     lambda m, **kw: hetcim.analog_audit(CHIPS, chip="A0", **kw)),
    # The plan is read only after the options: a bad value fails first.
    "execute": (["execute", "race_cnn_mnist", "--plan", "plan.json", "--chip", "A0"],
                lambda m, **kw: hetcim.execute("race_cnn_mnist", plan="plan.json", chip="A0",
                                               **kw)),
    # Nothing is written: a bad value fails while the flags are read.
    "export_onnx": (["export", "resnet18", "--onnx", "unwritten.onnx"],
                    lambda m, **kw: hetcim.export_onnx(m, **kw)),
    # The model file is looked at only after the options are read: the chips file stands in.
    "analog_eval": (["analog", "eval", CHIPS],
                    lambda m, **kw: hetcim.analog.evaluate(CHIPS, **kw)),
    # The options are checked before the model is loaded or anything measured.
    "sensitivity": (["sensitivity", "race_cnn_mnist", "--chip", "A0"],
                    lambda m, **kw: hetcim.sensitivity("race_cnn_mnist", chip="A0", **kw)),
    "cluster_roofline": (["cluster", "roofline"], lambda m, **kw: hetcim.cluster.roofline(**kw)),
    "cluster_bottleneck": (["cluster", "bottleneck"],
                           lambda m, **kw: hetcim.cluster.bottleneck(**kw)),
    "cluster_calibrate": (["cluster", "calibrate"],
                          lambda m, **kw: hetcim.cluster.calibrate(**kw)),
    "cluster_constants": (["cluster", "constants"],
                          lambda m, **kw: hetcim.cluster.constants(**kw)),
    # Checked before any data is read or a file written.
    "train": (["train", "race-cnn", "--out", "never.onnx"],
              lambda m, **kw: hetcim.analog.train("never.onnx", **kw)),
    # The same for select, drift and serve (the chips file stands in for the model or the policy).
    # Study: a value wrongly accepted fails on the missing paper data, before any training.
    "analog_select": (["analog", "select", CHIPS, "--chips", CHIPS],
                      lambda m, **kw: hetcim.analog.select(CHIPS, chips=CHIPS, **kw)),
    "analog_study": (["analog", "study", "--chips", CHIPS, "--out", "never-written",
                      "--paper-data", "no-paper.yaml"],
                     lambda m, **kw: hetcim.analog.study(chips=CHIPS, out="never-written",
                                                         paper_data="no-paper.yaml", **kw)),
    "analog_drift": (["analog", "drift", CHIPS, "--chip", CHIPS + ":A3", "--out", "never-written"],
                     lambda m, **kw: hetcim.analog.drift(CHIPS, chip=CHIPS + ":A3", **kw)),
    "analog_serve": (["analog", "serve", CHIPS],
                     lambda m, **kw: hetcim.analog.serve(CHIPS, **kw)),
}
TORCH_JOBS = ("analog_eval", "analog_select", "analog_study", "analog_drift", "analog_serve",
              "train")
if _hetcim_torch is None:
    for _job in TORCH_JOBS:
        del JOBS[_job]


def option_tables():
    """Both modules' tables by job."""
    tables = dict(_hetcim.option_tables())
    if _hetcim_torch is not None:
        tables.update(_hetcim_torch.option_tables())
    return tables


# The command words before the model (what `--help` is asked of), where not just the first.
COMMAND = {"analog_run": ["analog", "run"], "analog_audit": ["analog", "audit"],
           "analog_eval": ["analog", "eval"], "cluster_roofline": ["cluster", "roofline"],
           "cluster_bottleneck": ["cluster", "bottleneck"],
           "cluster_calibrate": ["cluster", "calibrate"],
           "cluster_constants": ["cluster", "constants"],
           "analog_select": ["analog", "select"],
           "analog_study": ["analog", "study"], "analog_drift": ["analog", "drift"],
           "analog_serve": ["analog", "serve"]}
# Commands without --quiet (they print no progress).
NO_QUIET = {"analog_run", "analog_audit", "export_onnx", "cluster_roofline", "cluster_bottleneck",
            "cluster_calibrate", "cluster_constants"}
# Jobs cheap enough to run twice in the defaults test (a DSE's default grid is not).
RUNS = {"partition"}
# Fields a command declares by hand, and why: dse's --threads defaults to this machine's cores
# (the request's 1 is the library's), its cache directory is --out's.
BY_HAND = {"dse": {"threads", "cache_dir"}}
# The fewest fields with bad values each table has (counted by hand from the tables).
MIN_CHECKED = {"partition": 12, "dse": 6, "run": 7, "profile": 5, "inspect": 1, "analog_run": 1,
               "analog_audit": 0, "analog_eval": 5, "execute": 9, "sensitivity": 6,
               "cluster_roofline": 3, "cluster_bottleneck": 10, "cluster_calibrate": 4,
               "cluster_constants": 1, "train": 11, "export_onnx": 1,
               "analog_select": 19,
               "analog_study": 15, "analog_drift": 6, "analog_serve": 3}

# A value of another quantity, for each unit a field may have.
WRONG_UNIT = {"time": "5J", "energy": "5ns", "bandwidth": "5ns", "size": "5ns", "power": "5ns",
              "frequency": "5ns", "conductance": "5ns"}

UNIT_SUFFIX = {"time": "s", "energy": "J", "bandwidth": "B/s", "size": "B", "power": "W",
               "frequency": "Hz", "conductance": "S"}


def bad_values(f):
    """(text the CLI takes, value Python takes) pairs each outside the field's range or choices."""
    out = []
    unit = f["unit"]

    def both(x):
        if unit:  # the same text with its base unit to both faces
            s = "%g%s" % (x, UNIT_SUFFIX[unit])
            return [(s, s)]
        if f.get("percent"):  # the CLI's percentage, Python's fraction
            return [("%g%%" % (x * 100), x)]
        return [(str(x), x)]

    if f["choices"]:
        out.append(("bogus", "bogus"))
    if f["lo"] is not None:
        lo = f["lo"]
        below = lo if f["lo_open"] else (lo - 1 if f["kind"] == "int" else lo - abs(lo) - 0.5)
        out += both(int(below) if f["kind"] == "int" else below)
    if f["hi"] is not None:
        hi = f["hi"]
        above = int(hi) + 1 if f["kind"] == "int" else hi * 2 + 1
        out += both(above)
    if unit:
        out.append((WRONG_UNIT[unit], WRONG_UNIT[unit]))
    return out


def test_every_migrated_job_has_a_table_and_bad_values():
    tables = option_tables()
    assert set(tables) == set(JOBS)
    for job, fields in tables.items():
        checked = [f["name"] for f in fields if bad_values(f)]
        # partition: solver, transfers, bus_model (choices), crossbars, t_mvm, time_limit,
        # node_limit, gap, threads, replicas, energy_weight, max_tightening (ranges); dse: bus,
        # milp_time_limit, threads, replicas, transfers, bus_model; run: precision,
        # calibration_method (choices), threads, calibration_samples, calibration_percentile,
        # warmup, runs; profile: precision, threads, warmup, runs, calibration_samples; inspect:
        # precision; analog_run: mode (choices; the seeds take any 64-bit value); analog_audit: none; analog_eval: split, mode (choices), limit, batch_size,
        # threads (ranges); execute: mode, split (choices), limit, batch, threads, risk,
        # certificate_delta, design_risk, design_delta (ranges); sensitivity: calibration, cost
        # (choices; dataset takes images:DIR and npy:X,Y too, checked when the data is read), holdout, samples, level, max_pairs (ranges);
        # cluster_roofline: preset (choices), tcdm_contention, vectors; cluster_bottleneck: preset,
        # execution (choices), bus_width, tcdm_contention, the shape's 6; cluster_calibrate: preset,
        # fit (choices), max_overhead, rate_points; train: dataset, preset (choices), epochs, lr,
        # holdout, crop_padding, batch_size, weight_decay, train_limit, eval_limit, threads;
        # export_onnx: calibration_samples.
        # analog_select: mode,
        # calibration, split (choices), holdout, limit, risk, certificate_delta, design_risk,
        # design_delta, the 4 split sizes, the 4 energies, batch_size, threads (ranges);
        # analog_study: preset, mode (choices), models, epochs, lr, train_limit, holdout,
        # the 4 split sizes, availability, fallback_energy, batch_size, threads (ranges);
        # analog_drift: compensation, split (choices), limit, batch_size, threads, audit;
        # analog_serve: split (choices), limit, batch_size. The analog commands' dataset takes
            # images:DIR and npy:X,Y too and is checked when the data is read (data/README.md).
        assert len(checked) >= MIN_CHECKED[job], (job, checked)


@pytest.mark.parametrize("job", sorted(JOBS))
def test_cli_and_python_reject_a_bad_value_with_the_same_message(job, resnet18):
    words, call = JOBS[job]
    n = 0
    for f in option_tables()[job]:
        for text, value in bad_values(f):
            with pytest.raises(hetcim.UserError) as e:
                call(resnet18, **{f["name"]: value})
                pytest.fail(f"{f['name']}={value!r} was accepted")
            message = str(e.value)
            assert message.startswith(f["name"] + ": "), message
            quiet = [] if job in NO_QUIET else ["--quiet"]
            r = cli(*words, f["flag"], text, *quiet, check=False)
            assert r.returncode == 1, (f["flag"], text, r.stdout)
            assert r.stderr == f"hetcim: error: {message}\n", (f["flag"], text)
            n += 1
    assert n >= MIN_CHECKED[job]


def test_messages_name_the_field_and_the_bound(resnet18):
    # Known by hand from the table's bounds and choices.
    cases = [(dict(gap=2.0), "gap: expected a number in [0, 1], got 2"),
             (dict(threads=0), "threads: expected a whole number in [1, 256], got 0"),
             (dict(crossbars=0), "crossbars: expected a whole number >= 1, got 0"),
             (dict(t_mvm="0ns"), "t_mvm: expected a positive time such as 50ns, got 0 s"),
             (dict(t_mvm=0.0), "t_mvm: expected a positive time such as 50ns, got 0 s"),
             (dict(bus_model="shared"), "bus_model: expected parallel or serial, got 'shared'")]
    for kw, message in cases:
        with pytest.raises(hetcim.UserError) as e:
            hetcim.partition(resnet18, **kw)
        assert str(e.value) == message


def help_defaults(words):
    """{flag: default text or None} as `--help` shows them (CLI11: `--flag TYPE=default`)."""
    text = cli(*words, "--help").stdout
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s+(--[a-z0-9-]+) (\S+?)(?:=(\S+))?(?:\s|$)", line)
        if m:
            out[m.group(1)] = m.group(3)
    return out


@pytest.mark.parametrize("job", sorted(JOBS))
def test_cli_defaults_are_the_requests_defaults(job, tmp_path):
    words, _ = JOBS[job]
    shown = help_defaults(COMMAND.get(job, words[:1]))
    explicit = []
    for f in option_tables()[job]:
        if f["kind"] == "bool" or f["name"] in BY_HAND.get(job, ()):
            continue
        assert f["flag"] in shown, f["flag"]
        # A quantity is shown as it is typed: "600s" for the table's "600 s".
        default = f["default"].replace(" ", "") if f["unit"] else f["default"]
        assert shown[f["flag"]] == (default or None), f["flag"]
        if default:
            explicit += [f["flag"], default]
    # partition: 12 defaults; dse: milp_time_limit, replicas, ...; run: 9 (calibration_data is
    # empty); profile: 7; inspect: precision (dump_after is empty); analog_run: the 4 seeds (chip,
    # mode, layers are empty); analog_audit: chip_seed; analog_eval: dataset, split, layers, the 2
    # seeds, limit, batch_size, threads; execute: dataset, split, limit, batch, threads, the 4
    # seeds, risk, certificate_delta, design_delta (design_risk unset: 0.8 r); sensitivity:
    # dataset, samples, the 4 seeds, level, max_pairs; cluster_roofline: preset, vectors;
    # cluster_bottleneck: preset and the shape's 6; cluster_calibrate: preset, fit, max_overhead,
    # rate_points; train: dataset, preset, holdout, holdout_seed, crop_padding, batch_size,
    # weight_decay, seed, train_limit, eval_limit, threads; export_onnx: weight_seed (flag
    # --weight-seed, --seed its deprecated spelling), calibration_seed, calibration_samples.
    # analog_select:
    # dataset, split, the 2 seeds, limit, the 2 risks and 2 deltas, score, policy_rows,
    # split_seed, the 4 energies, batch_size, threads (the protocol's optionals unset);
    # analog_study: dataset, models, preset, epochs, lr, train_limit, holdout, holdout_seed, seed,
    # split_seed, the 3 split sizes, test_rows, availability, fallback_energy, batch_size,
    # threads; analog_drift: times, compensation, dataset, split, limit, threads, audit (seeds and
    # batch_size unset: 1 or the policy's); analog_serve: split, limit (read_seed and batch_size
    # unset: the policy's).
    assert len(explicit) >= 2 * {"partition": 4, "dse": 4, "run": 9, "profile": 7, "inspect": 1,
                                 "analog_run": 4, "analog_audit": 1, "analog_eval": 8,
                                 "execute": 12, "sensitivity": 8, "cluster_roofline": 2,
                                 "cluster_bottleneck": 7, "cluster_calibrate": 4,
                                 "cluster_constants": 1,
                                 "train": 11, "export_onnx": 3, "analog_select": 18,
                                 "analog_study": 18, "analog_drift": 7, "analog_serve": 2}[job]
    if job not in RUNS:
        return
    # The defaults shown are the ones a run uses: every flag at its shown default gives the bytes
    # of a run without flags.
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    cli(*words, "--json", str(a), "--quiet")
    cli(*words, *explicit, "--json", str(b), "--quiet")
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    for j in (ja, jb):  # the command line and the measured solve time aside
        j.pop("provenance", None)
        j["solver"].pop("seconds", None)
    assert ja == jb


def test_a_bare_chip_profile_name_is_the_shipped_files(tmp_path):
    onnx = tmp_path / "cnn.onnx"
    cli("export", "race_cnn_mnist", "--onnx", str(onnx))
    layers, _, text = hetcim.analog_audit(onnx, chip="A3", chip_seed=2)
    layers_file, _, text_file = hetcim.analog_audit(onnx, chip=CHIPS + ":A3", chip_seed=2)
    assert text == text_file and layers == layers_file
    r = cli("analog", "audit", str(onnx), "--chip", "A3", "--chip-seed", "2")
    assert r.stdout == text
    # Another bare name is another profile (A0 is not A3's chip).
    _, _, text_a0 = hetcim.analog_audit(onnx, chip="A0", chip_seed=2)
    assert text_a0 != text
    # An unknown name: the shipped file named with the profiles it has, from both faces.
    with pytest.raises(hetcim.UserError) as e:
        hetcim.analog_audit(onnx, chip="A99")
    assert "no chip profile 'A99'" in str(e.value) and "chips.yaml" in str(e.value)
    r = cli("analog", "audit", str(onnx), "--chip", "A99", check=False)
    assert r.returncode == 1 and r.stderr == f"hetcim: error: {e.value}\n"


def test_a_bare_chip_name_is_recorded_with_the_file_it_was_found_in(tmp_path):
    doc = hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8,
                             max_pairs=0)
    ref = hetcim.sensitivity("race_cnn_mnist", chip=CHIPS + ":A3", dataset="synthetic", samples=8,
                             max_pairs=0)
    assert doc["chip"]["hash"] == ref["chip"]["hash"] and doc["operators"] == ref["operators"]
    assert os.path.samefile(doc["chip"]["spec"].rsplit(":", 1)[0], CHIPS)


def test_an_open_interval_is_written_with_parentheses():
    # risk is a probability strictly between 0 and 1 (known by hand from execute's table).
    for bad in (0.0, 1.0):
        with pytest.raises(hetcim.UserError) as e:
            hetcim.execute("race_cnn_mnist", plan="plan.json", chip="A0", risk=bad)
        assert str(e.value) == "risk: expected a number in (0, 1), got %g" % bad


def test_an_empty_choice_and_an_old_flag_spelling(resnet18, tmp_path):
    # mode may be empty (the profile's own mode): the message lists it as ''.
    message = "mode: expected '', physical or reference, got 'fast'"
    with pytest.raises(hetcim.UserError) as e:
        hetcim.analog_run(resnet18, chip="A0", layers="conv1", mode="fast")
    assert str(e.value) == message
    r = cli("analog", "run", "resnet18", "--chip", "A0", "--analog-layers", "conv1", "--mode",
            "fast", check=False)
    assert r.stderr == f"hetcim: error: {message}\n"
    # --seed is the hidden old spelling of --chip-seed: the same run, not shown in --help, and not
    # both on one command line.
    base = ["analog", "run", "race_cnn", "--chip", "A0", "--analog-layers", "classifier"]

    def logits(*flags):
        out = tmp_path / "out.npy"
        cli(*base, *flags, "--output", str(out))
        return out.read_bytes()

    assert logits("--seed", "5") == logits("--chip-seed", "5")
    assert logits("--chip-seed", "5") != logits("--chip-seed", "6")  # the flag reaches the chip
    assert not re.search(r"--seed\b", cli("analog", "run", "--help").stdout)
    assert cli(*base, "--seed", "5", "--chip-seed", "5", check=False).returncode != 0


def test_cluster_bus_width_in_bits_from_both_faces(tmp_path):
    # --bus-width takes "64bit" or "64", the keyword bus_width 64: the same field, the same study.
    out = tmp_path / "b.json"
    cli("cluster", "bottleneck", "--bus-width", "64bit", "--json", str(out))
    ref = json.loads(out.read_text())
    doc = hetcim.cluster.bottleneck(bus_width=64)
    doc.pop("provenance"), ref.pop("provenance")
    assert doc == ref
    assert doc != {k: v for k, v in hetcim.cluster.bottleneck().items() if k != "provenance"}
    # Not a whole number of bytes: the hand check, one message (known by hand) from both faces.
    message = "bus_width: expected a multiple of 8 bits such as 128, got 12"
    with pytest.raises(hetcim.UserError) as e:
        hetcim.cluster.bottleneck(bus_width=12)
    assert str(e.value) == message
    r = cli("cluster", "bottleneck", "--bus-width", "12bit", check=False)
    assert r.returncode == 1 and r.stderr == f"hetcim: error: {message}\n"


def test_new_tables_name_the_field_and_the_bound():
    # Known by hand from the tables' bounds and choices.
    cases = [(lambda: hetcim.cluster.bottleneck(stride=3),
              "stride: expected a whole number in [1, 2], got 3"),
             (lambda: hetcim.cluster.roofline(tcdm_contention=1.5),
              "tcdm_contention: expected a number in [0, 1], got 1.5"),
             (lambda: hetcim.cluster.calibrate(rate_points=1),
              "rate_points: expected a whole number in [2, 100000], got 1"),
             (lambda: hetcim.sensitivity("race_cnn_mnist", chip="A0", max_pairs=-1),
              "max_pairs: expected a whole number in [0, 100000], got -1"),
             (lambda: hetcim.sensitivity("race_cnn_mnist", chip="A0", cost="top5"),
              "cost: expected '', top1 or logit, got 'top5'")]
    for call, message in cases:
        with pytest.raises(hetcim.UserError) as e:
            call()
        assert str(e.value) == message


def test_sensitivity_no_greedy_is_greedy_false(tmp_path):
    # The table's bool greedy (on by default) is --no-greedy on the CLI: no greedy check either way.
    opts = dict(chip=CHIPS + ":A3", dataset="synthetic", samples=8, max_pairs=0)
    doc = hetcim.sensitivity("race_cnn_mnist", greedy=False, **opts)
    out = tmp_path / "s.json"
    cli("sensitivity", "race_cnn_mnist", "--chip", CHIPS + ":A3", "--dataset", "synthetic",
        "--samples", "8", "--max-pairs", "0", "--no-greedy", "--quiet", "--out", str(out))
    ref = json.loads(out.read_text())
    assert doc["additivity"] == ref["additivity"] and doc["operators"] == ref["operators"]
    assert doc["additivity"]["greedy"] == []
    assert hetcim.sensitivity("race_cnn_mnist", **opts)["additivity"]["greedy"] != []
@pytest.mark.skipif(_hetcim_torch is None, reason="built without libtorch")
def test_the_analog_jobs_messages_are_known_by_hand():
    # Each from its table's bounds or choices, the same from Python and the CLI.
    cases = [
        ("analog_select", dict(calibration="train"),
         "calibration: expected holdout or test, got 'train'"),
        ("analog_select", dict(fallback_energy="-1uJ"),
         "fallback_energy: expected an energy >= 0 J, got -1 uJ"),
        ("analog_select", dict(risk=1.0), "risk: expected a number in (0, 1), got 1"),
        ("analog_study", dict(mode="fast"), "mode: expected '', physical or reference, got 'fast'"),
        ("analog_study", dict(epochs=100001),
         "epochs: expected a whole number in [0, 100000], got 100001"),
        ("analog_drift", dict(compensation="local"),
         "compensation: expected none, global or both, got 'local'"),
        ("analog_drift", dict(batch_size=0),
         "batch_size: expected a whole number in [1, 1048576], got 0"),
        ("analog_serve", dict(dataset="mnist"),
         "dataset: expected fashion-mnist, cifar10, images:DIR or "
         "npy:X.npy,Y.npy[,XTEST.npy,YTEST.npy], got 'mnist'"),
    ]
    tables = option_tables()
    for job, kw, message in cases:
        words, call = JOBS[job]
        with pytest.raises(hetcim.UserError) as e:
            call(None, **kw)
        assert str(e.value) == message
        [(name, value)] = kw.items()
        flag = next(f["flag"] for f in tables[job] if f["name"] == name)
        r = cli(*words, flag, str(value), "--quiet", check=False)
        assert r.returncode == 1 and r.stderr == f"hetcim: error: {message}\n", (job, r.stderr)


@pytest.mark.skipif(_hetcim_torch is None, reason="built without libtorch")
def test_old_spellings_of_select_and_drift_stay_hidden_aliases():
    # --seed (chip seed) and --dataset-dir: accepted, absent from --help, not beside the new one.
    for job in ("analog_select", "analog_drift"):
        words = JOBS[job][0]
        help_text = cli(*COMMAND[job], "--help").stdout
        assert not re.search(r"--seed\b", help_text) and "--dataset-dir" not in help_text
        assert "--chip-seed" in help_text and "--data-dir" in help_text
        for old, new in (("--seed", "--chip-seed"), ("--dataset-dir", "--data-dir")):
            r = cli(*words, old, "5", new, "5", "--quiet", check=False)
            assert r.returncode == 1
            assert r.stderr == (f"hetcim: error: {old} is the old spelling of {new}; "
                                f"give only {new}\n"), r.stderr
