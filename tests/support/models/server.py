"""A model server for one ONNX model, on onnxruntime (CPU).

    python -m tests.support.models.server MODEL.onnx PORT [--name NAME]

Serves `GET /v2/health/ready`, `POST /v2/models/{name}/infer` (Open Inference Protocol, KServe v2)
and, for the next-word model (`bigram.py`), `POST /v1/completions` (OpenAI completions: the prompt's
last word, then `max_tokens` words decoded greedily, one model run per word; `prompt` may be a
list). A slow canary is made on the parity command's clock, not here
(tests/rollout/test_rollout_parity.py): no test waits for one.
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import onnxruntime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("port", type=int)
    parser.add_argument("--name", default="classifier")
    args = parser.parse_args()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    lock = threading.Lock()
    output_name = session.get_outputs()[0].name

    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200 if self.path == "/v2/health/ready" else 404, {})

        def _completions(self, request: dict[str, Any]) -> dict[str, Any]:
            from tests.support.models.bigram import WORDS

            prompts = request["prompt"] if isinstance(request["prompt"], list) else [request["prompt"]]
            choices, generated = [], 0
            for index, prompt in enumerate(prompts):
                words = str(prompt).split()
                word = WORDS.index(words[-1]) if words and words[-1] in WORDS else 0
                out = []
                for _ in range(int(request.get("max_tokens", 16))):
                    with lock:
                        (scores,) = session.run([output_name], {"word": np.asarray([word], dtype=np.int64)})
                    word = int(np.argmax(scores[0]))
                    out.append(WORDS[word])
                choices.append({"index": index, "text": " " + " ".join(out), "finish_reason": "length"})
                generated += len(out)
            # Its tokens are the words: usage as OpenAI's API reports it.
            prompt_tokens = sum(len(str(prompt).split()) for prompt in prompts)
            return {"object": "text_completion", "model": args.name, "choices": choices,
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": generated,
                              "total_tokens": prompt_tokens + generated}}

        def do_POST(self) -> None:
            if self.path == "/v1/completions":
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                if request.get("temperature") != 0:
                    self._send(400, {"error": "this test server decodes greedily only: temperature 0"})
                    return
                self._send(200, self._completions(request))
                return
            if self.path != f"/v2/models/{args.name}/infer":
                self._send(404, {"error": f"no model at {self.path}"})
                return
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            feeds = {t["name"]: np.asarray(t["data"], dtype=np.float32).reshape(t["shape"])
                     for t in request["inputs"]}
            with lock:
                (scores,) = session.run([output_name], feeds)
            self._send(200, {"model_name": args.name, "outputs": [
                {"name": output_name, "shape": list(scores.shape), "datatype": "FP32",
                 "data": [float(v) for v in scores.reshape(-1)]}]})

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
