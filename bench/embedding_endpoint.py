"""An OpenAI-compatible ``/v1/embeddings`` server with known limits, for the ingestion bench.

    python -m bench.embedding_endpoint [--latency 0.05] [--max-inputs 32] [--max-concurrent 4]

Each request takes ``--latency`` seconds whatever its size (the issue's "fixed 50 ms per
request"). Like a hosted endpoint it has limits: at most ``--max-inputs`` inputs a request
(more: 400) and ``--max-concurrent`` requests served at once (more wait their turn, as at a
server with a fixed pool of model replicas).
Its limit is therefore ``max_concurrent x max_inputs / latency`` inputs a second, and a
client reaches it only with full batches, several in flight.

Vectors are pseudo-random per text (the same text, the same vector), unit length, sent as
base64 float32 when the client asks (the ``openai`` client does). The port is printed on
stdout as ``listening on PORT``. Counters are served at ``GET /stats``.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


class Endpoint:
    def __init__(self, latency: float, max_inputs: int, max_concurrent: int, dimensions: int) -> None:
        self.latency, self.max_inputs, self.max_concurrent, self.dimensions = (
            latency,
            max_inputs,
            max_concurrent,
            dimensions,
        )
        self.lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(max_concurrent)
        self.in_flight = 0
        self.stats = {"requests": 0, "inputs": 0, "refused_size": 0, "in_flight_max": 0}

    @property
    def limit(self) -> float:
        """Inputs a second at most: full requests, as many at once as allowed."""
        return self.max_concurrent * self.max_inputs / self.latency

    def vector(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(text.encode()))
        v = rng.standard_normal(self.dimensions).astype(np.float32)
        return v / np.linalg.norm(v)


def _handler(endpoint: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as hosted endpoints

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, obj: Any) -> None:
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            with endpoint.lock:
                self._send(200, {**endpoint.stats, "limit_inputs_per_s": endpoint.limit})

        def do_POST(self) -> None:  # noqa: N802
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            inputs = payload.get("input")
            inputs = inputs if isinstance(inputs, list) else [inputs]
            if len(inputs) > endpoint.max_inputs:
                with endpoint.lock:
                    endpoint.stats["refused_size"] += 1
                message = f"at most {endpoint.max_inputs} inputs a request, got {len(inputs)}"
                self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})
                return
            with endpoint.slots:  # at most max_concurrent at once; the others wait here
                with endpoint.lock:
                    endpoint.in_flight += 1
                    endpoint.stats["in_flight_max"] = max(endpoint.stats["in_flight_max"], endpoint.in_flight)
                try:
                    started = time.monotonic()
                    vectors = [endpoint.vector(str(text)) for text in inputs]
                    time.sleep(max(0.0, endpoint.latency - (time.monotonic() - started)))
                finally:
                    with endpoint.lock:
                        endpoint.in_flight -= 1
                        endpoint.stats["requests"] += 1
                        endpoint.stats["inputs"] += len(inputs)
            as_base64 = payload.get("encoding_format") == "base64"
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": base64.b64encode(v.tobytes()).decode() if as_base64 else v.tolist(),
                }
                for i, v in enumerate(vectors)
            ]
            usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
            self._send(200, {"object": "list", "data": data, "model": payload.get("model", ""), "usage": usage})

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.embedding_endpoint", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds each request takes")
    parser.add_argument("--max-inputs", type=int, default=32, help="inputs a request may carry")
    parser.add_argument("--max-concurrent", type=int, default=4, help="requests served at once")
    parser.add_argument("--dimensions", type=int, default=384)
    args = parser.parse_args(argv)
    endpoint = Endpoint(args.latency, args.max_inputs, args.max_concurrent, args.dimensions)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), _handler(endpoint))
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
