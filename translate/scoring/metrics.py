"""Corpus BLEU and chrF with sacreBLEU, on detokenized, cased text, with their signatures; and the length ratio
(hypothesis words per reference word) every report shows beside them."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF


def sentence_length_ratios(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """(n,) hypothesis words / reference words of each pair (an empty reference counts as one word). Their mean is
    the length ratio of a set of sentences: below 1 a model stops early."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    return np.array([len(h.split()) / max(len(r.split()), 1) for h, r in zip(hypotheses, references)], dtype=np.float64)


def corpus_scores(hypotheses: list[str], references: list[str]) -> dict:
    """One reference per hypothesis. Returns bleu, chrf, their signatures and the sentence count."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    bleu, chrf = BLEU(), CHRF()
    b = bleu.corpus_score(hypotheses, [references])
    c = chrf.corpus_score(hypotheses, [references])
    return {"bleu": round(b.score, 2), "chrf": round(c.score, 2), "sentences": len(hypotheses),
            "bleu_signature": str(bleu.get_signature()), "chrf_signature": str(chrf.get_signature())}
