"""Approval: review before publishing, per space.

When a space requires review, an editor's "Publish" saves a draft and opens an approval request;
a reviewer (a member of the space's reviewer group who may edit the page, or a superuser) approves
it, which publishes it, or asks for changes. Readers see nothing of a pending revision: the page's
published revision, and everything built from it, stay as they were until approval.

``selectors`` says who may decide and what waits for whom; ``services`` writes; ``views`` and
``forms`` are the reviewer's and the space admin's pages. (``handbook/review/`` is another thing:
the owners' review-by dates.)
"""
