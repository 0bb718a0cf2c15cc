"""Files attached to pages: stored through Django's storage API, read through the page's permissions."""
