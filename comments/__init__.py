"""Comments on pages and who is editing a page now: the editorial conversation around the text.

Every read of a comment goes through the page's ``visible_to`` (``comments.selectors``); nothing here
is indexed, searched or sent to Ask.
"""
