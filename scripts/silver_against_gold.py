"""How good the silver links are: eflomal, as the runs use it (trained on the run's training pairs plus the pairs to
align, grow-diag-final-and), aligns the human-aligned Hansards pairs, and its links are scored against the gold
Sure/Possible links (Och & Ney's AER), per French length bucket and in all.

    python scripts/silver_against_gold.py [--split test] [--out docs/results/silver_against_gold.json]

Published for this set (aligners trained on Hansards text, not on the Tatoeba pairs used here): fast_align about
0.11-0.16, GIZA++ about 0.06-0.10. The runs' aligner sees no Hansards text besides these pairs, so its AER here is
what the silver links of a Hansards-like sentence would be worth, an upper bound on their quality for Tatoeba's own.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from translate.analysis.run.aer import alignment_error_rate
from translate.assembly.compose import compose
from translate.assembly.settings import validate_config
from translate.data.cleaning import Pair
from translate.data.gold_alignments import read_gold
from translate.data.locate import candidate_dirs
from translate.data.pipeline import finish_splits, read_corpus
from translate.data.silver_alignments import align_pairs
from translate.io import atomic_write_text

BUCKETS = ((1, 10), (11, 17), (18, 30), (31, None))


def corpus_aer(pairs, links) -> float:
    """AER over the whole set: the counts summed over sentences (Och & Ney), not a mean of ratios."""
    a = sum(len(x) for x in links)
    s = sum(len(p.sure) for p in pairs)
    both_s = sum(len(x & p.sure) for x, p in zip(links, pairs))
    both_p = sum(len(x & p.possible) for x, p in zip(links, pairs))
    return 1 - (both_s + both_p) / (a + s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="test", choices=("trial", "test"))
    parser.add_argument("--out", type=Path, default=None, help="also write the figures here as JSON")
    args = parser.parse_args()
    folder = next(path for _, path in candidate_dirs("hansards_align") if (path / "test.fr").exists())
    gold = read_gold(folder, args.split)
    data = validate_config(compose()).data   # the default run's corpus and splits
    train = finish_splits(read_corpus(data), data).train
    links = align_pairs(list(train), [Pair(p.french, p.english) for p in gold])
    out = {"split": args.split, "pairs": len(gold), "aligner_trained_on": len(train) + len(gold),
           "aer": round(corpus_aer(gold, links), 4),
           "mean_sentence_aer": round(sum(alignment_error_rate(set(x), set(p.sure), set(p.possible)) or 0.0
                                          for x, p in zip(links, gold)) / len(gold), 4), "buckets": {}}
    for low, high in BUCKETS:
        chosen = [(p, x) for p, x in zip(gold, links)
                  if low <= len(p.french.split()) and (high is None or len(p.french.split()) <= high)]
        if chosen:
            name = f"{low}-{high}" if high else f"{low}+"
            out["buckets"][name] = {"pairs": len(chosen),
                                    "aer": round(corpus_aer([p for p, _ in chosen], [x for _, x in chosen]), 4)}
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        atomic_write_text(args.out, text + "\n")


if __name__ == "__main__":
    main()
