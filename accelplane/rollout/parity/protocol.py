"""How a backend is asked and how its answer reads, per protocol, and how requests batch.

- open-inference (KServe v2 / Open Inference Protocol, served by Triton, KServe, MLServer,
  OpenVINO Model Server): `POST {prefix}/v2/models/{model}/infer` with `{"inputs": [{"name",
  "shape", "datatype", "data"}]}`; the output compared is the first output's `data`, flat. A batch
  of b requests concatenates each input's data along the first dimension.
- openai-completions (vLLM, TGI, SGLang): `POST {prefix}/v1/completions` with the request's
  `prompt` and `max_tokens`, the declared model and `temperature: 0` (greedy, so the baseline's
  answer is reproducible); the output compared is `choices[0].text`. A batch is a list of prompts.

Where a backend is reached (`Transport`): a URL (`--baseline-url`/`--canary-url`, e.g. after
`kubectl port-forward svc/NAME 8000`) or the backend's own Kubernetes Service through the API
server's proxy, so the weighted route, and the users behind it, never see the parity load.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from typing import Any

from accelplane.declaration import Parity, ParityProtocol
from accelplane.rollout.kubernetes_api import KubernetesApi, KubernetesApiError
from accelplane.verify.text import API_MESSAGE_LIMIT, one_line


class CallError(Exception):
    """A backend that did not answer the request (the message names it and why)."""


class Transport(ABC):
    where: str

    @abstractmethod
    def post(self, path: str, body: dict[str, Any], timeout: float) -> dict[str, Any]: ...


class UrlTransport(Transport):
    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.where = self.base

    def post(self, path: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                data = json.loads(answer.read())
        except urllib.error.HTTPError as error:
            raise CallError(f"{self.base}{path}: HTTP {error.code}: "
                            f"{one_line(error.read(2048).decode('utf-8', 'replace'), API_MESSAGE_LIMIT)}") from None
        except (urllib.error.URLError, OSError) as error:
            raise CallError(f"{self.base}{path}: {one_line(getattr(error, 'reason', error), API_MESSAGE_LIMIT)}") \
                from None
        except ValueError:
            raise CallError(f"{self.base}{path}: the answer is not JSON") from None
        if not isinstance(data, dict):
            raise CallError(f"{self.base}{path}: expected a JSON object")
        return data


class ServiceTransport(Transport):
    def __init__(self, api: KubernetesApi, namespace: str, service: str, port: int) -> None:
        self.api, self.namespace, self.service, self.port = api, namespace, service, port
        self.where = f"Service {namespace}/{service}:{port} ({api.access.where})"

    def post(self, path: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            return self.api.service_post(self.namespace, self.service, self.port, path, body)
        except KubernetesApiError as error:
            raise CallError(f"{self.where}{path}: {error}") from None


def path(parity: Parity) -> str:
    if parity.protocol is ParityProtocol.open_inference:
        return f"{parity.path_prefix}/v2/models/{parity.model}/infer"
    return f"{parity.path_prefix}/v1/completions"


def body(parity: Parity, request: dict[str, Any]) -> dict[str, Any]:
    if parity.protocol is ParityProtocol.openai_completions:
        return {**request, "model": parity.model, "temperature": 0}
    return request


def output(parity: Parity, answer: dict[str, Any]) -> Any:
    """The compared output of one request's answer; `CallError` when the answer has none."""
    try:
        if parity.protocol is ParityProtocol.openai_completions:
            return answer["choices"][0]["text"]
        return list(answer["outputs"][0]["data"])
    except (KeyError, IndexError, TypeError):
        wanted = "choices[0].text" if parity.protocol is ParityProtocol.openai_completions else "outputs[0].data"
        raise CallError(f"the answer has no {wanted}: {str(answer)[:120]}") from None


def output_tokens(parity: Parity, answer: dict[str, Any]) -> int | None:
    """The tokens the server says it generated for one answer (OpenAI's `usage.completion_tokens`, which
    vLLM, TGI and others report too); None where the protocol or the server gives no count."""
    if parity.protocol is not ParityProtocol.openai_completions:
        return None
    usage = answer.get("usage") if isinstance(answer, dict) else None
    count = usage.get("completion_tokens") if isinstance(usage, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def batched(parity: Parity, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """One request body for a batch of requests."""
    if parity.protocol is ParityProtocol.openai_completions:
        first = requests[0]
        return body(parity, {**first, "prompt": [r.get("prompt", "") for r in requests]})
    inputs = []
    for index, tensor in enumerate(requests[0].get("inputs") or []):
        parts = [r["inputs"][index] for r in requests]
        shape = list(tensor.get("shape") or [1])
        shape[0] = sum(int((p.get("shape") or [1])[0]) for p in parts)
        inputs.append({**tensor, "shape": shape, "data": [v for p in parts for v in _flat(p.get("data"))]})
    return {"inputs": inputs}


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [item for element in value for item in _flat(element)]
    return [value]


def ask(transport: Transport, parity: Parity, request: dict[str, Any], timeout: float) -> tuple[Any, float]:
    """One request: (its output, seconds)."""
    started = time.perf_counter()
    answer = transport.post(path(parity), body(parity, request), timeout)
    return output(parity, answer), time.perf_counter() - started
