"""`rollout.parity`: the canary must answer the same, and as fast, as the baseline before traffic moves.

Defaults come from measurement (docs/rollout.md, "Parity"): one fixed-seed transformer, CPU fp32
against an H200 at fp32/TF32/bf16/fp16 and against a broken canary (one layer's rows permuted). A
faithful bf16 canary agreed on top-1 for 97.7% of requests and on top-5 for 99.5%, with a largest
error of 0.52% of the largest logit and cosine similarity 0.99999; the broken one agreed on top-1
for 59.4% and top-5 for 89.6%, error 16.3%, cosine 0.989. So the defaults pass every faithful
precision measured and fail the broken one on each of the relative-error, cosine, top-1 and top-k
checks, with cosine never trusted alone (0.989 would pass a 0.98 threshold).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator

from accelplane.declaration.base import Duration, Model


class ParityProtocol(StrEnum):
    open_inference = "open-inference"  # KServe v2 / Open Inference Protocol: POST /v2/models/{model}/infer
    openai_completions = "openai-completions"  # POST /v1/completions, greedy (temperature 0)


class OutputKind(StrEnum):
    numeric = "numeric"  # arrays compared by error and cosine similarity (embeddings, logits)
    classification = "classification"  # scores per class: top-1 and top-k agreement
    text = "text"  # generated text under greedy decoding


class GoldenSet(Model):
    uri: str = Field(
        min_length=1,
        description="Where the golden set (JSONL: the requests and the baseline's outputs) is: s3://bucket/key, "
        "gs://bucket/key, or a path relative to the project directory.",
    )
    sha256: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 of the golden file; a file that differs is refused. `rollout parity --record` writes "
        "it; unset only before the first record.",
    )


class NumericTolerance(Model):
    max_relative_error: float = Field(
        default=0.02, gt=0, le=1,
        description="Largest |canary - baseline| as a share of the baseline's largest |value|, per request "
        "(faithful bf16 measured 0.0052, a broken layer 0.163).",
    )
    min_cosine: float = Field(
        default=0.999, ge=-1, le=1,
        description="Least cosine similarity per request (faithful bf16 0.99999, a broken layer 0.989).",
    )
    max_abs_error: float | None = Field(default=None, gt=0, description="Largest |canary - baseline|, if set.")


class ClassificationTolerance(Model):
    min_top1_agreement: float = Field(
        default=0.95, ge=0, le=1,
        description="Least share of requests whose top class is the baseline's (faithful bf16 0.977: near-ties "
        "flip; a broken layer 0.594).",
    )
    top_k: int = Field(default=5, ge=1, le=100, description="k of the top-k overlap.")
    min_top_k_overlap: float = Field(
        default=0.97, ge=0, le=1,
        description="Least mean share of the baseline's top-k classes also in the canary's top-k (faithful bf16 "
        "0.995, a broken layer 0.896).",
    )


class TextTolerance(Model):
    min_exact_match: float = Field(
        default=0.9, ge=0, le=1, description="Least share of requests whose greedy completion is identical."
    )
    min_token_agreement: float = Field(
        default=0.95, ge=0, le=1,
        description="Least mean share of leading tokens (whitespace-split) that agree before the first difference.",
    )


class ParityCompare(Model):
    kind: OutputKind = Field(description="numeric, classification or text: how outputs are compared.")
    pass_fraction: float = Field(
        default=0.99, gt=0, le=1,
        description="numeric: least share of requests within each per-request bound.",
    )
    numeric: NumericTolerance = Field(default_factory=NumericTolerance, description="Bounds for numeric outputs.")
    classification: ClassificationTolerance = Field(
        default_factory=ClassificationTolerance, description="Agreement for classification outputs."
    )
    text: TextTolerance = Field(default_factory=TextTolerance, description="Agreement for generated text.")


class ParityPerformance(Model):
    batch_sizes: list[int] = Field(
        default_factory=lambda: [1, 8], min_length=1, description="Batch sizes whose latency is measured."
    )
    concurrency: int = Field(default=4, ge=1, le=256, description="Parallel requests for the throughput figure.")
    max_latency_ratio: float = Field(
        default=1.5, gt=0, description="Largest canary p99 latency as a multiple of the baseline's, per batch size."
    )
    min_throughput_ratio: float = Field(
        default=0.8, gt=0, description="Least canary throughput as a share of the baseline's."
    )
    requests: int = Field(default=64, ge=1, le=100_000, description="Requests per measurement (the load's bound).")
    timeout: Duration = Field(default="120s", description="Longest the whole measurement may take.")

    @field_validator("batch_sizes")
    @classmethod
    def _sizes(cls, value: list[int]) -> list[int]:
        if any(size < 1 or size > 4096 for size in value):
            raise ValueError("expected batch sizes between 1 and 4096")
        return sorted(set(value))


class Parity(Model):
    """The golden set, how outputs compare, the performance bound, and where reports are kept."""

    protocol: ParityProtocol = Field(description="How the backends are asked: open-inference or openai-completions.")
    model: str = Field(
        min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$",
        description="The model's name on the server (the v2 path's model, or the completions request's model).",
    )
    path_prefix: str = Field(
        default="", pattern=r"^(/[A-Za-z0-9._~-]+)*$",
        description="Prefix of the server's API paths on the backend Service (e.g. /serving), if any.",
    )
    golden: GoldenSet = Field(description="The golden set: where it is and its pinned SHA-256.")
    compare: ParityCompare = Field(description="How the canary's outputs are compared with the golden set's.")
    performance: ParityPerformance = Field(default_factory=ParityPerformance, description="Latency and throughput.")
    reports: str = Field(
        min_length=1,
        description="Where parity reports are kept, keyed by backend, image digest and golden SHA-256: s3://, "
        "gs:// or a path relative to the project directory.",
    )
