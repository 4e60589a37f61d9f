"""Translation with a model: the one output-length rule (length.py), greedy and beam search (search.py), their
settings and special ids (settings.py), and the Translator, text in and text out (translator.py)."""
