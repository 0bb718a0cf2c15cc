"""Page review: an owner (a person or a group) keeps each page current by a review-by date.

``selectors`` reads what is due (the e-mail digest; Insights lists it from the same rules, in
``search/insights/``); ``services`` writes the editor's choices; ``handbook/review_digest.py`` sends
the digest; ``forms`` is the review part of the page editor.
"""
