"""Before publishing, the answers an edit changes: the questions people asked of the page, the
verified answers on it and the unanswered questions its new text may answer, each answered now and
as the handbook would answer with the draft published (``preview``), as the editor or reviewer."""
