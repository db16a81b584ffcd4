#!/usr/bin/python3
"""Exports hetcim's real-exporter corpus with Debian's python3-torch / python3-torchvision.

    /usr/bin/python3 tests/corpus/make_corpus.py OUT_DIR [NAME ...]

Every model has random weights drawn from a fixed seed (nothing is downloaded). BatchNorm running
statistics are re-estimated on seeded random data before export (train-mode forward passes with a
cumulative average), so that activations and logits have a useful range: with default statistics
and random weights a MobileNetV2's logits are about 1e-9 and its int8 output is all zeros.

Quantized variants use torch.ao.quantization in eager mode (torchvision's quantizable models:
fuse_model, prepare, calibrate, convert) and FX mode (prepare_fx / convert_fx with the backend's
default QConfigMapping), each with the qnnpack and the onednn backend (torch 1.13 has no 'x86'
engine on Debian; 'onednn' is what 'x86' became in later releases). Calibration uses seeded N(0,1)
batches, the same distribution as the test inputs.

For every model the script writes NAME.onnx, NAME.in.npy (seeded N(0,1) inputs, stacked along the
batch axis: N_INPUTS of them) and one line of OUT_DIR/manifest.tsv:
    name  file  input_name  input_shape(one sample)  precision(fp32|int8|probe)  inputs.npy
One more file is written by hand with onnx.helper, not exported: `int8_pair_probe`, a probe of
ONNX Runtime's int8 arithmetic on the machine at hand (write_pair_probe). Its manifest precision is
`probe`: the oracle rows leave it out, and corpus_test reads ORT's output on it to decide whether
ORT is an oracle for int8 here.

Files that already exist with the same stamp (versions, salt, the model's row) are reused (the cache under the build
directory), so a rerun only checks stamps.
"""
import contextlib
import hashlib
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision

VERSION_SALT = "1"
N_INPUTS = 8  # seeded inputs per model (the int8 top-1 criterion is over these)


def reestimate_bn(model, shape, seed, batches=2, batch=2):
    """Replaces BatchNorm running statistics with a cumulative average over seeded random batches
    (at most 128x128 pixels: the statistics are per channel, and this keeps the corpus quick)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative moving average
    g = torch.Generator().manual_seed(seed)
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn((batch, shape[1]) + tuple(min(d, 128) for d in shape[2:]), generator=g))
    model.eval()


def calibrate(model, shape, seed, batches=1, batch=4):
    g = torch.Generator().manual_seed(seed + 1000)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn((batch,) + tuple(shape[1:]), generator=g))


# --- small hand-written networks --------------------------------------------------------------


class TinyViT(nn.Module):
    """ViT-tiny-like encoder from torch.nn modules: conv patch embedding, pre-norm attention blocks
    (Linear q/k/v, MatMul of two activations, Softmax, MatMul), GELU MLP, mean-pool, Linear head."""

    def __init__(self, dim=64, heads=4, depth=2, patch=8, image=32, classes=10):
        super().__init__()
        self.heads = heads
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2, dim) * 0.02)
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(
                nn.ModuleDict(
                    {
                        "ln1": nn.LayerNorm(dim),
                        "qkv": nn.Linear(dim, 3 * dim),
                        "proj": nn.Linear(dim, dim),
                        "ln2": nn.LayerNorm(dim),
                        "fc1": nn.Linear(dim, 2 * dim),
                        "act": nn.GELU(),
                        "fc2": nn.Linear(2 * dim, dim),
                    }
                )
            )
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2) + self.pos  # B, T, D
        b, t, d = x.shape
        h = self.heads
        for blk in self.blocks:
            y = blk["ln1"](x)
            qkv = blk["qkv"](y).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            a = torch.softmax(q @ k.transpose(-2, -1) * (d // h) ** -0.5, dim=-1)
            y = (a @ v).transpose(1, 2).reshape(b, t, d)
            x = x + blk["proj"](y)
            x = x + blk["fc2"](blk["act"](blk["fc1"](blk["ln2"](x))))
        return self.head(self.norm(x).mean(dim=1))


class TinyDetector(nn.Module):
    """Detection-style network: a strided backbone, a CSP-like block (Split -> two paths -> Concat),
    an FPN-like top-down path (nearest Resize x2 -> Concat) and a per-scale 1x1 prediction head."""

    def __init__(self, classes=4):
        super().__init__()

        def cbs(i, o, k=3, s=1):
            return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.SiLU())

        self.stem = cbs(3, 16, 3, 2)
        self.c2 = cbs(16, 32, 3, 2)
        self.csp_a = cbs(16, 16)
        self.csp_b = cbs(16, 16, 1)
        self.c3 = cbs(48, 64, 3, 2)
        self.lat = cbs(64, 32, 1)
        self.fuse = cbs(64, 32)
        self.head_hi = nn.Conv2d(32, 3 * (5 + classes), 1)
        self.head_lo = nn.Conv2d(32, 3 * (5 + classes), 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x):
        x = self.c2(self.stem(x))  # 32 ch, /4
        a, b = torch.split(x, 16, dim=1)
        p4 = torch.cat([x, self.csp_b(self.csp_a(a)) + b], dim=1)  # 48 ch
        p8 = self.lat(self.c3(p4))  # 32 ch, /8
        p4f = self.fuse(torch.cat([self.up(p8), x], dim=1))
        return torch.cat([self.head_hi(p4f).flatten(2), self.up(self.head_lo(p8)).flatten(2)], dim=2)


class TinyDetectorBilinear(TinyDetector):
    """TinyDetector with bilinear upsampling (nn.Upsample(mode="bilinear", align_corners=False),
    an ONNX Resize in mode linear with half_pixel coordinates), as segmentation and detection
    necks upsample."""

    def __init__(self, classes=4):
        super().__init__(classes)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the corpus takes its 'out' tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def vit_b_16_small():
    """torchvision's ViT-B/16 for 32x32 inputs (2x2 patches and the class token). torchvision
    initialises the classifier head to zeros, which would make every output 0 and the comparison
    empty: the head gets seeded N(0, 0.02) weights and biases instead."""
    m = TV.vit_b_16(image_size=32)
    nn.init.normal_(m.heads.head.weight, std=0.02)
    nn.init.normal_(m.heads.head.bias, std=0.02)
    return m


def vgg11_small():
    """torchvision's VGG-11 for 32x32 inputs: its AdaptiveAvgPool2d(7) would upsample the 1x1
    feature map, which the ONNX exporter refuses, so the pool is dropped and the first classifier
    Linear takes the 512 features (the convolutional part is torchvision's, unchanged)."""
    m = torchvision.models.vgg11()
    m.avgpool = nn.Identity()
    m.classifier[0] = nn.Linear(512, 4096)
    return m


# --- the corpus -------------------------------------------------------------------------------

S224 = (1, 3, 224, 224)
S64 = (1, 3, 64, 64)  # small input where the architecture allows it (global pooling)
S32 = (1, 3, 32, 32)

TV = torchvision.models
TVQ = torchvision.models.quantization

FP32 = [
    # name, constructor, input shape, opset, dynamic batch
    ("resnet18", lambda: TV.resnet18(), S224, 13, False),
    ("resnet50", lambda: TV.resnet50(), S224, 13, False),
    ("mobilenetv2", lambda: TV.mobilenet_v2(), S224, 13, False),
    ("resnet18_opset11", lambda: TV.resnet18(), S224, 11, False),
    ("resnet18_opset17", lambda: TV.resnet18(), S224, 17, False),
    ("resnet18_dynbatch", lambda: TV.resnet18(), S224, 13, True),
    ("mobilenetv3_small", lambda: TV.mobilenet_v3_small(), S64, 13, False),
    ("efficientnet_b0", lambda: TV.efficientnet_b0(), S64, 13, False),
    ("squeezenet1_1", lambda: TV.squeezenet1_1(), S64, 13, False),
    ("shufflenet_v2_x0_5", lambda: TV.shufflenet_v2_x0_5(), S64, 13, False),
    ("vgg11", vgg11_small, S32, 13, False),
    ("densenet121", lambda: TV.densenet121(), S64, 13, False),
    ("vit_tiny_opset13", lambda: TinyViT(), S32, 13, False),
    ("vit_tiny_opset17", lambda: TinyViT(), S32, 17, False),
    ("detector", lambda: TinyDetector(), S64, 13, False),
    # torchvision's transformers: their exports compute shapes at run time (Shape -> Gather ->
    # Concat -> Reshape / Expand, Equal, Where, Range, Mod, ScatterND, ...), folded for the fixed
    # input. ViT-B/16 is the full architecture (12 blocks, width 768) on 32x32 inputs (2x2 patches
    # and the class token) to keep the suite quick; Swin-T on 64x64 (windows padded to 7x7).
    ("vit_b_16_opset13", vit_b_16_small, S32, 13, False),
    ("vit_b_16_opset17", vit_b_16_small, S32, 17, False),
    ("swin_t", lambda: TV.swin_t(), S64, 13, False),
    ("convnext_tiny", lambda: TV.convnext_tiny(), S64, 13, False),
    # Bilinear upsampling (Resize mode linear): a DeepLabV3 segmentation model and a detector neck.
    (
        "deeplabv3_mobilenet_v3_large",
        lambda: SegmentationOut(
            TV.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)
        ),
        S64,
        13,
        False,
    ),
    ("detector_bilinear", lambda: TinyDetectorBilinear(), S64, 13, False),
]

QUANT_MODELS = [
    ("resnet18", lambda: TVQ.resnet18(quantize=False), lambda: TV.resnet18()),
    ("resnet50", lambda: TVQ.resnet50(quantize=False), lambda: TV.resnet50()),
    ("mobilenetv2", lambda: TVQ.mobilenet_v2(quantize=False), lambda: TV.mobilenet_v2()),
]
BACKENDS = ["qnnpack", "onednn"]


def seed_of(name):
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


def export(model, shape, path, opset, dynamic=False):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0))
    kw = {}
    if dynamic:
        kw["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
    tmp = path + ".tmp"
    # nn.MultiheadAttention (torchvision's ViT) takes its fused fast path under no_grad, an op the
    # exporter refuses; with gradients enabled it exports as the usual MatMul/Softmax graph.
    mha = any(isinstance(m, nn.MultiheadAttention) for m in model.modules())
    with contextlib.nullcontext() if mha else torch.no_grad():
        torch.onnx.export(
            model, x, tmp, opset_version=opset, input_names=["input"], output_names=["output"], **kw
        )
    os.replace(tmp, path)


def write_inputs(name, shape, path):
    rng = np.random.default_rng(seed_of(name + "/inputs"))
    x = rng.standard_normal((N_INPUTS,) + tuple(shape[1:])).astype(np.float32)
    np.save(path + ".tmp.npy", x)
    os.replace(path + ".tmp.npy", path)


def build_fp32(name, ctor, shape):
    torch.manual_seed(seed_of(name))
    m = ctor()
    reestimate_bn(m, shape, seed_of(name))
    return m


def build_eager(name, qctor, shape, backend):
    torch.manual_seed(seed_of(name))
    m = qctor()
    reestimate_bn(m, shape, seed_of(name))
    m.fuse_model(is_qat=False)
    m.qconfig = torch.ao.quantization.get_default_qconfig(backend)
    torch.ao.quantization.prepare(m, inplace=True)
    calibrate(m, shape, seed_of(name))
    torch.ao.quantization.convert(m, inplace=True)
    return m


def build_fx(name, ctor, shape, backend):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.manual_seed(seed_of(name))
    m = ctor()
    reestimate_bn(m, shape, seed_of(name))
    example = (torch.randn(shape),)
    m = prepare_fx(m, get_default_qconfig_mapping(backend), example)
    calibrate(m, shape, seed_of(name))
    return convert_fx(m)


# int8_pair_probe: QuantizeLinear (scale 1, zero point 0) -> QLinearConv 1x1 over 16 channels,
# every weight 127 (scale 1, zero point 0), output scale 4100 -> DequantizeLinear; every input
# 255. The exact sum is 16 x 255 x 127 = 518,160, requantized round(126.38) = 126, dequantized
# 516,600. A kernel that adds adjacent u8 x s8 products in a saturating int16 (VPMADDUBSW, used
# without VNNI) gets 8 x 32,767 = 262,136 instead: round(63.94) = 64, dequantized 262,400.
PROBE = "int8_pair_probe"
PROBE_SHAPE = (1, 16, 1, 1)


def write_pair_probe(onnx_path, in_path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def const(name, value, dtype):
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    inits = [
        const("one", 1.0, np.float32),
        const("zero_u8", 0, np.uint8),
        const("zero_s8", 0, np.int8),
        const("y_scale", 4100.0, np.float32),
        numpy_helper.from_array(np.full((1, 16, 1, 1), 127, dtype=np.int8), "w"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["input", "one", "zero_u8"], ["xq"]),
        helper.make_node("QLinearConv", ["xq", "one", "zero_u8", "w", "one", "zero_s8", "y_scale", "zero_u8"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "zero_u8"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes,
        PROBE,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(PROBE_SHAPE))],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, 1, 1])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, onnx_path + ".tmp")
    os.replace(onnx_path + ".tmp", onnx_path)
    np.save(in_path + ".tmp.npy", np.full((N_INPUTS,) + PROBE_SHAPE[1:], 255.0, dtype=np.float32))
    os.replace(in_path + ".tmp.npy", in_path)


def jobs():
    for name, ctor, shape, opset, dyn in FP32:
        yield name, "fp32", shape, opset, dyn, (lambda n=name, c=ctor, s=shape: build_fp32(n, c, s))
    for base, qctor, ctor in QUANT_MODELS:
        for backend in BACKENDS:
            for mode in ("eager", "fx"):
                name = "%s_int8_%s_%s" % (base, mode, backend)
                if mode == "eager":
                    b = lambda n=name, c=qctor, bk=backend: build_eager(n, c, S224, bk)
                else:
                    b = lambda n=name, c=ctor, bk=backend: build_fx(n, c, S224, bk)
                yield name, "int8", S224, 13, False, (b, backend)
    yield PROBE, "probe", PROBE_SHAPE, 13, False, None


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    only = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    # A model is rebuilt when torch, torchvision, VERSION_SALT (bump it when a builder changes) or
    # its own row of the tables above changes.
    versions = "torch %s torchvision %s salt %s" % (torch.__version__, torchvision.__version__, VERSION_SALT)
    rows = []
    t_all = time.time()
    for name, precision, shape, opset, dyn, builder in jobs():
        if only and name not in only:
            continue
        onnx_path = os.path.join(out, name + ".onnx")
        in_path = os.path.join(out, name + ".in.npy")
        stamp_path = os.path.join(out, name + ".stamp")
        stamp = "%s | %s %s %s opset %d dynamic %s" % (versions, name, precision, shape, opset, dyn)
        fresh = (
            os.path.exists(onnx_path)
            and os.path.exists(in_path)
            and os.path.exists(stamp_path)
            and open(stamp_path).read() == stamp
        )
        if not fresh:
            t0 = time.time()
            if builder is None:
                write_pair_probe(onnx_path, in_path)
            else:
                if isinstance(builder, tuple):
                    builder, backend = builder
                    torch.backends.quantized.engine = backend
                model = builder()
                export(model, shape, onnx_path, opset, dyn)
                write_inputs(name, shape, in_path)
            with open(stamp_path, "w") as f:
                f.write(stamp)
            print("make_corpus: %-32s %6.1f s" % (name, time.time() - t0), file=sys.stderr)
        rows.append(
            "\t".join([name, name + ".onnx", "input", "x".join(map(str, shape)), precision, name + ".in.npy"])
        )
    with open(os.path.join(out, "manifest.tsv.tmp"), "w") as f:
        f.write("\n".join(rows) + "\n")
    os.replace(os.path.join(out, "manifest.tsv.tmp"), os.path.join(out, "manifest.tsv"))
    print("make_corpus: %d models in %s (%.1f s)" % (len(rows), out, time.time() - t_all), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
