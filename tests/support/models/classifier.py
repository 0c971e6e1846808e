"""A small fixed-seed classifier built with the `onnx` package, in the variants a parity gate must
tell apart: the float32 baseline, a faithful float16 conversion (weights and arithmetic in half
precision, the format conversion migration guides describe), and a broken conversion (eight of one hidden
layer's weight rows swapped, as a wrong operator mapping would leave them).

64 inputs -> 128 -> ReLU -> 128 -> ReLU -> 10 class scores; seed 20261205.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 20261205
SIZES = (64, 128, 128, 10)
VARIANTS = ("fp32", "fp16", "broken")


def _weights() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(SEED)
    layers = []
    for fan_in, fan_out in pairwise(SIZES):
        weight = rng.normal(0, (2.0 / fan_in) ** 0.5, size=(fan_in, fan_out)).astype(np.float32)
        bias = rng.normal(0, 0.05, size=(fan_out,)).astype(np.float32)
        layers.append((weight, bias))
    return layers


def build(variant: str, path: Path) -> Path:
    assert variant in VARIANTS
    layers = _weights()
    if variant == "broken":
        # Eight rows of the second layer swapped in pairs: a subtle break (cosine stays high), as
        # the calibration's broken canary was.
        weight, bias = layers[1]
        rows = np.arange(weight.shape[0])
        chosen = np.random.default_rng(7).choice(weight.shape[0], 8, replace=False)
        rows[chosen] = chosen[::-1]
        layers[1] = (weight[rows], bias)
    dtype = np.float16 if variant == "fp16" else np.float32
    nodes, initializers = [], []
    current = "input"
    if variant == "fp16":
        nodes.append(helper.make_node("Cast", ["input"], ["input_half"], to=TensorProto.FLOAT16))
        current = "input_half"
    for index, (weight, bias) in enumerate(layers):
        initializers += [numpy_helper.from_array(weight.astype(dtype), f"w{index}"),
                         numpy_helper.from_array(bias.astype(dtype), f"b{index}")]
        out = f"h{index}"
        nodes.append(helper.make_node("Gemm", [current, f"w{index}", f"b{index}"], [out]))
        current = out
        if index < len(layers) - 1:
            nodes.append(helper.make_node("Relu", [current], [f"r{index}"]))
            current = f"r{index}"
    nodes.append(helper.make_node("Cast", [current], ["scores"], to=TensorProto.FLOAT))
    graph = helper.make_graph(
        nodes, f"classifier_{variant}",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", SIZES[0]])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", SIZES[-1]])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def requests(count: int, seed: int = 11) -> list[dict]:
    """Golden-set requests in the Open Inference Protocol, one input row each."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(0, 1, size=(count, SIZES[0])).astype(np.float32)
    return [{"id": f"r{index:04d}", "request": {"inputs": [
        {"name": "input", "shape": [1, SIZES[0]], "datatype": "FP32", "data": [round(float(v), 6) for v in row]}]}}
        for index, row in enumerate(rows)]
