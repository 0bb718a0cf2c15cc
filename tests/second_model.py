"""A second embedding model on loopback, for tests and benchmarks: the bundled e5 on another similarity scale.

The project must work with embedding models whose similarity scale is not e5's. Multilingual e5 puts
any two texts above cosine 0.7 (every vector shares one large common component); hosted models put
unrelated texts near 0. No such model can run here, so this server makes one out of the local e5:

    v' = R (v - m) / |R (v - m)|

- ``v``: the local e5 vector of the input *exactly as received*. The app's ``OpenAIEmbedder`` adds
  ``query: `` / ``passage: `` itself when the model name contains "e5" (hence ``MODEL``); the
  bundled engine always adds one of them, so the server strips the one it received and asks the
  engine for that kind: the vector is e5's own for the full text. A text with neither prefix (a
  client of a model named without "e5") is embedded as a passage: the engine cannot do without one.
- ``m``: the mean of the shipped e5 passage vectors of the sentence sets in
  ``search/embedding/data/*.npz`` (2,754 everyday and workplace sentences, English and French). It is
  fixed data, so every server and every process transforms alike: vectors cached by model name
  (``search/embedding/sentence_sets.py``) stay valid from one test's server to the next. Removing it
  removes e5's common component: unrelated passages fall from ~0.80 to ~0.00 (random pairs of those
  sentences: 5th-95th percentile -0.20..0.23), related ones keep a clear lead.
  The mean is of passages: two *queries* keep a little of what "query: " shares (~0.25 unrelated).
- ``R``: a fixed random orthogonal matrix (QR of a seeded Gaussian). It leaves cosines as they are
  and makes the coordinates unlike e5's, so nothing can pass by reading a stand-in vector as an e5 one.

The shipped sentences' vectors are served from the shipped ``.npz`` (float16; cosine to a live
embedding > 0.99999; the sets of queries as queries): the app embeds all of them (2,754 passages and
~800 queries) through a remote model once per process
(off_topic), ~200 s of the local engine on two cores, which every test using this model would pay.
``stats()["shipped"]`` counts them.

Requests: ``POST .../embeddings`` with ``input`` (a string or a list of strings), ``model`` (any
label: it is echoed back), ``dimensions`` (1..384: the first ones, renormalised, as OpenAI's
shortened embeddings) and ``encoding_format`` (``float``, or ``base64`` float32 as the ``openai``
client asks by default). ``GET .../stats``: counters. Runnable by hand or from a bench:

    python -m tests.second_model [--port 0]    # prints "listening on PORT"
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import threading
from dataclasses import asdict, dataclass
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from search.embedding.embedders import LOCAL_DIMENSIONS, LOCAL_MODEL_NAME, local_embedder
from search.embedding.sentence_sets import SETS

MODEL = "handbook-e5-centred"  # contains "e5": the app's client sends the prefixes e5 needs
SEED = 5  # of R; any fixed value: what matters is that every server uses the same R
QUERY, PASSAGE = "query: ", "passage: "


@dataclass(frozen=True)
class Transform:
    mean: np.ndarray  # m, (384,)
    rotation: np.ndarray  # R, (384, 384), orthogonal
    shipped: dict[str, np.ndarray]  # "passage: <sentence>" -> its shipped e5 vector

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        moved = (np.asarray(vectors, dtype=np.float64) - self.mean) @ self.rotation.T
        return moved / np.maximum(np.linalg.norm(moved, axis=1, keepdims=True), 1e-12)


@lru_cache(maxsize=1)
def transform() -> Transform:
    """m, R and the shipped vectors: computed once per process, the same in every process."""
    vectors, shipped = [], {}
    for sentence_set in SETS:
        path = sentence_set.shipped_path(LOCAL_MODEL_NAME)
        with np.load(path) as data:
            found = data["vectors"].astype(np.float64)
            current = str(data["digest"]) == sentence_set.digest(LOCAL_MODEL_NAME)
        found /= np.linalg.norm(found, axis=1, keepdims=True)
        if not sentence_set.as_queries:  # the mean is of passages (the sets of queries are embedded as such)
            vectors.append(found)
        # Stale vectors (sentences edited, .npz not rewritten) still give a fair mean, but are not
        # the vectors of today's sentences: those are then embedded live.
        if current:
            prefix = QUERY if sentence_set.as_queries else PASSAGE
            shipped.update({prefix + s: v for s, v in zip(sentence_set.sentences(), found, strict=True)})
    mean = np.concatenate(vectors).mean(axis=0)
    gaussian = np.random.default_rng(SEED).standard_normal((LOCAL_DIMENSIONS, LOCAL_DIMENSIONS))
    q, r = np.linalg.qr(gaussian)
    rotation = q * np.sign(np.diag(r))  # the sign fix makes R uniformly distributed, not QR's choice
    return Transform(mean=mean, rotation=rotation, shipped=shipped)


def served_vectors(e5: np.ndarray, dimensions: int = LOCAL_DIMENSIONS) -> np.ndarray:
    """The vectors this server answers for texts whose local e5 vectors are the rows of ``e5`` (float32).

    Public so that a bench can turn stored e5 vectors into this model's without embedding the texts
    again (``bench/second_model_db.py``): the server answers through this very function, so a stored
    vector transformed here is what the server would answer for its text.
    """
    vectors = transform().apply(e5)[:, :dimensions]
    # Shortened vectors are renormalised, as OpenAI's are; float32 is what providers send.
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype("<f4")


def e5_vectors(texts: list[str], counts: dict[str, int]) -> np.ndarray:
    """The local e5 vector of each text as received (see the module's doc); ``counts`` by kind."""
    table = transform().shipped
    out = np.empty((len(texts), LOCAL_DIMENSIONS), dtype=np.float64)
    live: dict[bool, list[tuple[int, str]]] = {True: [], False: []}  # is_query -> (index, text)
    for i, text in enumerate(texts):
        if text in table:
            out[i] = table[text]
            counts["shipped"] += 1
        elif text.startswith(QUERY):
            live[True].append((i, text[len(QUERY) :]))
            counts["queries"] += 1
        else:
            counts["passages" if text.startswith(PASSAGE) else "unprefixed"] += 1
            live[False].append((i, text.removeprefix(PASSAGE)))
    local = local_embedder()
    model = local._get()  # the app's own engine: one copy of the model per process, not two
    for is_query, items in live.items():
        if items:
            with local._lock:  # the lock the app takes: the C engine is not documented as thread-safe
                found = model.encode([body for _, body in items], is_query)
            out[[i for i, _ in items]] = np.atleast_2d(found)
    return out


@dataclass
class Stats:
    requests: int = 0  # /embeddings requests answered with vectors
    inputs: int = 0  # texts embedded, over all requests
    queries: int = 0  # of which received with "query: "
    passages: int = 0  # with "passage: ", embedded live
    shipped: int = 0  # with "passage: ", served from the shipped vectors
    unprefixed: int = 0  # with neither: embedded as passages
    refused: int = 0  # requests answered 400


class _BadRequest(ValueError):
    pass


def _parse(payload: Any) -> tuple[list[str], int, bool]:
    """Inputs, dimensions and whether base64 was asked for; ``_BadRequest`` as OpenAI would refuse."""
    if not isinstance(payload, dict):
        raise _BadRequest("the body must be a JSON object")
    raw = payload.get("input")
    inputs = [raw] if isinstance(raw, str) else raw
    if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) for t in inputs):
        raise _BadRequest("input must be a string or a non-empty list of strings (token arrays are not supported)")
    dimensions = payload.get("dimensions") or LOCAL_DIMENSIONS
    if not isinstance(dimensions, int) or not 1 <= dimensions <= LOCAL_DIMENSIONS:
        raise _BadRequest(f"dimensions must be an integer from 1 to {LOCAL_DIMENSIONS}")
    encoding = payload.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise _BadRequest("encoding_format must be 'float' or 'base64'")
    return inputs, dimensions, encoding == "base64"


def _handler(server: SecondModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the openai client's pool expects of a provider

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, obj: Any) -> None:
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, message: str) -> None:
            kind = "invalid_request_error" if status < 500 else "server_error"
            self._send(status, {"error": {"message": message, "type": kind}})

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            if self.path.rstrip("/").endswith("/stats"):
                self._send(200, server.stats())
            else:
                self._error(404, f"no such path: {self.path}")

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))  # read even if refused: keep-alive
            if not self.path.rstrip("/").endswith("/embeddings"):
                self._error(404, f"no such path: {self.path}")
                return
            try:
                payload = json.loads(body or b"{}")
                inputs, dimensions, as_base64 = _parse(payload)
            except ValueError as exc:  # a _BadRequest, or a JSONDecodeError
                server.count(refused=1)
                self._error(400, str(exc))
                return
            counts = dict.fromkeys(("queries", "passages", "shipped", "unprefixed"), 0)
            try:
                vectors = served_vectors(e5_vectors(inputs, counts), dimensions)
            except Exception as exc:  # noqa: BLE001 - the client must see a provider error, not a dropped socket
                self._error(500, f"embedding failed: {exc!r}")
                return
            server.count(requests=1, inputs=len(inputs), **counts)
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": base64.b64encode(v.tobytes()).decode() if as_base64 else v.tolist(),
                }
                for i, v in enumerate(vectors)
            ]
            tokens = sum(len(t.split()) for t in inputs)  # words, not tokens: the app only reads the vectors
            usage = {"prompt_tokens": tokens, "total_tokens": tokens}
            self._send(200, {"object": "list", "data": data, "model": payload.get("model") or MODEL, "usage": usage})

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up waiting: expected
            super().handle_error(request, client_address)


class SecondModelServer:
    """The server in a thread of this process: ``with SecondModelServer() as model: model.url``."""

    def __init__(self, model: str = MODEL, port: int = 0) -> None:
        self.model = model  # what clients should ask for; any other name is served the same
        self._stats = Stats()
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", port), _handler(self))
        # A short poll: shutdown() waits for the loop to notice, 0.5 s per test at the default.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (``EMBEDDINGS_BASE_URL``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> SecondModelServer:
        transform()  # m and R before the first request, so that its time is the model's alone
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> SecondModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def count(self, **increments: int) -> None:
        with self._lock:
            for name, n in increments.items():
                setattr(self._stats, name, getattr(self._stats, name) + n)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return asdict(self._stats)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.second_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    parser.add_argument("--model", default=MODEL, help="the name it announces (any name is served)")
    args = parser.parse_args(argv)
    server = SecondModelServer(model=args.model, port=args.port).start()
    print(f"listening on {server.port}", flush=True)
    try:
        threading.Event().wait()  # until Ctrl-C (SIGTERM ends the process as it is)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
