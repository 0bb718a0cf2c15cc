"""Reading a page's text the way answers and summaries need it: the answer units a page splits into
(``answer_units.py``) and the check that a sentence written by a model says only what its sources
say (``statement_check.py``). Both Ask (``search``) and summaries (``summaries``) use them; this
package sits above ``handbook`` (it reads revisions) and below both."""
