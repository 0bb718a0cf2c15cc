"""Sentence check bench: an LLM that cites real passages but alters their facts.

Goals (issue #18): with the fake provider citing the right passage, **0 altered
numbers reach the reader** (in the checked answer and in the streamed text), and
**at least 0.9 of faithful paraphrase sentences are kept**. Invented sentences
(no figure, a statement of the model's own) are reported too: the share left out.

The sentences are written by hand in ``bench/data/llm_statements.jsonl`` for the
demo handbook (``handbook/demo``): for each question, faithful paraphrases (some
in the other language), the same facts with altered figures, and an invented
sentence. The fake OpenAI-compatible server (``tests/fake_llm.py``, real
``openai`` client) answers each Ask with one of those sentences citing the
passage of the named page; its ``alter()`` mode (the passage's own sentence,
its twin with changed figures, and a sentence of its own) runs on every question
as well, answered and streamed.

Self-contained: its own database ``bench_statements`` on the bench Postgres, the
demo handbook indexed with the local model (about 2 minutes the first time).

Run: python -m bench.statement_check
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import md_table, write_results

DATABASE = "bench_statements"
DATA = Path(__file__).resolve().parent / "data" / "llm_statements.jsonl"
SWEEP = (0.80, 0.82, 0.84, 0.85, 0.86, 0.88, 0.90)


def setup() -> Any:
    from bench.common import setup as bench_setup

    os.environ["CACHE_KEY_PREFIX"] = f"bench-statements-{time.time_ns()}"
    bench_setup(DATABASE)
    from django.conf import settings

    for name in ("ASK_RATE_LIMIT", "LLM_USER_RATE_LIMIT", "LLM_GLOBAL_RATE_LIMIT"):
        setattr(settings, name, "1000000/m")
    settings.SEARCH_TRANSLATE_QUERIES = False  # the fake answers Ask only
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from config.celery import app
    from search.indexing.pipeline import pages_needing_index

    if not User.objects.filter(username="bob").exists() or pages_needing_index().exists():
        started = time.monotonic()
        app.conf.task_always_eager = True
        try:
            call_command("seed_demo", verbosity=0)
            from search.services import lexicon_build

            lexicon_build()
        finally:
            app.conf.task_always_eager = False
        print(f"(demo handbook indexed in {time.monotonic() - started:.0f} s)", flush=True)
    return User.objects.get(username="bob")


def main() -> None:
    user = setup()
    from django.conf import settings

    from search.ask.answers import answer_question, stream_answer
    from search.ask.grounding import sentence_verdicts
    from search.ask.passages import passages_for
    from search.decisions.statement_floor import meaning_floor
    from search.embedding.embedders import get_embedder
    from statements.statement_check import MeaningFloor, figures, known_figures
    from tests.fake_llm import INVENTED, FakeLLMServer, Reply

    cases = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    embedder = get_embedder()
    fitted = meaning_floor(embedder.model_name) if embedder is not None else None
    print(f"meaning floor of the model's policy: {fitted}")
    # The verdict with no meaning floor (its similarity, for the sweep below), the fitted offset and
    # new-words share kept.
    unfloored = replace(fitted, min_similarity=-1.0) if fitted else MeaningFloor(-1.0, 0.0)
    rows: list[dict[str, Any]] = []
    with FakeLLMServer() as fake:
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = fake.base_url, "fake", "k"
        for case in cases:
            _retrieval, passages = passages_for(case["question"], user)
            numbers = [p.number for p in passages if p.title == case["page"]]
            if not numbers:
                print(f"skipped (page not retrieved): {case['question']}")
                continue
            marker = "".join(f"[{n}]" for n in numbers)  # the page's passages, as a model cites them
            for kind in ("faithful", "altered", "invented"):
                for sentence in case[kind]:
                    text = f"{sentence.rstrip('.')} {marker}."
                    fake.respond = lambda _payload, text=text, numbers=numbers: Reply(
                        content=json.dumps({"answer": text, "sources": numbers})
                    )
                    answer = answer_question(
                        user=user, question=case["question"], rate_limit=False, use_cache=False, log=False
                    )
                    shown = answer.text if answer.mode == "llm" else ""
                    cited = [p for p in passages if p.number in numbers]
                    verdict = sentence_verdicts(text, cited, case["question"], answer.language, floor=unfloored)[0]
                    altered = figures(sentence) - figures(" ".join(p.text for p in cited))
                    rows.append(
                        {
                            "question": case["question"],
                            "kind": kind,
                            "sentence": sentence,
                            "kept": sentence.rstrip(".") in shown,
                            "altered_figures_shown": sorted(f for f in altered if f in figures(shown)),
                            "reason": verdict.reason,
                            "detail": verdict.detail,
                            "similarity": verdict.similarity,
                            "mode": answer.mode,
                        }
                    )
        fake.respond = None
        fake.alter()
        alter_rows = []
        for case in cases:
            answer = answer_question(user=user, question=case["question"], rate_limit=False, use_cache=False, log=False)
            streamed = ""
            final = None
            for event in stream_answer(user=user, question=case["question"]):
                if event["type"] == "delta":
                    streamed += event["text"]
                elif event["type"] == "done":
                    final = event["answer"]
            _retrieval, passages = passages_for(case["question"], user)
            known = known_figures(case["question"], (p.text for p in passages))
            shown = [answer.text, streamed, final.text if final else ""]
            alter_rows.append(
                {
                    "question": case["question"],
                    "mode": answer.mode,
                    "altered_shown": sorted({f for text in shown for f in figures(text)} - known),
                    "invented_shown": any(INVENTED.rstrip(".") in text for text in (answer.text, shown[2])),
                    "invented_streamed": INVENTED.rstrip(".") in streamed,
                    "real_kept": answer.mode == "llm",
                    "streamed": streamed,
                }
            )

    def share(kind: str, key: str = "kept") -> str:
        group = [r for r in rows if r["kind"] == kind]
        return f"{sum(1 for r in group if r[key]) / max(1, len(group)):.3f} ({len(group)})"

    altered_shown = sum(1 for r in rows if r["altered_figures_shown"])
    print("\n### LLM sentences checked against their cited passage (fake provider, demo handbook)\n")
    print(
        md_table(
            ["sentences", "kept (n)", "figures no source has, shown"],
            [
                ["faithful paraphrases", share("faithful"), "-"],
                ["altered figures", share("altered"), altered_shown],
                ["invented (no figure)", share("invented"), "-"],
            ],
        )
    )
    print(
        f"\nalter() mode ({len(alter_rows)} questions, answered and streamed): altered figures shown "
        f"{sum(len(r['altered_shown']) for r in alter_rows)}, invented sentence in the checked answer "
        f"{sum(1 for r in alter_rows if r['invented_shown'])} (streamed before the check "
        f"{sum(1 for r in alter_rows if r['invented_streamed'])}), real sentence kept "
        f"{sum(1 for r in alter_rows if r['real_kept'])}/{len(alter_rows)}"
    )
    print("\n### Meaning floor sweep (figures, names and words tests as they are)\n")
    sweep = []
    for floor in SWEEP:

        def kept(r: dict[str, Any], floor: float = floor) -> bool:
            return not r["reason"] and (r["similarity"] is None or r["similarity"] >= floor)

        sweep.append(
            [floor]
            + [
                sum(1 for r in rows if r["kind"] == kind and kept(r))
                / max(1, sum(1 for r in rows if r["kind"] == kind))
                for kind in ("faithful", "invented")
            ]
        )
    print(md_table(["floor", "faithful kept", "invented kept"], sweep))
    for r in rows:
        if (r["kind"] == "faithful") != r["kept"]:
            print(f"  {r['kind']:9s} kept={r['kept']} {r['reason']} {r['detail']} {r['similarity']} {r['sentence']}")
    write_results(
        "statement_check",
        {"rows": rows, "alter": alter_rows, "sweep": sweep, "floor": fitted.__dict__ if fitted else None},
    )


if __name__ == "__main__":
    main()
