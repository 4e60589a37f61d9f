"""Per-bucket quality: sentence count, sacreBLEU BLEU and chrF (exactly sacreBLEU on that subset), the mean
hypothesis/reference length ratio in words, and 95% paired bootstrap intervals (Koehn 2004).

The bootstrap is the sweep report's (translate.analysis.significance): the bucket's sentences resampled with
replacement, BLEU and chrF recomputed from summed sentence statistics as `sacrebleu --confidence` does, both metrics
from the same resamples (paired).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

from translate.analysis.significance import SentenceStats, bootstrap_interval
from translate.scoring.metrics import sentence_length_ratios


def _round(x: float) -> float:
    return round(float(x), 2)


def bootstrap_intervals(hyps: list[str], refs: list[str], samples: int, seed: int) -> dict[str, list[float]]:
    """{"bleu_ci": [lo, hi], "chrf_ci": [lo, hi]}: 2.5th and 97.5th percentiles over `samples` resamples."""
    interval = bootstrap_interval(SentenceStats.extract(hyps, refs), samples, seed=seed)
    return {"bleu_ci": interval["bleu"], "chrf_ci": interval["chrf"]}


def length_ratio(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """Mean over sentences of hypothesis words / reference words."""
    return _round(np.mean(sentence_length_ratios(hyps, refs)))


def subset_scores(hyps: list[str], refs: list[str], samples: int, seed: int) -> dict:
    """Scores of one bucket; None everywhere when it is empty."""
    if not hyps:
        return {"sentences": 0, "bleu": None, "chrf": None, "bleu_ci": None, "chrf_ci": None, "length_ratio": None}
    scores = {"sentences": len(hyps), "bleu": _round(BLEU().corpus_score(hyps, [refs]).score),
              "chrf": _round(CHRF().corpus_score(hyps, [refs]).score)}
    scores.update(bootstrap_intervals(hyps, refs, samples, seed) if samples else {"bleu_ci": None, "chrf_ci": None})
    scores["length_ratio"] = length_ratio(hyps, refs)
    return scores


def scores_by_bucket(hyps: list[str], refs: list[str], bucket_of: Sequence[int], n_buckets: int, samples: int,
                     seed: int) -> list[dict]:
    """One `subset_scores` per bucket; bucket_of[i] is sentence i's bucket index."""
    members: list[list[int]] = [[] for _ in range(n_buckets)]
    for i, b in enumerate(bucket_of):
        members[b].append(i)
    return [subset_scores([hyps[i] for i in m], [refs[i] for i in m], samples, seed) for m in members]

