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

    model_type: str = setting(one_of("unigram", "bpe"))
    vocab_size: int = setting(at_least(16))
    character_coverage: float = setting(number_in(0.9, 1.0))


@dataclass
class DataConfig(Checked):
    SECTION: ClassVar[str] = "data"

    name: str = setting(TEXT)
    tokenizer: TokenizerConfig = setting()
    corpus: Any = field(default_factory=dict)        # {_target_: a Corpus class, its settings}
    path: Optional[str] = setting(TEXT, default=None, optional=True, role=HOW_IT_RAN)
    cache_dir: Optional[str] = setting(TEXT, default=None, optional=True, role=HOW_IT_RAN)
    train_min_words: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    train_max_words: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    train_limit: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    train_max_pairs: Optional[int] = setting(at_least(1), default=None, optional=True, role=TRAIN_ONLY)
    train_same_tokens_as: Optional[List[int]] = setting(WORD_RANGE, default=None, optional=True, role=TRAIN_ONLY)
    valid_limit: Optional[int] = setting(at_least(1), default=None, optional=True)
    test_limit: Optional[int] = setting(at_least(1), default=None, optional=True)

    def check(self) -> None:
        lo, hi = self.train_min_words, self.train_max_words
        if lo is not None and hi is not None and lo > hi:
            self.refuse(f"data.train_min_words={lo} is above data.train_max_words={hi}; no pair could be kept")
