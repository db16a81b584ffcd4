#!/usr/bin/env python3
"""Writes an ONNX model that is a chain of N Relu nodes on a 1x8 float input (issue 35's
quadratic-import case): python3 make_chain.py N OUT.onnx. Needs the onnx package (Debian:
python3-onnx)."""
import sys

import onnx
from onnx import TensorProto, helper

n, out = int(sys.argv[1]), sys.argv[2]
nodes, prev = [], "x"
for i in range(n):
    o = "y" if i == n - 1 else f"t{i}"
    nodes.append(helper.make_node("Relu", [prev], [o], name=f"relu{i}"))
    prev = o
g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), out)
