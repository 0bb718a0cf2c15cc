"""A fake OpenAI-compatible HTTP server on loopback, for tests.

It speaks just enough of the API (chat completions, streaming, embeddings) for
the real ``openai`` client to talk to it. Each test scripts the replies it
wants: a JSON body, raw text, an HTTP status, or a delay. Every request is
recorded so tests can check what reached the "model" (e.g. that a restricted
passage never did).

Besides scripted replies, the fake can behave like a provider (tests and
``bench/llm_latency.py``):

- ``slow(seconds, first_token, hang_rate)``: every reply takes ``seconds``
  (streamed text starts after ``first_token`` and is spread over the rest), and
  a share ``hang_rate`` of the calls never answer;
- ``hang()``: no call is ever answered (the connection stays open);
- ``junk()``: replies that are not what was asked for, in turn: not JSON, JSON of
  the wrong shape, an answer citing nothing, an answer with an invented figure;
- ``alter()``: answers that cite a real passage but do not say what it says:
  passage [1]'s first sentence with a figure, as written, then the same sentence
  with its figures changed, then a sentence of the model's own (``INVENTED``),
  all citing [1] (JSON, or plain text when streamed);
- ``respond``: a function of the request that writes the reply (e.g. a
  translation for translation prompts, a cited answer for Ask).
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JUNK_REPLIES = [
    "Sure! Here is what I found about your question.",  # not JSON
    json.dumps({"answer": ["not", "text"], "sources": "1"}),  # wrong shape
    json.dumps({"answer": "You get 40 days.", "sources": []}),  # cites nothing
    json.dumps({"answer": "You get 41 days [1].", "sources": [1]}),  # a figure no passage has
]
JUNK_STREAMS = ["Sure! Here is what I found.", "You get 41 days [1]."]
INVENTED = "Every employee also receives a free gym membership, paid by the company."
_PASSAGE_LINE = re.compile(r"^\{.*\}$", re.M)


def altered_answer(payload: dict[str, Any]) -> str:
    """``alter()``'s answer to an Ask prompt: the real sentence, its altered twin, an invented one."""
    user = next((m["content"] for m in payload.get("messages", []) if m.get("role") == "user"), "")
    passages = [json.loads(line) for line in _PASSAGE_LINE.findall(user)]
    first = next((p for p in passages if p.get("n") == 1), None)
    if first is None:
        return ""
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(str(first["text"]).split()))
    real = next((s for s in sentences if re.search(r"\d", s)), sentences[0]).rstrip(".")
    altered = re.sub(r"\d+", lambda m: str(int(m.group()) + 7), real)
    return f"{real} [1]. {altered} [1]. {INVENTED} [1]"


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
    embedding_delay: float = 0.0  # seconds each /embeddings request takes
    embedding_batches: list[int] = field(default_factory=list)  # inputs per request, in arrival order
    embedding_in_flight: int = 0
    embedding_in_flight_max: int = 0
    mode: str = "script"  # "script" | "slow" | "hang" | "junk" | "alter"
    slow_seconds: float = 2.0
    slow_first_token: float = 1.0
    hang_rate: float = 0.0
    respond: Callable[[dict[str, Any]], Reply] | None = None
    stopped: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    rng: random.Random = field(default_factory=lambda: random.Random(23))
    junk_served: int = 0
    hung: int = 0

    def slow(self, seconds: float = 2.0, first_token: float = 1.0, hang_rate: float = 0.2) -> None:
        self.mode, self.slow_seconds, self.slow_first_token, self.hang_rate = "slow", seconds, first_token, hang_rate

    def hang(self) -> None:
        self.mode = "hang"

    def junk(self) -> None:
        self.mode = "junk"

    def alter(self) -> None:
        self.mode = "alter"

    def scripted(self) -> None:
        self.mode = "script"

    @property
    def chat_calls(self) -> int:
        """Chat completions received (answered or not)."""
        return len(self.requests)

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def queue_json(self, obj: Any) -> None:
        self.replies.append(Reply(content=json.dumps(obj)))

    def next_reply(self, payload: dict[str, Any] | None = None) -> Reply:
        if self.replies:
            return self.replies.pop(0)
        if self.mode == "junk":
            self.junk_served += 1
            junk = JUNK_STREAMS if payload and payload.get("stream") else JUNK_REPLIES
            return Reply(content=junk[(self.junk_served - 1) % len(junk)])
        if self.mode == "alter" and payload is not None:
            text = altered_answer(payload)
            return Reply(content=text if payload.get("stream") else json.dumps({"answer": text, "sources": [1]}))
        if self.respond is not None and payload is not None:
            return self.respond(payload)
        return self.default

    def hangs_now(self) -> bool:
        """Whether this call is one that never answers."""
        if self.mode == "hang":
            return True
        return self.mode == "slow" and self.hang_rate > 0 and self.rng.random() < self.hang_rate

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
                inputs = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
                with fake.lock:
                    fake.embedding_calls += 1
                    fake.embedding_batches.append(len(inputs))
                    fake.embedding_in_flight += 1
                    fake.embedding_in_flight_max = max(fake.embedding_in_flight_max, fake.embedding_in_flight)
                try:
                    time.sleep(fake.embedding_delay)
                finally:
                    with fake.lock:
                        fake.embedding_in_flight -= 1
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
            if fake.hangs_now():
                fake.hung += 1
                fake.stopped.wait()  # until the server stops: the client's timeout is the only way out
                return
            reply = fake.next_reply(payload)
            if reply.delay:
                time.sleep(reply.delay)
            if fake.mode == "slow" and not payload.get("stream"):
                time.sleep(fake.slow_seconds)
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
            gap = 0.0
            if fake.mode == "slow":
                time.sleep(fake.slow_first_token)
                gap = max(0.0, fake.slow_seconds - fake.slow_first_token) / max(1, len(pieces))
            for n, piece in enumerate(pieces):
                if gap and n:
                    time.sleep(gap)
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


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up waiting: expected
            super().handle_error(request, client_address)


class FakeLLMServer:
    def __init__(self) -> None:
        self.fake = FakeLLM()
        self._server = _QuietServer(("127.0.0.1", 0), _handler(self.fake))
        # A short poll: shutdown() waits for the loop to notice, 0.5 s per test at the default.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.fake.base_url = f"http://{host}:{port}/v1"
        return self.fake

    def __exit__(self, *exc: Any) -> None:
        self.fake.stopped.set()  # hung calls end
        self._server.shutdown()
        self._server.server_close()
