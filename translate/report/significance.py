"""Bootstrap intervals and paired significance of BLEU and chrF, on the test sentences every job translated.

Sentence statistics are extracted once per job with sacreBLEU and resampled for every subset (length bucket), so a
sweep of dozens of jobs is tested in seconds.
Interval: 2.5th-97.5th percentile of the corpus score over resamples of the sentences (Koehn 2004).
Paired test: sacreBLEU's paired bootstrap resampling, the Moses `bootstrap-hypothesis-difference-significance`
test, reproduced step for step (same resamples for the same seed, same p-value as
`sacrebleu.significance.PairedTest(test_type="bs")`, which a test checks). p is for "system and baseline score the
same". Where the two score exactly the same, p is 1: sacreBLEU's (1 + 0) / (n + 1) would read as significant.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import _compute_p_value

METRICS = {"bleu": BLEU, "chrf": CHRF}
SEED = 12345  # sacreBLEU's default SACREBLEU_SEED


class SentenceStats:
    """Per-sentence sufficient statistics of hypotheses against one reference each, for BLEU and chrF."""

    def __init__(self, stats: dict[str, np.ndarray]) -> None:
        self.stats = stats  # metric -> (n, k)

    @classmethod
    def extract(cls, hyps: Sequence[str], refs: Sequence[str]) -> "SentenceStats":
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
        return cls({key: np.asarray(make()._extract_corpus_statistics(list(hyps), [list(refs)]), dtype=np.float64)
                    .reshape(len(hyps), -1) for key, make in METRICS.items()})

    def __len__(self) -> int:
        return len(next(iter(self.stats.values())))

    def subset(self, indices: Sequence[int]) -> "SentenceStats":
        return SentenceStats({k: v[list(indices)] for k, v in self.stats.items()})

    @staticmethod
    def concat(parts: list["SentenceStats"]) -> "SentenceStats":
        return SentenceStats({k: np.concatenate([p.stats[k] for p in parts]) for k in METRICS})

    def score(self, key: str, rows: Optional[np.ndarray] = None) -> float:
        """Corpus score from summed statistics; rows: (S, n) resample indices -> array of S scores."""
        metric = METRICS[key]()
        if rows is None:
            return float(metric._compute_score_from_stats(list(self.stats[key].sum(axis=0))).score)
        return np.array([metric._compute_score_from_stats(list(s)).score for s in self.stats[key][rows].sum(axis=1)])


def resamples(n: int, samples: int, seed: int = SEED) -> np.ndarray:
    """(samples, n) sentence indices drawn with replacement, as sacreBLEU draws them."""
    return np.random.default_rng(seed).choice(n, size=(samples, n), replace=True)


def bootstrap_interval(stats: SentenceStats, samples: int, seed: int = SEED) -> dict[str, list[float]]:
    """{"bleu": [lo, hi], "chrf": [lo, hi]}: 95% percentile intervals, both metrics on the same resamples."""
    rows = resamples(len(stats), samples, seed)
    out = {}
    for key in METRICS:
        scores = stats.score(key, rows)
        out[key] = [round(float(np.percentile(scores, 2.5)), 2), round(float(np.percentile(scores, 97.5)), 2)]
    return out


@dataclass
class Comparison:
    """A system against its baseline on the same sentences; deltas are system minus baseline."""

    sentences: int
    delta_bleu: float
    p_bleu: float
    delta_chrf: float
    p_chrf: float

    def as_dict(self) -> dict:
        return {"sentences": self.sentences, "delta_bleu": self.delta_bleu, "p_bleu": self.p_bleu,
                "delta_chrf": self.delta_chrf, "p_chrf": self.p_chrf}


def paired_bootstrap(baseline: SentenceStats, system: SentenceStats, samples: int, seed: int = SEED
                     ) -> Comparison:
    """Paired bootstrap of `system` against `baseline`, both translating the same sentences in the same order."""
    if len(baseline) != len(system):
        raise ValueError(f"paired test needs the same sentences: baseline {len(baseline)}, system {len(system)}")
    rows = resamples(len(system), samples, seed)
    out = {}
    for key in METRICS:
        observed = system.score(key) - baseline.score(key)
        diffs = np.abs(system.score(key, rows) - baseline.score(key, rows))
        p = 1.0 if observed == 0 else _compute_p_value(diffs - diffs.mean(), abs(observed))
        out[key] = (round(observed, 2), round(float(p), 4))
    return Comparison(len(system), out["bleu"][0], out["bleu"][1], out["chrf"][0], out["chrf"][1])
