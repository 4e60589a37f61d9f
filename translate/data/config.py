"""The `data` config group (conf/data/*.yaml): which corpus, the train-only filters, the SentencePiece model. The
corpus itself (`corpus._target_` and its settings) is checked by its class's constructor."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, List, Optional

from translate.config.fields import HOW_IT_RAN, TRAIN_ONLY, Checked, Rule, at_least, number_in, one_of, setting

TEXT = Rule(lambda v: v != "", "a non-empty string")
WORD_RANGE = Rule(lambda v: len(v) == 2 and all(isinstance(n, int) and n >= 1 for n in v) and v[0] <= v[1],
                  "[low, high]: French words, 1 <= low <= high")


@dataclass
class TokenizerConfig(Checked):
    SECTION: ClassVar[str] = "data.tokenizer"

    model_type: str = setting(one_of("unigram", "bpe"), default="unigram")
    vocab_size: int = setting(at_least(16), default=8000)   # Tatoeba's and Multi30K's; conf/data/hf.yaml: 16000
    character_coverage: float = setting(number_in(0.9, 1.0), default=1.0)


@dataclass
class DataConfig(Checked):
    SECTION: ClassVar[str] = "data"

    name: str = setting(TEXT)
    tokenizer: TokenizerConfig = setting(factory=TokenizerConfig)
    corpus: Any = field(default_factory=dict)        # {_target_: a Corpus class, its settings}
    # the corpus's files: for Tatoeba the folder holding fra-eng.zip, or the zip itself; for hf a save_to_disk folder;
    # null: search the defaults
    path: Optional[str] = setting(TEXT, default=None, optional=True, role=HOW_IT_RAN)
    # SentencePiece + tokenized cache; null: $TRANSLATE_CACHE_DIR or data/cache
    cache_dir: Optional[str] = setting(TEXT, default=None, optional=True, role=HOW_IT_RAN)
    # train-only filters on French word count (length extrapolation); the tokenizer ignores them
    train_min_words: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    train_max_words: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    # keep only the first N training pairs (quick runs, tests); SentencePiece learns from the first N of the unfiltered
    # train split
    train_limit: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    # after the length filters: N training pairs drawn at random (fixed seed), e.g. to give two length groups the same
    # size; SentencePiece still learns from the whole train split
    train_max_pairs: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    # [low, high] French words: train pairs drawn at random (fixed seed) until their English side holds as many
    # SentencePiece pieces as the train pairs of low-high words
    train_same_tokens_as: Optional[List[int]] = setting(WORD_RANGE, default=None, optional=True, role=TRAIN_ONLY)
    valid_limit: Optional[int] = setting(at_least(1), default=None, optional=True)
    test_limit: Optional[int] = setting(at_least(1), default=None, optional=True)

    def check(self) -> None:
        lo, hi = self.train_min_words, self.train_max_words
        if lo is not None and hi is not None and lo > hi:
            self.refuse(f"data.train_min_words={lo} is above data.train_max_words={hi}; no pair could be kept")
