"""A fake OpenAI-compatible HTTP server on loopback, for tests.

It speaks just enough of the API (chat completions, streaming, embeddings) for
the real ``openai`` client to talk to it. Each test scripts the replies it
wants: a JSON body, raw text, an HTTP status, or a delay. Every request is
recorded so tests can check what reached the "model" (e.g. that a restricted
passage never did).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay: float = 0.0
    stream_chunks: list[str] | None = None


@dataclass
class FakeLLM:
    base_url: str = ""
    replies: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=lambda: Reply(content=json.dumps({"answer": "", "sources": []})))
    requests: list[dict[str, Any]] = field(default_factory=list)
    embedding_dimensions: int = 384
    embedding_calls: int = 0

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def queue_json(self, obj: Any) -> None:
        self.replies.append(Reply(content=json.dumps(obj)))

    def next_reply(self) -> Reply:
        return self.replies.pop(0) if self.replies else self.default

    def prompts(self) -> str:
        """Every message sent so far, as one string (for leak checks)."""
        return "\n".join(m.get("content", "") for r in self.requests for m in r.get("messages", []))


def _handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send_json(self, status: int, obj: Any) -> None:
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            length = int(self.headers.get("Content-Length", 0))
            payload = json.loads(self.rfile.read(length) or b"{}")
            if self.path.endswith("/embeddings"):
                fake.embedding_calls += 1
                inputs = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
                data = []
                for i, text in enumerate(inputs):
                    vec = [0.0] * fake.embedding_dimensions
                    for word in str(text).lower().split():
                        vec[hash(word) % fake.embedding_dimensions] += 1.0
                    data.append({"object": "embedding", "index": i, "embedding": vec})
                self._send_json(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": payload["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )
                return
            fake.requests.append(payload)
            reply = fake.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                self._send_json(reply.status, {"error": {"message": "scripted failure", "type": "server_error"}})
                return
            if payload.get("stream"):
                self._stream(payload, reply)
                return
            self._send_json(
                200,
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": payload.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reply.content},
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )

        def _stream(self, payload: dict[str, Any], reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            pieces = reply.stream_chunks or [reply.content[i : i + 8] for i in range(0, len(reply.content), 8)]
            for piece in pieces:
                event = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": payload.get("model", "fake"),
                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
                }
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


class FakeLLMServer:
    def __init__(self) -> None:
        self.fake = FakeLLM()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.fake))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.fake.base_url = f"http://{host}:{port}/v1"
        return self.fake

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
