"""An Open Inference Protocol (KServe v2) model server for one ONNX model, on onnxruntime (CPU).

    python -m tests.support.models.server MODEL.onnx PORT [--name NAME] [--delay SECONDS]

Serves `GET /v2/health/ready` and `POST /v2/models/{name}/infer`; `--delay` adds a fixed wait to
every inference (a canary made deliberately slower than the baseline by far more than machine noise).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import onnxruntime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("port", type=int)
    parser.add_argument("--name", default="classifier")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    lock = threading.Lock()
    output_name = session.get_outputs()[0].name

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200 if self.path == "/v2/health/ready" else 404, {})

        def do_POST(self) -> None:
            if self.path != f"/v2/models/{args.name}/infer":
                self._send(404, {"error": f"no model at {self.path}"})
                return
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            feeds = {t["name"]: np.asarray(t["data"], dtype=np.float32).reshape(t["shape"])
                     for t in request["inputs"]}
            if args.delay:
                time.sleep(args.delay)
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
