"""The word-translation lexicon: the handbook's frequent content words per language, their vectors and
the nearest-word translation that cross-language keyword search uses."""
