"""REST API search next to the HTML search, on the ~10k scale database of bench.search, in the same run.

    python -m bench.api_latency [--size 10k] [--rounds 3] [--queries N]

The scale database of ``bench.search scale`` (built once, reused; it holds ~10k
chunks when the bench instance has its corpora loaded); the user who
sees 100 % of it; each query through ``GET /search/?q=`` (session) and
``GET /api/v1/search?q=&limit=10`` (personal token) back to back, in-process
(Django's test client: the full view, middleware and rendering, no network),
after one warm-up pass that caches the query embeddings.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.api_latency")
    parser.add_argument("--size", default="10k")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)

    from bench import common
    from bench.search import _queries_for_scale, _scale_db, _stats, build_scale

    common.setup(_scale_db(args.size), migrate=True)
    meta = build_scale(args.size)
    common.refresh_index_statistics()

    from django.contrib.auth.models import User
    from django.test import Client
    from django.test.utils import override_settings

    from accounts.services import token_create

    texts = _queries_for_scale()
    if len(texts) > args.queries:
        texts = texts[:: len(texts) // args.queries][: args.queries]
    user = User.objects.get(username="scale-100pct")
    secret = token_create(user=user, name="bench", scope="read", days=1).secret
    client = Client()
    client.force_login(user)
    timings: dict[str, list[float]] = {"html": [], "api": []}

    def html(text: str) -> float:
        started = time.perf_counter()
        response = client.get("/search/", {"q": text})
        assert response.status_code == 200, response.status_code
        return time.perf_counter() - started

    def api(text: str) -> float:
        started = time.perf_counter()
        response = client.get("/api/v1/search", {"q": text, "limit": 10}, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert response.status_code == 200, response.status_code
        return time.perf_counter() - started

    with override_settings(SEARCH_RATE_LIMIT="1000000/m", API_RATE_LIMIT="1000000/m", ALLOWED_HOSTS=["*"]):
        for text in texts:  # warm-up: query embeddings cached, connections open
            html(text)
            api(text)
        gc.collect()
        gc.freeze()
        for round_number in range(args.rounds):
            for text in texts:
                first, second = (html, api) if round_number % 2 == 0 else (api, html)
                timings[first.__name__].append(first(text))
                timings[second.__name__].append(second(text))
    rows = []
    labels = {"html": "HTML search, session (/search/)", "api": "REST API search, token (/api/v1/search)"}
    for name, label in labels.items():
        stats = _stats(timings[name])
        rows.append((label, stats["n"], stats["p50_ms"], stats["p95_ms"]))
    common.section(
        f"Search latency at {meta['total_chunks']} chunks (scale database {args.size}): REST API next to HTML",
        common.md_table(("path", "n", "p50 ms", "p95 ms"), rows, digits=1),
        f"{meta['total_chunks']} chunks; {len(texts)} queries x {args.rounds} rounds as the user who sees 100 %, "
        "cached query embeddings, in-process test client (no network).",
    )


if __name__ == "__main__":
    main()
