"""AER of a model's cross-attention against silver word links (translate.data.silver_alignments), read with the
reference forced through the decoder (translate.analysis.run.aer): the decoder layer and the threshold are chosen
once on the run's valid split, never on a test set, then every sentence of every test set is scored at that choice.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from torch import Tensor

from translate.analysis.run.aer import (AerChoice, aer_grid, choose_layer_threshold, piece_words, sentence_aer,
                                        word_attention)
from translate.analysis.run.attention_weights import forced_attention
from translate.analysis.run.settings import ReportSettings
from translate.config.errors import ConfigError
from translate.data.cleaning import Pair
from translate.data.pipeline import PreparedData, TokenizedSplit
from translate.data.silver_alignments import AlignerMissing, Links, silver_alignments

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


def silver_reference(settings: ReportSettings, data: PreparedData, cache_dir: Path) -> Optional[SilverReference]:
    """Align the valid split and every test set (aligner trained on the run's train split plus them), or None when
    the setting is off. A missing aligner is an error naming the setting, never a silent skip."""
    if not settings.alignment_error_rate:
        return None
    valid, names = data.splits["valid"], list(data.test_sets)
    try:
        links = silver_alignments(*aligned_groups(data), cache_dir)
    except AlignerMissing as error:
        raise ConfigError(f"{SETTING}=true needs silver word links: {error}; or set {SETTING}=false to report "
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


def choose_on_valid(translator, reference: SilverReference) -> AerChoice:
    """The layer and threshold of the lowest mean AER over the valid split's sentences."""
    valid, grids = reference.valid, []
    for i, att in forced_attention(translator.model, translator.tokenizer, valid.src, valid.tgt,
                                   translator.settings.batch_tokens):
        pair = valid.pairs[i]
        words = sentence_word_attention(translator.tokenizer, pair.fr, pair.en, valid.src[i], valid.tgt[i], att.cross)
        if words is not None:
            grids.append(aer_grid(words, set(reference.valid_links[i])))
    try:
        choice = choose_layer_threshold(grids)
    except ValueError as error:
        raise ConfigError(f"{SETTING}=true: {error} ({len(valid)} valid sentences); set {SETTING}=false") from None
    log.info("AER: decoder layer %d, threshold %.2f chosen on %d valid sentences (valid AER %.3f)", choice.layer,
             choice.threshold, choice.valid_sentences, choice.valid_aer)
    return choice


class SentenceAer:
    """(sentence index, cross (L, H, Tt, Ts)) -> that sentence's AER at the chosen layer and threshold; given to
    sentence_alignment so the one forced pass gives the diagonal numbers and AER."""

    def __init__(self, choice: AerChoice, tokenizer, split: TokenizedSplit, links: list[Links]) -> None:
        self.choice, self.tokenizer, self.split, self.links = choice, tokenizer, split, links

    def __call__(self, i: int, cross: Tensor) -> Optional[float]:
        pair = self.split.pairs[i]
        words = sentence_word_attention(self.tokenizer, pair.fr, pair.en, self.split.src[i], self.split.tgt[i], cross)
        return None if words is None else sentence_aer(words, set(self.links[i]), self.choice)

    def summary(self) -> dict:
        """What by_length records once per test set."""
        return {"aer_layer": self.choice.layer, "aer_threshold": self.choice.threshold,
                "aer_valid": self.choice.valid_aer, "aer_chosen_on": "valid"}
