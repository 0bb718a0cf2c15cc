"""Extractive summaries built from answer units (the page's Markdown): no code, nothing glued, figures kept."""

from __future__ import annotations

from handbook.markdown import markdown_to_text
from summaries.extractive import summarise_extractive

SOFTWARE = """# Software requests

Most common software is available instantly from the catalogue, and installs in a few minutes without a ticket.

On Ubuntu, catalogue packages can also be installed from the terminal:

```bash
nordlys-software search diagram
nordlys-software install drawio
```

To stop the tunnel: `sudo wg-quick down nordlys`

New tools go through a short review so that we know where our data goes.

- Données de type date avec heure
- Données de type horaires d'ouverture

Licences unused for 60 days are reclaimed automatically and reassigned.
"""

PER_DIEM = """# Indemnités journalières

Lorsque vous partez en déplacement avec au moins une nuitée, Nordlys verse une indemnité journalière forfaitaire.

## Barème 2026

| Destination | Indemnité par jour |
|---|---|
| France (hors Paris) | 45 € |
| Norvège | 70 € |
| Autres pays | 50 € |

Les déplacements sans nuitée ne donnent pas droit au per diem.
"""


def _summary(markdown: str, language: str = "en", **kw):  # type: ignore[no-untyped-def]
    return summarise_extractive(markdown_to_text(markdown), language=language, markdown=markdown, **kw)


def test_no_code_or_commands_in_the_summary() -> None:
    summary = _summary(SOFTWARE, max_sentences=5)
    assert "nordlys-software" not in summary.text
    assert "wg-quick" not in summary.text
    for point in summary.key_points:
        assert "nordlys-software" not in point


def test_list_items_and_headings_are_never_glued() -> None:
    summary = _summary(SOFTWARE, max_sentences=6)
    lines = markdown_to_text(SOFTWARE).splitlines()
    for sentence in summary.sentences + summary.key_points:
        assert any(sentence in line for line in lines), sentence


def test_table_figures_are_kept_as_a_digest_of_the_rows() -> None:
    summary = _summary(PER_DIEM, language="fr")
    assert (
        "Barème 2026 (Destination: Indemnité par jour) — France (hors Paris): 45 €; Norvège: 70 €; Autres pays: 50 €"
        in summary.text
    )
    for figure in ("45 €", "70 €", "50 €"):
        assert figure in summary.text


CODE_AS_TEXT = """# Signing offers

Offer letters are signed in the e-signature tool within two working days.

Each signature goes on its own line as {{CANDIDATE_SIGNATURE}} with nothing else on the line.

Set the variable with VAULT_ROLE=project_admin before you run the sync.

Run the sync with the --force flag only after a failed run.

Read the <code>Rotating secrets</code> section first.

The default organization (ID 1) and its groups (#g_people, #g_legal) keep the signed copies.
"""


def test_code_written_as_text_is_not_quoted_but_brackets_and_channels_are_prose() -> None:
    summary = _summary(CODE_AS_TEXT, max_sentences=6)
    quoted = " ".join(summary.sentences + summary.key_points)
    for code in ("{{", "VAULT_ROLE=", "--force", "<code>"):
        assert code not in quoted
    assert "Offer letters are signed in the e-signature tool within two working days." in summary.sentences
    assert "The default organization (ID 1) and its groups (#g_people, #g_legal) keep the signed copies." in (
        summary.sentences
    )


LINKED_IN_HTML = """# Expenses

Claims are filed in <a href="https://expenses.example/claims">the expenses tool</a> within 30 days of the trip.

<details markdown="block"><summary>Older trips</summary>

Trips older than 90 days need a manager's written approval before they are paid.
</details>
"""


def test_a_sentence_with_an_html_link_or_block_is_quoted_as_a_reader_sees_it() -> None:
    summary = _summary(LINKED_IN_HTML, max_sentences=3)
    assert "Claims are filed in the expenses tool within 30 days of the trip." in summary.sentences
    assert "Trips older than 90 days need a manager's written approval before they are paid." in summary.sentences
    for sentence in summary.sentences + summary.key_points:
        assert "<" not in sentence and "href" not in sentence


TABLE_IN_HTML = """# Grades

| <div style="width:200px">Grade</div> | Title |
|---|---|
| 15 | Chief executive<sup>1</sup> |
| 14<br>(acting) | Executive vice-president |
"""


def test_a_table_digest_shows_its_cells_words_not_their_tags() -> None:
    summary = _summary(TABLE_IN_HTML)
    digest = next(p for p in summary.sentences + summary.key_points if "15" in p)
    assert "Grade: Title" in digest and "Chief executive 1" in digest and "14 (acting)" in digest
    assert "<" not in digest


FIGURES = """# Indemnité de licenciement

L'indemnité est calculée sur le salaire de référence et l'ancienneté du salarié.

Le calcul est le suivant : (2 000 x 1/4 x 3) + (1 000 x 1/4 x 2) = 2 000 €.

Le montant est versé avec le dernier salaire, sur le bulletin de paie.

1.

2.2.
"""


def test_a_sentence_of_figures_is_quoted_but_a_line_without_a_letter_is_not() -> None:
    # A worked calculation is mostly figures and still a statement; "1." or "2.2." left by a
    # numbered list states nothing.
    summary = _summary(FIGURES, language="fr", max_sentences=6)
    assert "Le calcul est le suivant : (2 000 x 1/4 x 3) + (1 000 x 1/4 x 2) = 2 000 €." in summary.sentences
    assert not any(s.strip() in ("1.", "2.2.") for s in summary.sentences + summary.key_points)
