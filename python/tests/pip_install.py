#!/usr/bin/env python3
"""`pip install .` as a user runs it (issue 36), against this build: a fresh virtual environment
with the system site packages (NumPy from Debian), `pip install --no-index` of the source tree
(pyproject.toml, python/hetcim_build.py: offline, packing the modules this build made, stripped),
then from a directory outside the source tree:

- the package imported is the installed one, and its numbers are the CLI's (ResNet-18's partition
  latency equals `hetcim partition --json`'s);
- a bare chip name (A3) resolves to the installed copy of the shipped data, <venv>/share/hetcim;
- the Python tests of the package's own behaviour (test_pythonic, test_interrupt, test_stubs and
  test_hetcim) pass against the installed package;
- with python3-build installed, `python3 -m build --wheel` makes a wheel holding the modules and
  the data.

    python3 python/tests/pip_install.py --build-dir build/dev     (ctest: python_pip_install)
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def run(cmd, **kw):
    print("+ " + " ".join(a if len(a) < 100 else a[:40] + "..." for a in cmd), flush=True)
    r = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


SMOKE = r"""
import json, os, sys
import hetcim
venv = sys.argv[1]
site = os.path.realpath(os.path.dirname(hetcim.__file__))
assert site.startswith(os.path.realpath(venv)), site
plan = hetcim.partition("resnet18", preset="seed000-arm", crossbars=100, t_mvm="50ns")
ref = json.load(open(sys.argv[2]))
assert plan.latency_s == ref["latency_s"], (plan.latency_s, ref["latency_s"])
assert plan.to_dict()["operators"] == ref["operators"]
d = hetcim.sensitivity("race_cnn_mnist", chip="A3", dataset="synthetic", samples=8, max_pairs=0,
                       progress=False)
chips = os.path.realpath(os.path.join(venv, "share", "hetcim", "chips.yaml"))
assert d["chip"]["spec"] == chips + ":A3", d["chip"]["spec"]
print("smoke:", repr(plan))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--tests", default="test_pythonic.py,test_interrupt.py,test_stubs.py,"
                    "test_hetcim.py")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    cli = os.path.abspath(os.environ.get("HETCIM_BIN") or os.path.join(build, "bin", "hetcim"))
    settings = [f"build-dir={build}", "prebuilt=1", "strip=1"]
    with tempfile.TemporaryDirectory(prefix="hetcim-pip-") as tmp:
        venv = os.path.join(tmp, "venv")
        run([sys.executable, "-m", "venv", "--system-site-packages", venv])
        py = os.path.join(venv, "bin", "python")
        pip = [py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check"]
        for s in settings:
            pip += ["--config-settings", s]
        run(pip + [SOURCE])
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["HETCIM_BIN"] = cli
        ref = os.path.join(tmp, "ref.json")
        run([cli, "partition", "resnet18", "--preset", "seed000-arm", "--crossbars", "100",
             "--t-mvm", "50ns", "--quiet", "--json", ref])
        print(run([py, "-c", SMOKE, venv, ref], cwd=tmp, env=env).strip())
        tests = [os.path.join(HERE, t) for t in args.tests.split(",") if t]
        out = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=tmp, env=env)
        print(out.strip().splitlines()[-1])
        # A wheel with python3-build (Debian's python3-build), offline as well.
        try:
            import build  # noqa: F401, PLC0415
        except ImportError:
            print("python3 -m build: not installed (Debian: python3-build), wheel check skipped")
            return 0
        dist = os.path.join(tmp, "dist")
        cmd = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist]
        for s in settings:
            cmd += ["--config-setting", s]
        run(cmd + [SOURCE], cwd=tmp)
        (wheel,) = glob.glob(os.path.join(dist, "hetcim-*.whl"))
        names = zipfile.ZipFile(wheel).namelist()
        for want in ("hetcim/__init__.py", "hetcim/__init__.pyi", "hetcim/py.typed",
                     "hetcim/results.py", "hetcim-%s.data/data/share/hetcim/chips.yaml"):
            if "%s" in want:
                want = want % os.path.basename(wheel).split("-")[1]
            assert want in names, (want, names)
        assert any(n.startswith("hetcim/_hetcim.") and n.endswith(".so") for n in names), names
        print(f"wheel: {os.path.basename(wheel)}, {len(names)} files, "
              f"{os.path.getsize(wheel) / 1e6:.1f} MB")
    print(json.dumps({"pip_install": "ok"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
