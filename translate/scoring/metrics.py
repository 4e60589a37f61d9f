"""Corpus BLEU and chrF with sacreBLEU, on detokenized, cased text, with their signatures."""
from __future__ import annotations

from sacrebleu.metrics import BLEU, CHRF


def corpus_scores(hypotheses: list[str], references: list[str]) -> dict:
    """One reference per hypothesis. Returns bleu, chrf, their signatures and the sentence count."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    bleu, chrf = BLEU(), CHRF()
    b = bleu.corpus_score(hypotheses, [references])
    c = chrf.corpus_score(hypotheses, [references])
    return {"bleu": round(b.score, 2), "chrf": round(c.score, 2), "sentences": len(hypotheses),
            "bleu_signature": str(bleu.get_signature()), "chrf_signature": str(chrf.get_signature())}
