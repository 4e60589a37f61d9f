"""Corpora, cleaning, splits, SentencePiece and token-budget batching."""
