"""Scores with sacreBLEU: corpus BLEU and chrF (metrics.py), a split translated and scored (splits.py)."""
