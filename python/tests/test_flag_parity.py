"""Every flag of a command is a keyword of its Python function (issue 33, scope 4).

Per command: the flags `hetcim CMD --help` lists against the keywords the binding applies
(`_hetcim.keywords()` / `_hetcim_torch.keywords()`: the very maps the calls fill their requests
from), each keyword spelled as the CLI spells it (the field table's flag: `--cache` for
`cache_dir`, `--no-verify` for `verify`, which is on by default). A flag only the CLI has, or a
keyword only Python has, must be listed below with its reason; the test fails on any other
difference, in either direction. And the accuracy-budget partition, run from Python."""

import functools
import json
import os
import re
import subprocess

import pytest

import hetcim
from hetcim import _hetcim

try:  # the libtorch jobs, in their own module (absent from a build without libtorch)
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


# Command words -> the Python jobs whose keywords together are the command's flags. `partition`
# and `dse` switch to a platform's K-engine solver with --platform; Python has a function per
# mode (hetcim.partition / partition_platform, hetcim.dse / dse_platform).
COMMANDS = {
    ("partition",): ["partition", "partition_platform"],
    ("dse",): ["dse", "dse_platform"],
    ("run",): ["run"],
    ("profile",): ["profile"],
    ("inspect",): ["inspect"],
    ("export",): ["export_onnx"],
    ("sensitivity",): ["sensitivity"],
    ("execute",): ["execute"],
    ("analog", "run"): ["analog_run"],
    ("analog", "audit"): ["analog_audit"],
    ("cluster", "roofline"): ["cluster_roofline"],
    ("cluster", "bottleneck"): ["cluster_bottleneck"],
    ("cluster", "calibrate"): ["cluster_calibrate"],
    ("cluster", "constants"): ["cluster_constants"],
}
TORCH_COMMANDS = {
    ("analog", "eval"): ["analog_eval"],
    ("analog", "select"): ["analog_select"],
    ("analog", "study"): ["analog_study"],
    ("analog", "drift"): ["analog_drift"],
    ("analog", "serve"): ["analog_serve"],
    ("train",): ["train"],
}

# Flags only the CLI has, and why. Every command: --help; --quiet (the CLI's progress on stderr
# and its printed table: Python prints nothing and returns the result); --batch and
# --input-shape (how the model is loaded: hetcim.load_model(spec, batch, input_shapes)).
CLI_ONLY_EVERYWHERE = {"--help", "--quiet", "--batch", "--input-shape"}
# Output paths: Python returns what the CLI writes.
CLI_ONLY = {
    # PartitionResult.json / .gantt_svg() / .save(path); partition_milp(format="mps" | "lp");
    # partition_front() -> (dict, svg); partition_front_3d() -> dict; with --platform:
    # partition_platform_problem() (--problem-json), partition_platform_milp() (--mps / --lp).
    "partition": {"--json", "--gantt", "--mps", "--lp", "--pareto", "--pareto-svg",
                  "--pareto-3d", "--problem-json", "--provenance-on-image"},
    # dse() returns the points and dse_platform() the document; --out is the CLI's directory of
    # dse.csv, dse.json, figures and its result cache (<out>/cache, --no-cache: none), which
    # Python takes as cache_dir (below); --no-figures, --provenance-on-image: Python draws no
    # figures.
    "dse": {"--out", "--no-cache", "--no-figures", "--provenance-on-image"},
    # run() returns the outputs by name (the CLI writes them as .npy; --input: the `inputs`
    # argument, arrays rather than .npy files).
    "run": {"--input", "--output"},
    "profile": {"--csv", "--json"},  # profile() returns the host profile as a dict
    "inspect": {"--json"},  # inspect() returns the dict
    "export": {"--onnx"},  # export_onnx() returns the bytes (and writes `path` when given)
    "sensitivity": {"--out"},  # sensitivity() returns the file's dict
    "execute": {"--json"},  # execute() returns the dict
    "analog run": {"--input", "--output"},  # as run
    # --provenance-on-image (every command that draws figures): an option of the CLI's figure
    # files, not a keyword (figures Python writes keep the provenance in their metadata only).
    "cluster roofline": {"--csv", "--json", "--figures", "--provenance-on-image"},  # the dicts
    "cluster bottleneck": {"--csv", "--json", "--figures", "--provenance-on-image"},
    "cluster calibrate": {"--json", "--report", "--provenance-on-image"},
    "analog eval": {"--json", "--logits"},  # evaluate() returns the dict (logits: the cache)
    "analog select": {"--json", "--policy-out"},  # select() returns the result and the policy
    "analog study": {"--provenance-on-image"},  # its outputs are the `out` directory, a keyword
    "analog drift": {"--out", "--provenance-on-image"},
    "analog serve": {"--json", "--decisions"},
    "train": set(),
}
# Keywords only Python has, and why.
PYTHON_ONLY = {
    # The CLI's cache is <out>/cache (see --out above).
    "dse": {"cache_dir"},
    "analog audit": {"model"},  # the CLI's positional MODEL
}


@functools.lru_cache(maxsize=None)
def help_text(words):
    """`hetcim WORDS --help` (each command asked once per session)."""
    return cli(*words, "--help").stdout


def help_flags(words):
    """The long flags `hetcim WORDS --help` lists (CLI11 puts each option at the start of a line,
    after at most a few spaces; a hidden old spelling is not listed)."""
    text = help_text(tuple(words))
    out = set()
    for line in text.splitlines():
        m = re.match(r"^ {1,4}(?:-\w, ?)?(--[a-z0-9][a-z0-9-]*)", line)
        if m:
            out.add(m.group(1))
    return out


def tables():
    t = dict(_hetcim.option_tables())
    if _hetcim_torch is not None:
        t.update(_hetcim_torch.option_tables())
    return t


def keywords():
    k = dict(_hetcim.keywords())
    if _hetcim_torch is not None:
        k.update(_hetcim_torch.keywords())
    return k


def flag_of(keyword, table):
    """The CLI spelling of a keyword: its field's flag (a bool on by default: --no-...), else the
    keyword with dashes. None for an old spelling (a hidden alias of a field's flag)."""
    for f in table:
        if f["name"] == keyword:
            if f["kind"] == "bool" and f["default"] == "true":
                return "--no-" + f["flag"][2:]
            return f["flag"]
    flag = "--" + keyword.replace("_", "-")
    if any(flag in f.get("aliases", []) for f in table):
        return None
    return flag


def expected(jobs):
    """(the flags the jobs' keywords spell, the keywords), over all of the command's jobs."""
    flags, names = set(), set()
    for job in jobs:
        table = tables().get(job, [])
        for k in keywords()[job]:
            fl = flag_of(k, table)
            if fl is not None:
                flags.add(fl)
                names.add(k)
    return flags, names


def commands():
    out = dict(COMMANDS)
    if _hetcim_torch is not None:
        out.update(TORCH_COMMANDS)
    return out


@pytest.mark.parametrize("words", sorted(commands()), ids=" ".join)
def test_every_flag_is_a_keyword_and_every_keyword_a_flag(words):
    name = " ".join(words)
    jobs = commands()[words]
    every = help_flags(list(words))
    flags, _ = expected(jobs)
    shown = every - CLI_ONLY.get(name, set()) - (CLI_ONLY_EVERYWHERE - flags)
    py_only = {"--" + k.replace("_", "-") for k in PYTHON_ONLY.get(name, set())}
    assert sorted(shown - flags) == [], f"{name}: CLI flags with no Python keyword"
    assert sorted(flags - every - py_only) == [], f"{name}: Python keywords with no CLI flag"
    # The exceptions are real: each listed flag exists (a stale entry would hide nothing).
    listed = CLI_ONLY.get(name, set()) | (CLI_ONLY_EVERYWHERE - {"--quiet", "--batch",
                                                                   "--input-shape"})
    assert listed <= help_flags(list(words)), name


# Commands without a Python function of the same flags, and why: `models` has no flags
# (hetcim.list_models()); `reproduce` writes a paper's report directory (report.html, figures)
# beside the published numbers, a document rather than a result to return.
NO_PYTHON = {("models",), ("reproduce",)}


def subcommands(words):
    """The subcommands `hetcim WORDS --help` lists."""
    text = help_text(tuple(words))
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and re.match(r"^  [a-z]", line):
            out.append(line.split()[0])
    return out


def test_every_command_is_compared():
    every = set()
    for top in subcommands([]):
        nested = subcommands([top])
        every |= {(top, sub) for sub in nested} if nested else {(top,)}
    torch = set(TORCH_COMMANDS) if _hetcim_torch is not None else set()
    if _hetcim_torch is None:  # hetcim-torch absent: its commands are not listed or not run
        every -= set(TORCH_COMMANDS)
    assert every == set(COMMANDS) | torch | NO_PYTHON


def test_the_accuracy_budget_flags_are_the_tables():
    # The 13 flags `partition` had added by hand for the accuracy budget, now fields.
    flags, names = expected(["partition"])
    budget = {"--sensitivity", "--max-accuracy-drop", "--chip", "--dataset", "--calibration",
              "--data-dir", "--chip-seed", "--read-seed", "--weight-seed", "--cache", "--cost",
              "--no-verify", "--no-evaluate"}
    assert budget <= flags
    assert {"max_accuracy_drop", "cache_dir", "verify", "evaluate_plans"} <= names


def test_seed_flags_say_what_they_seed(tmp_path):
    # run, profile and export seed the weights a model lacks: --weight-seed, with --seed its
    # deprecated spelling, named in --help, and the same run either way.
    for words in (["run"], ["profile"], ["export"]):
        text = help_text(tuple(words))
        assert "--weight-seed" in help_flags(words), words
        assert "--seed is a deprecated spelling" in text, words
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    cli("export", "race_cnn_mnist", "--weight-seed", "5", "--onnx", str(a))
    cli("export", "race_cnn_mnist", "--seed", "5", "--onnx", str(b))
    assert a.read_bytes() == b.read_bytes()
    c = tmp_path / "c.onnx"
    cli("export", "race_cnn_mnist", "--weight-seed", "6", "--onnx", str(c))
    assert c.read_bytes() != a.read_bytes()  # the flag reaches the weights
    r = cli("export", "race_cnn_mnist", "--seed", "5", "--weight-seed", "5", "--onnx", str(c),
            check=False)
    assert r.returncode == 1
    assert r.stderr == ("hetcim: error: --seed is the old spelling of --weight-seed; give only "
                        "--weight-seed\n")


def test_crossbar_size_has_one_parser():
    # Python's crossbar= goes through the request's own parser (util/numbers.h parse_dims), with
    # the CLI's message.
    m = hetcim.load_model("resnet18")
    for bad in ("256", "256x", "x256", "256x256x2", "1e2x256", "-256x256 "):
        with pytest.raises(hetcim.UserError) as e:
            hetcim.inspect(m, crossbar=bad)
        assert str(e.value) == f"crossbar: expected ROWSxCOLS such as 256x256, got '{bad}'"
        r = cli("inspect", "resnet18", "--crossbar", bad, "--quiet", check=False)
        assert r.returncode == 1 and r.stderr == f"hetcim: error: {e.value}\n", (bad, r.stderr)
    a = hetcim.inspect(m, crossbar="128x64")
    b = hetcim.inspect(m, crossbar=(128, 64))
    assert a == b and a["totals"] != hetcim.inspect(m)["totals"]


@pytest.fixture(scope="module")
def sensitivity_file(tmp_path_factory):
    """A sensitivity file of seed 002's CNN on chip A3, 16 synthetic inputs (as the CLI writes
    it; Python's sensitivity() returns the same document)."""
    path = tmp_path_factory.mktemp("acc") / "sens.json"
    doc = hetcim.sensitivity("race_cnn_mnist", chip=f"{CHIPS}:A3", dataset="synthetic",
                             samples=16, max_pairs=0, greedy=False)
    path.write_text(json.dumps(doc))
    return path, doc


def test_the_accuracy_budget_partition_runs_from_python(sensitivity_file, tmp_path):
    path, doc = sensitivity_file
    drops = {op["name"]: op["drop"] for op in doc["operators"]}
    opts = dict(sensitivity=str(path), chip=f"{CHIPS}:A3", crossbars=1000)
    free = hetcim.partition("race_cnn_mnist", **opts)
    budget = hetcim.partition("race_cnn_mnist", max_accuracy_drop="0%", **opts)
    zero = json.loads(budget.json)
    # A 0 % budget allows only operators whose measured drop is 0: every offloaded operator
    # has drop <= 0 in the file (checked by hand from the file, not from the solver's output).
    cim = [n for n, d in hetcim.assignment(budget).items() if d == "cim"]
    assert all(drops[n] <= 0 for n in cim), (cim, drops)
    assert zero["accuracy"]["budget"] == 0.0
    assert sorted(zero["accuracy"]["analog_operators"]) == sorted(cim)
    assert json.loads(free.json)["accuracy"]["budget"] is None  # no budget: none reported
    # The fraction and the CLI's text are the same budget.
    assert json.loads(hetcim.partition("race_cnn_mnist", max_accuracy_drop=0.0,
                                       **opts).json)["operators"] == zero["operators"]
    # The same call on the CLI: the same plan and the same accuracy block.
    out = tmp_path / "cli.json"
    cli("partition", "race_cnn_mnist", "--sensitivity", str(path), "--chip", f"{CHIPS}:A3",
        "--crossbars", "1000", "--max-accuracy-drop", "0%", "--json", str(out), "--quiet")
    ref = json.loads(out.read_text())
    assert ref["operators"] == zero["operators"]
    assert ref["accuracy"] == zero["accuracy"]
    # Without a budget nothing holds operators back: at least as fast as with one.
    assert free.latency_s <= budget.latency_s
    # A bare number is refused from both faces with one message.
    with pytest.raises(hetcim.UserError) as e:
        hetcim.partition("race_cnn_mnist", max_accuracy_drop="2", **opts)
    assert str(e.value) == "max_accuracy_drop: expected a percentage such as 1% or 0.5%, got '2'"
    r = cli("partition", "race_cnn_mnist", "--sensitivity", str(path), "--chip", f"{CHIPS}:A3",
            "--max-accuracy-drop", "2", "--quiet", check=False)
    assert r.returncode == 1 and r.stderr == f"hetcim: error: {e.value}\n"
