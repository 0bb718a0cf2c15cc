"""Answer units read from a page's Markdown: rows with their headers, items with their lead-in, no code."""

from __future__ import annotations

from statements.answer_units import page_units, sentence_units

PER_DIEM = """# Indemnités journalières

Cette page présente les indemnités versées lors des déplacements.

## Barème 2026

| Destination | Indemnité par jour |
|---|---|
| France (hors Paris) | 45 € |
| Norvège | 70 € |

## Demande

Dans Kvitto, créez une dépense de type « Per diem ».

```bash
kvitto expense create --type per-diem
```
"""

CARD = """# Corporate card

## Who gets a card

Cards are issued on request from your manager to employees who:

- travel for work **more than four times a year**, or
- organise events for teams or clients.

## Related pages

- [Expense claims](/spaces/finance/expense-claims/)
- [Purchase approvals](/spaces/finance/purchase-approvals/)

See also the [travel policy](/spaces/finance/travel/) for trips abroad.

    $ kvitto card freeze
"""


def _texts(markdown: str, kind: str | None = None) -> list[str]:
    return [u.text for u in page_units(markdown) if kind is None or u.kind == kind]


def test_table_rows_carry_caption_and_column_headers() -> None:
    rows = [u for u in page_units(PER_DIEM) if u.kind == "row"]
    assert [r.text for r in rows] == [
        "Barème 2026 — Destination: France (hors Paris); Indemnité par jour: 45 €",
        "Barème 2026 — Destination: Norvège; Indemnité par jour: 70 €",
    ]
    # The source is the row as the chunker writes it, so a passage's rows can be found in its text.
    assert rows[1].source == "Norvège 70 €"
    assert rows[1].anchor == "bareme-2026"


def test_list_items_carry_their_lead_in() -> None:
    items = _texts(CARD, "item")
    assert (
        "Cards are issued on request from your manager to employees who: "
        "travel for work more than four times a year, or" in items
    )


def test_code_blocks_and_commands_are_never_units() -> None:
    texts = " ".join(_texts(PER_DIEM) + _texts(CARD))
    assert "kvitto expense create" not in texts
    assert "kvitto card freeze" not in texts


def test_page_introductions_and_navigation_are_filler() -> None:
    units = {u.text: u for u in page_units(PER_DIEM) + page_units(CARD)}
    assert units["Cette page présente les indemnités versées lors des déplacements."].filler
    assert units["Expense claims"].filler  # a link-only line under "Related pages"
    assert units["See also the travel policy for trips abroad."].filler
    assert not units["Dans Kvitto, créez une dépense de type « Per diem »."].filler
    intro = sentence_units("This page explains how leave is earned. You get 25 days per year.")
    assert [u.filler for u in intro] == [True, False]


def test_the_page_own_dates_are_filler() -> None:
    dated = sentence_units(
        "Ce contenu a été mis à jour le 2 octobre 2020. Les congés sont mis à jour le 1er juin chaque année. "
        "Last updated: March 2024. Dernière mise à jour : 12 mars 2021. You must update your address."
    )
    assert [u.filler for u in dated] == [True, False, True, True, False]


def test_markup_lines_and_bare_lead_ins_are_not_quoted() -> None:
    markup = '\n<div id="b5" class="usa-accordion__content" markdown=1>\n\nText.\n'
    units = {u.text: u for u in page_units(CARD + markup)}
    assert not any(text.startswith("<div") for text in units)
    assert [u.text for u in sentence_units('<div id="b5" class="usa-prose" markdown=1>\n\nText is here.')] == [
        "Text is here."
    ]
    # The lead-in is quoted with each item; alone it would answer nothing.
    assert units["Cards are issued on request from your manager to employees who:"].filler


SIGNATURE = (
    "# Signature de mail\n\n## Ce qu'il faut faire\n\n"
    '<table><thead><tr><th width="199">À ne pas faire</th><th>À faire</th></tr></thead><tbody>'
    "<tr><td>Indiquer travailler <strong>pour</strong> le produit</td>"
    "<td>Indiquer “en prestation pour” ou “en mission pour”</td></tr>"
    "<tr><td>Intégrer le logo Marianne</td><td>Intégrer le logo de son produit &amp; de l'incubateur</td></tr>"
    "</tbody></table>\n\nUne phrase qui suit le tableau.\n\n"
    '<table data-view="cards"><thead><tr><th></th><th></th></tr></thead><tbody>'
    "<tr><td><p>Charte</p></td><td>Les règles de la communauté</td></tr>\n\n"
    "<tr><td>Guide</td><td>Premiers pas</td></tr></tbody></table>\n"
)


def test_html_tables_are_read_row_by_row_with_their_headers() -> None:
    """GIVEN a table written in HTML inside the Markdown (as exported handbooks keep them) THEN each row is
    a unit that names its cells by their column headers, and no unit quotes a tag."""
    from search.indexing.chunking import chunk_markdown
    from statements.answer_units import chunk_units

    units = page_units(SIGNATURE)
    rows = [u.text for u in units if u.kind == "row"]
    assert rows[:2] == [
        "Ce qu'il faut faire — À ne pas faire: Indiquer travailler pour le produit; "
        "À faire: Indiquer “en prestation pour” ou “en mission pour”",
        "Ce qu'il faut faire — À ne pas faire: Intégrer le logo Marianne; "
        "À faire: Intégrer le logo de son produit & de l'incubateur",
    ]
    # a table split by a blank line is read in its two parts; header cells that name nothing are left out
    assert rows[2:] == [
        "Ce qu'il faut faire — Charte; Les règles de la communauté",
        "Ce qu'il faut faire — Guide; Premiers pas",
    ]
    assert "Une phrase qui suit le tableau." in _texts(SIGNATURE, "sentence")
    assert not any("<" in u.text for u in units)
    # every row is found in the chunk that holds it, as Ask and the stored unit vectors find units
    for chunk in chunk_markdown(SIGNATURE):
        found = chunk_units(units, chunk.anchor, chunk.heading, chunk.text)
        assert found and not any("<" in u.text for u in found)
    # a chunk whose page units are unknown (plain text fallback) quotes the cells, not the tags
    plain = sentence_units("<table><tr><td>Norvège</td><td>70 €</td></tr></table>")
    assert [(u.kind, u.text) for u in plain] == [("row", "Norvège; 70 €")]
    # with a header row, its cells are named by their column headers, as a Markdown table's are
    headed = sentence_units("<table><tr><th>Pays</th><th>Jours</th></tr><tr><td>Norvège</td><td>27</td></tr></table>")
    assert [(u.kind, u.text, u.header) for u in headed] == [("row", "Pays: Norvège; Jours: 27", ("Pays", "Jours"))]


def test_line_breaks_typed_in_table_cells_are_not_quoted() -> None:
    markdown = "## Risques\n\n| Question | Réponse |\n|---|---|\n| Échec ?<br>- plan B | Oui<br/>toujours |\n"
    (row,) = [u for u in page_units(markdown) if u.kind == "row"]
    assert row.text == "Risques — Question: Échec ? - plan B; Réponse: Oui toujours"


def test_html_written_in_the_markdown_is_left_out_of_what_is_quoted() -> None:
    page = (
        "# Ségur\n\n"
        "<details>\n<summary>Y a-t-il une crèche à Ségur ?</summary>\n\n"
        "Non, mais une salle d'allaitement.\n\n</details>\n\n"
        "## Aller plus loin\n\n"
        '<!-- prettier-ignore --> Les offres <a href="#offres" id="offres"></a> sont en ligne chaque lundi.\n\n'
        "Pour rejoindre une liste : `@betabot /emails join` suivi de <nom_de_la_liste>, puis valider.\n"
    )
    texts = [u.text for u in page_units(page)]
    assert "Y a-t-il une crèche à Ségur ?" in texts
    assert "Les offres sont en ligne chaque lundi." in texts
    assert not any("<" in t and ("summary" in t or "href" in t or "!--" in t) for t in texts)
    # A placeholder written between angle brackets is words, not markup.
    assert any("<nom_de_la_liste>" in t for t in texts)
    # Each unit still names the text its chunk holds, tags included, so its passage finds it.
    offres = next(u for u in page_units(page) if u.text.startswith("Les offres"))
    assert 'id="offres"' in offres.source
    # What a plain-text chunk is cut into is shown without its tags too.
    assert [u.text for u in sentence_units('<mark style="color:pink">Indiquer ici le besoin.</mark>')] == [
        "Indiquer ici le besoin."
    ]
