"""Linked translations: a page and the same page in the other language ("twins").

The link is symmetric (``Page.translation`` on both rows, kept so by ``services``). Readers see a
twin only when they may read it; search and Ask treat two readable twins as one document
(``search/retrieval/twins.py``). Publishing one side with a change flags the other as possibly out of date
(``signals``).
"""
