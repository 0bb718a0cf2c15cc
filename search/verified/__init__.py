"""Verified answers: an editor marks the units of a page that answer a question (or that the
handbook does not say it), and Ask shows that answer first to readers of the page who ask the
same or a near question.

- ``services``: verify, mark a gap, verify again, withdraw, remember a reader's matching wording.
- ``selectors``: the verified answer for a reader's question (permission-filtered in SQL), the
  editor's picker, and what Insights lists (changed answers, marked gaps).
- ``transfer``: JSONL export and import, so a company keeps them across an upgrade.
"""
