#!/usr/bin/python3
"""Every command line of README.md's "Using it" block and of the `hetcim reproduce` block after it,
run against a build (issue 36): a line fails on a non-zero exit or an "internal error" on stderr.

    readme_commands.py HETCIM_BIN [--only REGEX] [--keep DIR]

The lines are read from the README at run time (a `\\` continues a line, `# ...` ends it), run in
README order in an empty directory that links `data/` and `examples/` of the source tree, with
`$hetcim` the binary under test. Only the edits in SIZES below are made, each for a stated reason
(sizes, time limits, the CPU this runs on); every edit must still match a README line (a stale
edit fails the test), and every README line runs (edited or as written). The inputs the README
takes for granted (model.onnx, image.npy, vit.onnx, ...) are made first by `make_inputs`: real
exports by torch/torchvision (Debian's /usr/bin/python3, as tests/corpus/make_corpus.py), seeded.

Exit 0 when every line passed, 1 when one failed (each failure printed with its stderr tail),
77 (ctest's skip) when Fashion-MNIST or torch is missing and HETCIM_REQUIRE_DATA is not 1.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
README = os.path.join(SOURCE, "README.md")
FASHION = "/usr/share/datasets/fashion-mnist"

# The H/P/C/T splits of the held-out images `analog select` and `study` simulate (4,000 of 6,000);
# the replay (`--logits`) must name the simulated ones. Smaller ones (400/600/1000/600) left the
# one-epoch model's policy with no certified chip, and `analog drift --policy` then has nothing to
# drift (a user error, rightly).
SPLITS = "--hardware 500 --policy 1000 --certificate 1500 --test 1000"

# README line (a substring that must occur in exactly the lines it edits) -> the edits made to
# them, (old, new) substring replacements, and why. Nothing else of a line is changed.
SIZES = [
    ("profile resnet18", [("--warmup 10 --runs 50", "--warmup 1 --runs 3")],
     "fewer repetitions: the measurement, not its precision, is under test"),
    ("--solver milp --time-limit 600s", [("--time-limit 600s", "--time-limit 5s")],
     "CBC's MILP on YOLOv5n stops at its limit with a result either way"),
    ("--bus-model serial --replicas 4 --transfers per-tensor",
     [("--transfers per-tensor", "--transfers per-tensor --time-limit 20s")],
     "weight copies on YOLOv5n: a limited solve is a result (status time-limit)"),
    ("--pareto full.json --front full", [("--front full", "--front full --time-limit 30s")],
     "every non-dominated point of YOLOv5n: a limited solve is a result"),
    ("--hosts arm,x86,this --out results/",
     [("resnet18,resnet50,mobilenetv2,yolov5n", "resnet18,mobilenetv2"),
      ("--crossbars 25,50,100,200", "--crossbars 50,100"),
      ("--t-mvm 50ns,100ns,500ns,1000ns", "--t-mvm 50ns,500ns")],
     "a 2x3x2x2 grid instead of 4x3x4x4 (every axis still a list)"),
    ("mpirun -np 2", [("mpirun -np 2", "mpirun -np 2 --oversubscribe" + (
        " --allow-run-as-root" if os.geteuid() == 0 else "")),
                      ("--threads 1", "--threads 1 --models resnet18 --crossbars 50,100 --t-mvm 50ns")],
     "the README's own note: root and more ranks than cores; a small grid"),
    ("--replicas 4 --time-limit 10s --out results-r4/",
     [("--time-limit 10s", "--time-limit 10s --models resnet18 --crossbars 100 --t-mvm 500ns "
       "--hosts x86")],
     "one point of the default 128-point grid"),
    ("--sweep bus_width=32,64,128,256 --sweep imas=1,2,4",
     [("--sweep imas=1,2,4", "--sweep imas=1,2")],
     "8 platforms instead of 12"),
    ("sensitivity cnn.onnx", [("--samples 2000", "--samples 200 --max-pairs 3")],
     "fewer images and 3 of the pairwise additivity checks (each pair is one more simulation)"),
    ("--sensitivity sens.json --max-accuracy-drop 2%",
     [("--max-accuracy-drop 2%", "--max-accuracy-drop 15%")],
     "200 images measure a drop to about +-6 points (2000 to +-2): a 2 % budget then keeps every "
     "operator off the chip, and `execute --certify` refuses a plan with nothing on it"),
    ("execute cnn.onnx", [("--certify", "--limit 3000 --certify")],
     "the first 3000 test images (the certificate's split still has rows)"),
    ("train race-cnn", [("--out cnn.onnx", "--out cnn.onnx --preset fast --epochs 1 "
                         "--train-limit 4000 --holdout 6000")],
     "one epoch on 4000 images instead of 30 on 50 000 (the README's own --preset fast, smaller)"),
    ("analog eval cnn.onnx", [("--split test", "--split test --limit 1000")], "fewer images"),
    ("--pool A0,A1,A2,A3,A4,A5 --cache cache/",
     [("--cache cache/", "--cache cache/ " + SPLITS)],
     "smaller H/P/C/T splits of the 6000 held-out images"),
    ("--pool A1,A2 --logits cache/",
     [("--logits cache/", "--logits cache/ " + SPLITS)],
     "the replay's splits must be the simulated ones"),
    ("--policy-out policy.json",
     [("--policy-out policy.json", "--policy-out policy.json " + SPLITS)],
     "the same splits (the pool is every profile with an energy, as the README says)"),
    ("analog study --models 5",
     [("--models 5", "--models 1 --preset fast --epochs 1 --train-limit 4000 --holdout 6000 "
       + SPLITS)],
     "one model of one epoch instead of five of 30"),
    ("drift cnn.onnx --policy policy.json", [("--out drift/", "--limit 500 --out drift/")],
     "fewer images"),
    ("drift cnn.onnx --chip data/chips.yaml:A3", [("--out drift/", "--limit 500 --out drift/")],
     "fewer images"),
    ("reproduce klein2026 --out", [("--out repro/klein2026/", "--quick --out repro/klein2026/")],
     "the reduced grid (the full one is `reproduce all`'s slow test)"),
    ("reproduce garofalo2022 --out", [("--out repro/garofalo2022/", "--quick --out repro/garofalo2022/")],
     "the reduced grids"),
]

# Lines that run before the others because earlier lines read what they write (README order
# otherwise): the training writes cnn.onnx, which `sensitivity` reads first.
FIRST = ["train race-cnn"]


def readme_lines():
    """Commands of the "Using it" ```sh block and of the ```sh block naming `reproduce`."""
    text = open(README).read()
    using = text.split("## Using it", 1)[1]
    blocks = re.findall(r"```sh\n(.*?)```", using, flags=re.S)
    chosen = [blocks[0]] + [b for b in blocks[1:] if "$hetcim reproduce" in b][:1]
    lines = []
    for block in chosen:
        cur = ""
        for raw in block.splitlines():
            code = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
            code = code.rstrip()
            if code.endswith("\\"):
                cur += code[:-1].strip() + " "
                continue
            cur += code.strip()
            if cur and not cur.startswith("hetcim="):
                lines.append(re.sub(r"\s+", " ", cur))
            cur = ""
    return lines


def apply_sizes(lines):
    used = [0] * len(SIZES)
    out = []
    for line in lines:
        new = line
        for i, (key, edits, _why) in enumerate(SIZES):
            if key in line:
                used[i] += 1
                for old, rep in edits:
                    if old not in new:
                        raise SystemExit("readme_commands: SIZES edit %r does not match %r" % (old, line))
                    new = new.replace(old, rep, 1)
        out.append((line, new))
    stale = [SIZES[i][0] for i, n in enumerate(used) if n == 0]
    if stale:
        raise SystemExit("readme_commands: SIZES keys that match no README line: %s" % stale)
    return out


TORCH_INPUTS = r"""
import os, sys
import numpy as np, torch, torch.nn as nn, torchvision
sys.path.insert(0, sys.argv[1])
import make_corpus as mc
torch.set_num_threads(2)
torch.manual_seed(1)
# model.onnx: a torchvision ResNet-18 (random weights, BatchNorm statistics re-estimated)
m = mc.build_fp32("resnet18", lambda: torchvision.models.resnet18(), mc.S224)
mc.export(m, mc.S224, "model.onnx", 13)
# vit.onnx: a ViT with an open batch dimension (what --input-shape resolves)
S224 = (1, 3, 224, 224)
mc.export(mc.build_fp32("vit_tiny", lambda: mc.TinyViT(patch=16, image=224), S224), S224, "vit.onnx", 13,
          dynamic=True)
# vit_b_16.onnx: torchvision's ViT-B/16 (on 32x32 images, as the corpus); deeplabv3.onnx
mc.export(mc.vit_b_16_small(), mc.S32, "vit_b_16.onnx", 13)
mc.export(mc.build_fp32("deeplabv3", lambda: mc.SegmentationOut(
    torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                               aux_loss=False)), mc.S64),
          mc.S64, "deeplabv3.onnx", 13)
# model_int8.onnx: a torch.ao eager-mode QDQ export (QuantStub -> conv-bn-relu x2 -> linear)
class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = torch.ao.quantization.QuantStub()
        self.c1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)
        self.dq = torch.ao.quantization.DeQuantStub()
    def forward(self, x):
        x = self.pool(self.c2(self.c1(self.q(x))))
        return self.dq(self.fc(torch.flatten(x, 1)))
    def fuse_model(self, is_qat=False):
        for s in (self.c1, self.c2):
            torch.ao.quantization.fuse_modules(s, ["0", "1", "2"], inplace=True)
torch.backends.quantized.engine = "onednn"
q = mc.build_eager("small_int8", lambda: Small(), (1, 3, 32, 32), "onednn")
mc.export(q, (1, 3, 32, 32), "model_int8.onnx", 13)
rng = np.random.default_rng(1)
np.save("image.npy", rng.standard_normal((1, 3, 224, 224)).astype(np.float32))
os.makedirs("calib", exist_ok=True)
for i in range(4):
    np.save("calib/%d.npy" % i, rng.standard_normal((1, 3, 224, 224)).astype(np.float32))
# queries.npy: what `analog serve --input` takes, uint8 images as a camera gives them
np.save("queries.npy", rng.integers(0, 256, (64, 28, 28), dtype=np.uint8))
"""


def make_inputs(work):
    """x.npy is made after the exports: the README reads it for two models of different inputs
    (model_int8.onnx 32x32, deeplabv3.onnx 64x64): see `x_for`."""
    r = subprocess.run(["/usr/bin/python3", "-c", TORCH_INPUTS, os.path.join(SOURCE, "tests", "corpus")],
                       cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("readme_commands: making the inputs failed:\n" + r.stderr[-3000:])


def x_for(line, work):
    """`run model_int8.onnx --input x.npy` and `run deeplabv3.onnx --input x.npy` read one name
    for two shapes: x.npy is written for the model of the line before it runs."""
    import numpy as np  # Debian's python3-numpy, as the inputs
    shape = (1, 3, 32, 32) if "model_int8.onnx" in line else (1, 3, 64, 64)
    np.save(os.path.join(work, "x.npy"),
            np.random.default_rng(2).standard_normal(shape).astype(np.float32))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hetcim")
    ap.add_argument("--only", help="run only lines matching this regex (after the inputs)")
    ap.add_argument("--keep", help="work in this directory and keep it")
    args = ap.parse_args()
    require = os.environ.get("HETCIM_REQUIRE_DATA") == "1"
    missing = []
    if not os.path.exists(os.path.join(FASHION, "t10k-images-idx3-ubyte.gz")):
        missing.append("Fashion-MNIST (%s)" % FASHION)
    if subprocess.run(["/usr/bin/python3", "-c", "import torch, torchvision, numpy"],
                      capture_output=True).returncode != 0:
        missing.append("torch/torchvision for /usr/bin/python3")
    if missing:
        print("readme_commands: missing " + ", ".join(missing), file=sys.stderr)
        return 1 if require else 77

    lines = apply_sizes(readme_lines())
    order = [p for p in lines if any(k in p[0] for k in FIRST)] + \
            [p for p in lines if not any(k in p[0] for k in FIRST)]
    work = args.keep or tempfile.mkdtemp(prefix="hetcim-readme-")
    os.makedirs(work, exist_ok=True)
    for d in ("data", "examples"):
        if not os.path.lexists(os.path.join(work, d)):
            os.symlink(os.path.join(SOURCE, d), os.path.join(work, d))
    t0 = time.time()
    if not os.path.exists(os.path.join(work, "queries.npy")):
        make_inputs(work)
    print("readme_commands: inputs made in %.0f s in %s" % (time.time() - t0, work), flush=True)
    hetcim = os.path.abspath(args.hetcim)
    failed = []
    ran = 0
    for readme, line in order:
        if args.only and not re.search(args.only, readme):
            continue
        if "x.npy" in line:
            x_for(line, work)
        argv = [hetcim if w == "$hetcim" else w for w in shlex.split(line)]
        t = time.time()
        r = subprocess.run(argv, cwd=work, capture_output=True, text=True)
        dt = time.time() - t
        ran += 1
        internal = "internal error" in r.stderr
        ok = r.returncode == 0 and not internal
        print("%s %6.1f s  %s%s" % ("ok  " if ok else "FAIL", dt, readme,
                                    "" if line == readme else "\n             as: " + line), flush=True)
        if not ok:
            failed.append(readme)
            print("      exit %d; stderr (end):\n%s" % (r.returncode, r.stderr[-2500:]), flush=True)
    print("readme_commands: %d lines run, %d failed, %.0f s" % (ran, len(failed), time.time() - t0))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
