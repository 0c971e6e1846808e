"""A small fixed-seed next-word model built with `onnx`, decoded greedily by the model server:
the text-generation case of parity (`openai-completions`). Words are a fixed vocabulary; the model
maps the last word to the next word's scores (Gather of an embedding, then MatMul). Variants as
for the classifier: float32 baseline, float16 conversion, broken (twelve embedding rows swapped in pairs).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 20261206
WORDS = tuple(f"w{index:02d}" for index in range(48))
WIDTH = 32


def build(variant: str, path: Path) -> Path:
    rng = np.random.default_rng(SEED)
    embedding = rng.normal(0, 1, size=(len(WORDS), WIDTH)).astype(np.float32)
    projection = rng.normal(0, 1, size=(WIDTH, len(WORDS))).astype(np.float32)
    if variant == "broken":
        swapped = np.random.default_rng(3).permutation(len(WORDS))[:12]
        embedding[swapped] = embedding[swapped[::-1]]
    dtype = np.float16 if variant == "fp16" else np.float32
    nodes = [
        helper.make_node("Gather", ["embedding", "word"], ["vector"]),
        helper.make_node("MatMul", ["vector", "projection"], ["raw"]),
        helper.make_node("Cast", ["raw"], ["scores"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, f"bigram_{variant}",
        [helper.make_tensor_value_info("word", TensorProto.INT64, ["batch"])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", len(WORDS)])],
        [numpy_helper.from_array(embedding.astype(dtype), "embedding"),
         numpy_helper.from_array(projection.astype(dtype), "projection")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def requests(count: int, seed: int = 5) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{"id": f"p{index:04d}", "request": {
        "prompt": " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), size=3)), "max_tokens": 8}}
        for index in range(count)]
