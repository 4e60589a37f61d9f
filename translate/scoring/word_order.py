"""Word choice apart from word order, per sentence: which reference words a hypothesis has (clipped unigram
precision, recall and F, as BLEU counts its 1-grams), and in what order it puts the ones it shares (Kendall's τ
between their positions in the hypothesis and in the reference, as RIBES reads them: NLTK's word_rank_alignment
pairs each hypothesis word with a reference position, by unique n-gram context).

Both on sacreBLEU's 13a tokens, lower-cased, punctuation tokens left out: a model that keeps the words and loses
their order keeps its unigram F and loses τ, which BLEU's higher n-grams mix together.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

TOKENIZE = Tokenizer13a()


def words(sentence: str) -> list[str]:
    """13a tokens, lower-cased, without tokens of punctuation only."""
    return [t for t in TOKENIZE(sentence.lower()).split() if any(c.isalnum() for c in t)]


@dataclass(frozen=True)
class WordChoiceAndOrder:
    precision: Optional[float]   # shared words / hypothesis words (None: an empty hypothesis)
    recall: Optional[float]      # shared words / reference words
    f: Optional[float]           # their harmonic mean (0 when no word is shared; None: an empty reference)
    order_tau: Optional[float]   # Kendall τ of the shared words' positions; None with fewer than two


def word_choice_and_order(hypothesis: str, reference: str) -> WordChoiceAndOrder:
    # imported here: NLTK's package loads scikit-learn and SciPy's stats (1.6 s on a slow core), and every command
    # imports this module, a command that stops at a bad option included
    from nltk.translate.ribes_score import word_rank_alignment
    from scipy.stats import kendalltau

    hyp, ref = words(hypothesis), words(reference)
    shared = sum((Counter(hyp) & Counter(ref)).values())   # clipped: a word counts at most as often as in the ref
    precision = shared / len(hyp) if hyp else None
    recall = shared / len(ref) if ref else None
    # an empty hypothesis chose no reference word: F 0, though its precision is undefined
    f = (2 * precision * recall / (precision + recall) if precision and recall else 0.0 if ref else None)
    ranks = word_rank_alignment(ref, hyp) if hyp and ref else []   # reference position of each matched hyp word
    tau = None
    if len(ranks) >= 2 and len(set(ranks)) > 1:
        tau = float(kendalltau(range(len(ranks)), ranks).statistic)
    return WordChoiceAndOrder(precision, recall, f, tau)
