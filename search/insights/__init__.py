"""Insights: what people look for and what the handbook fails to answer, for the editors concerned.

``logs`` records searches (and those that found nothing) and purges the logs; ``grouping``,
``selectors``, ``searches``, ``rejected_pages`` and ``pages_to_review`` read what the Insights page
lists, through ``visibility``'s rule of whose questions an editor may see; ``fixes`` tells a gap a
page edit has since answered; ``views`` is the page itself.
"""
