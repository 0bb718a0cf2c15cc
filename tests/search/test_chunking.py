"""Markdown-aware chunking (no database)."""

from __future__ import annotations

import hashlib

import pytest

from handbook.markdown import heading_ids
from search.indexing.chunking import ChunkDraft, chunk_markdown


def para(seed: str, sentences: int) -> str:
    return " ".join(f"{seed} sentence {i} explains one rule of the policy clearly." for i in range(sentences))


def test_empty_body_gives_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("   \n\n") == []


def test_heading_only_sections_yield_nothing() -> None:
    assert chunk_markdown("# Title\n\n## Empty\n") == []
    chunks = chunk_markdown("# Title\n\n## Empty\n\n## Full\n\nBody.")
    assert [(c.heading, c.anchor, c.text) for c in chunks] == [("Title › Full", "full", "Body.")]


def test_single_short_paragraph_without_title() -> None:
    chunks = chunk_markdown("Just a short note.")
    assert chunks == [
        ChunkDraft(
            ordinal=0,
            heading="",
            anchor="",
            text="Just a short note.",
            content_hash=hashlib.sha256(b"\nJust a short note.").hexdigest(),
        )
    ]


def test_heading_path_and_text_before_first_heading() -> None:
    md = (
        "Preamble.\n\n# Expenses\n\nGeneral.\n\n## Per diems\n\nDaily.\n\n### Abroad\n\nMore.\n\n"
        "## Mileage\n\nKm.\n\n# Leave\n\nDays."
    )
    got = [(c.ordinal, c.heading, c.anchor, c.text) for c in chunk_markdown(md)]
    assert got == [
        (0, "", "", "Preamble."),
        (1, "Expenses", "expenses", "General."),
        (2, "Expenses › Per diems", "per-diems", "Daily."),
        (3, "Expenses › Per diems › Abroad", "abroad", "More."),
        (4, "Expenses › Mileage", "mileage", "Km."),
        (5, "Leave", "leave", "Days."),
    ]


def test_anchors_match_rendered_ids_with_dedup_and_accents() -> None:
    md = "# Congés payés\n\nA.\n\n## FAQ\n\nB.\n\n# Congés payés\n\nC.\n\n## FAQ\n\nD."
    chunks = chunk_markdown(md)
    assert [c.anchor for c in chunks] == [
        "conges-payes",
        "faq",
        "conges-payes-1",
        "faq-1",
    ]
    assert {c.anchor for c in chunks} <= {hid for _, _, hid in heading_ids(md)}
    assert chunks[3].heading == "Congés payés › FAQ"


def test_markdown_is_stripped_and_heading_not_prepended() -> None:
    chunks = chunk_markdown("## Tips\n\nUse **bold** and [links](https://x.org).")
    assert chunks[0].text == "Use bold and links."


def test_code_fence_comment_is_not_a_heading_and_block_not_split() -> None:
    code = "\n".join(f"# step {i}\necho {'x' * 60}" for i in range(40))  # ~3000 chars
    md = f"# Setup\n\nRun this:\n\n```bash\n{code}\n```\n\nDone."
    chunks = chunk_markdown(md, target_chars=400, max_chars=600)
    assert {c.heading for c in chunks} == {"Setup"}
    assert sum(code in c.text for c in chunks) == 1  # the whole block, in one chunk


def test_table_split_only_between_rows_with_header_repeated() -> None:
    rows = "\n".join(f"| Item {i} | {i * 10} EUR per day in region {i} |" for i in range(80))
    md = f"# Rates\n\n| Item | Rate |\n|---|---|\n{rows}\n"
    chunks = chunk_markdown(md, target_chars=400, max_chars=600)
    assert len(chunks) > 1
    expected_rows = [f"Item {i} {i * 10} EUR per day in region {i}" for i in range(80)]
    seen: list[str] = []
    for chunk in chunks:
        lines = chunk.text.split("\n")
        assert lines[0] == "Item Rate"
        assert len(chunk.text) <= 600
        seen.extend(lines[1:])
    assert seen == expected_rows  # every row whole, in order, exactly once


def test_long_paragraph_split_at_sentences_under_max() -> None:
    text = para("Travel", 60)  # ~3400 chars, one paragraph
    chunks = chunk_markdown(f"# Travel\n\n{text}", target_chars=500, max_chars=700)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk.text) <= 700
        assert chunk.text.startswith("Travel sentence ") and chunk.text.endswith("clearly.")
    assert " ".join(c.text for c in chunks) == text


def test_run_on_sentence_is_hard_wrapped_under_max() -> None:
    text = " ".join(["word"] * 500)
    chunks = chunk_markdown(text, target_chars=200, max_chars=300)
    assert all(0 < len(c.text) <= 300 for c in chunks)
    assert " ".join(c.text for c in chunks) == text


def test_small_blocks_are_packed_together() -> None:
    md = "# A\n\nOne.\n\nTwo.\n\n- three\n- four"
    assert [c.text for c in chunk_markdown(md)] == ["One.\n\nTwo.\n\nthree\nfour"]


def test_ordinals_no_empty_chunks_and_sizes() -> None:
    md = "\n\n".join(f"## S{i}\n\n{para(f'S{i}', 20)}\n\n{para(f'T{i}', 5)}" for i in range(5))
    chunks = chunk_markdown(md)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert all(c.text.strip() and len(c.text) <= 1200 for c in chunks)


def test_deterministic() -> None:
    md = "\n\n".join(f"# H{i}\n\n{para(str(i), 30)}" for i in range(4))
    assert chunk_markdown(md) == chunk_markdown(md)
    assert all(
        c.content_hash == hashlib.sha256(f"{c.heading}\n{c.text}".encode()).hexdigest() for c in chunk_markdown(md)
    )


def test_editing_one_paragraph_changes_only_its_chunks() -> None:
    sections = [f"## Part {i}\n\n{para(f'P{i}', 25)}\n\n{para(f'Q{i}', 10)}" for i in range(4)]
    before = chunk_markdown("\n\n".join(sections))
    edited = sections[:]
    edited[2] = edited[2].replace("P2 sentence 3 explains", "P2 sentence 3 EXPLAINS")
    after = chunk_markdown("\n\n".join(edited))

    assert len(before) == len(after)
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b.content_hash != a.content_hash]
    assert len(changed) == 1
    assert after[changed[0]].heading == "Part 2" and "EXPLAINS" in after[changed[0]].text


def test_growing_one_section_does_not_shift_other_sections() -> None:
    sections = [f"# S{i}\n\n{para(f'S{i}', 30)}" for i in range(3)]
    before = chunk_markdown("\n\n".join(sections))
    sections[0] += "\n\n" + para("New", 12)
    after = chunk_markdown("\n\n".join(sections))

    def untouched(chunks: list[ChunkDraft]) -> list[str]:
        return [c.content_hash for c in chunks if c.heading != "S0"]

    assert untouched(before) == untouched(after)


def test_invalid_sizes_rejected() -> None:
    with pytest.raises(ValueError):
        chunk_markdown("x", target_chars=900, max_chars=800)
