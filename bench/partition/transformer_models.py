#!/usr/bin/python3
"""Exports the transformers that bench/partition/transformer_partition.sh partitions (issue 32,
scope 4), with Debian's python3-torch / python3-torchvision (nothing is downloaded):

    /usr/bin/python3 bench/partition/transformer_models.py OUT_DIR [NAME ...]

- vit_b_16_224: torchvision's ViT-B/16 at its own 224x224 input (12 blocks, width 768, 197 tokens),
  opset 13, the issue's `hetcim partition vit.onnx` model.
- vit_b_16_32: the same network on 32x32 inputs (2x2 patches: 257 tokens, as the corpus row).
- encoder2: torch.nn.TransformerEncoder, 2 post-norm layers (d_model 64, 4 heads, MLP 128, ReLU),
  batch_first, one sequence of 16 tokens of width 64; encoder1: the same with 1 layer.
- vit_tiny: tests/corpus/make_corpus.py's TinyViT (2 pre-norm blocks, width 64, 16 tokens).

Weights are random from a fixed seed per model. nn.MultiheadAttention takes a fused fast path under
no_grad that the exporter refuses, so every model is exported with gradients on (as the corpus
does); all inputs are fixed (no dynamic axes)."""
import hashlib
import os
import sys

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "corpus"))
from make_corpus import TinyViT  # noqa: E402


def seed_of(name):
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


def vit_b_16(image):
    m = torchvision.models.vit_b_16(image_size=image)
    nn.init.normal_(m.heads.head.weight, std=0.02)
    nn.init.normal_(m.heads.head.bias, std=0.02)
    return m


def encoder(layers):
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)


MODELS = {
    "vit_b_16_224": (lambda: vit_b_16(224), (1, 3, 224, 224)),
    "vit_b_16_32": (lambda: vit_b_16(32), (1, 3, 32, 32)),
    "encoder1": (lambda: encoder(1), (1, 16, 64)),
    "encoder2": (lambda: encoder(2), (1, 16, 64)),
    "vit_tiny": (lambda: TinyViT(), (1, 3, 32, 32)),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        ctor, shape = MODELS[name]
        torch.manual_seed(seed_of(name))
        m = ctor().eval()
        x = torch.randn(shape, generator=torch.Generator().manual_seed(0))
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(m, x, path + ".tmp", opset_version=13, input_names=["input"], output_names=["output"])
        os.replace(path + ".tmp", path)
        print(path)


if __name__ == "__main__":
    main()
