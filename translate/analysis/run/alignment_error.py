"""AER of a model's cross-attention against silver word links (translate.data.silver_alignments), read with the
reference forced through the decoder (translate.analysis.run.aer): the decoder layer and the threshold are chosen
once on the run's valid split, never on a test set, then every sentence of every test set is scored at that choice.
A test set with human links (a gold kind, translate.data.gold_alignments) is scored against its gold Sure and
Possible links instead, at a layer and threshold chosen on the same alignment's trial pairs (gold_reading).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from torch import Tensor

from translate.analysis.run.aer import (AerChoice, aer_grid, choose_layer_threshold, piece_words, sentence_aer,
                                        word_attention)
from translate.analysis.run.forced_attention import forced_attention
from translate.analysis.run.settings import ReportSettings
from translate.config.errors import ConfigError
from translate.data.cleaning import Pair
from translate.data.pipeline import PreparedData, TokenizedSplit
from translate.data.silver_alignments import AlignerMissing, Links, silver_alignments
from translate.data.test_sets import TestSetSpec, gold_pairs

log = logging.getLogger(__name__)
SETTING = "report.alignment_error_rate"


@dataclass
class SilverReference:
    """The valid split the choice is made on, and the silver links of it and of every test set (by name)."""

    valid: TokenizedSplit
    valid_links: list[Links]
    test_links: dict[str, list[Links]]


def aligned_groups(data: PreparedData) -> tuple[list[Pair], list[list[Pair]]]:
    """What the aligner learns from (the run's train split) and what it aligns: the valid split, then every test set
    in data.test_sets' order."""
    return data.splits["train"].pairs, [data.splits["valid"].pairs] + [s.pairs for s in data.test_sets.values()]


def silver_reference(settings: ReportSettings, data: PreparedData, cache_dir: Path,
                     specs: Optional[list[TestSetSpec]] = None) -> Optional[SilverReference]:
    """Align the valid split and every test set (aligner trained on the run's train split plus them), or None when
    the setting is off or no test set of `specs` would read the links (every one has human links of its own). A missing aligner
    is an error naming the setting, never a silent skip."""
    if not settings.aer_wanted or (specs is not None and all(spec.kind.gold_links for spec in specs)):
        return None
    valid, names = data.splits["valid"], list(data.test_sets)
    try:
        links = silver_alignments(*aligned_groups(data), cache_dir)
    except AlignerMissing as error:
        raise ConfigError(f"{SETTING}={settings.alignment_error_rate} needs silver word links: {error}; or set "
                          f"{SETTING}=false to report "
                          f"without AER") from None
    return SilverReference(valid, links[0], dict(zip(names, links[1:])))


def sentence_word_attention(tokenizer, fr: str, en: str, src_ids: list[int], tgt_ids: list[int], cross: Tensor
                            ) -> Optional[Tensor]:
    """cross (L, H, Tt, Ts) of one sentence -> (L, Wt, Ws) word attention, or None when the pieces do not make the
    pair's whitespace words (then the sentence has no AER)."""
    source_words, target_words = piece_words(tokenizer.pieces(src_ids)), piece_words(tokenizer.pieces(tgt_ids))
    if not source_words or not target_words or (source_words[-1] + 1, target_words[-1] + 1) != (len(fr.split()),
                                                                                                 len(en.split())):
        return None
    return word_attention(cross, source_words, target_words)


def choose_reading(translator, split: TokenizedSplit, sure: list[Links], possible: Optional[list[Links]] = None,
                   what: str = "valid") -> AerChoice:
    """The layer and threshold of the lowest mean AER over the sentences of `split` (never a test set)."""
    grids = []
    for i, att in forced_attention(translator.model, translator.tokenizer, split.src, split.tgt,
                                   translator.settings.batch_tokens):
        pair = split.pairs[i]
        words = sentence_word_attention(translator.tokenizer, pair.fr, pair.en, split.src[i], split.tgt[i], att.cross)
        if words is not None:
            grids.append(aer_grid(words, set(sure[i]), possible=set(possible[i]) if possible else None))
    try:
        choice = choose_layer_threshold(grids)
    except ValueError as error:
        raise ConfigError(f"{SETTING}=true: {error} ({len(split)} {what} sentences); set {SETTING}=false") from None
    log.info("AER: decoder layer %d, threshold %.2f chosen on %d %s sentences (AER there %.3f)", choice.layer,
             choice.threshold, choice.valid_sentences, what, choice.valid_aer)
    return choice


def choose_on_valid(translator, reference: SilverReference) -> AerChoice:
    """The layer and threshold of the lowest mean AER over the valid split's sentences."""
    return choose_reading(translator, reference.valid, reference.valid_links)


def gold_reading(translator, spec: TestSetSpec, split: TokenizedSplit) -> "SentenceAer":
    """AER of a gold test set (`split`, made from spec's gold pairs in order and cut to the run's test_limit):
    against its Sure and Possible links, at the layer and threshold of the lowest AER on the same alignment's trial
    pairs."""
    tokenizer, trial = translator.tokenizer, gold_pairs(spec, "trial")
    pairs = [Pair(p.french, p.english) for p in trial]
    trial_split = TokenizedSplit(pairs, tokenizer.encode([p.fr for p in pairs]), tokenizer.encode([p.en for p in pairs]))
    choice = choose_reading(translator, trial_split, [p.sure for p in trial], [p.possible for p in trial],
                            "gold trial")
    test = gold_pairs(spec)[: len(split)]
    return SentenceAer(choice, tokenizer, split, [p.sure for p in test], [p.possible for p in test], "gold trial")


class SentenceAer:
    """(sentence index, cross (L, H, Tt, Ts)) -> that sentence's AER at the chosen layer and threshold; given to
    sentence_alignment so the one forced pass gives the diagonal numbers and AER."""

    def __init__(self, choice: AerChoice, tokenizer, split: TokenizedSplit, links: list[Links],
                 possible: Optional[list[Links]] = None, chosen_on: str = "valid") -> None:
        self.choice, self.tokenizer, self.split, self.links = choice, tokenizer, split, links
        self.possible, self.chosen_on = possible, chosen_on

    def __call__(self, i: int, cross: Tensor) -> Optional[float]:
        pair = self.split.pairs[i]
        words = sentence_word_attention(self.tokenizer, pair.fr, pair.en, self.split.src[i], self.split.tgt[i], cross)
        possible = set(self.possible[i]) if self.possible is not None else None
        return None if words is None else sentence_aer(words, set(self.links[i]), self.choice, possible)

    def summary(self) -> dict:
        """What by_length records once per test set."""
        return {"aer_layer": self.choice.layer, "aer_threshold": self.choice.threshold,
                "aer_valid": self.choice.valid_aer, "aer_chosen_on": self.chosen_on}
