"""corpus -> cleaned splits -> SentencePiece -> tokenized splits (cached as Arrow via `datasets`)."""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from hydra.utils import instantiate
from omegaconf import DictConfig

from translate.data.cleaning import Pair, filter_lengths
from translate.data.corpora import CorpusError, Splits
from translate.data.locate import REPO_ROOT
from translate.data.tokenizer import Tokenizer, train_tokenizer

log = logging.getLogger(__name__)
SPLITS = ("train", "valid", "test")


@dataclass
class TokenizedSplit:
    pairs: list[Pair]
    src: list[list[int]]   # French ids, no specials
    tgt: list[list[int]]   # English ids, no specials

    def __len__(self) -> int:
        return len(self.pairs)

    def lengths(self) -> tuple[list[int], list[int]]:
        """Lengths with the added eos (source) and bos/eos (target) counted."""
        return [len(s) + 1 for s in self.src], [len(t) + 1 for t in self.tgt]


@dataclass
class PreparedData:
    tokenizer: Tokenizer
    splits: dict[str, TokenizedSplit]


def cache_dir(cfg: DictConfig) -> Path:
    return Path(cfg.get("cache_dir") or os.environ.get("TRANSLATE_CACHE_DIR") or REPO_ROOT / "data" / "cache")


def load_splits(cfg: DictConfig) -> Splits:
    """Read the corpus named by cfg.corpus and apply the train-only filters (length, slice)."""
    corpus = instantiate(cfg.corpus)
    splits = corpus.load(cfg.get("path"))
    train = filter_lengths(splits.train, cfg.get("train_min_words"), cfg.get("train_max_words"))
    if cfg.get("train_limit"):
        train = train[: cfg.train_limit]
    if not train:
        raise CorpusError(f"no training pairs left after data.train_min_words={cfg.get('train_min_words')}, "
                          f"data.train_max_words={cfg.get('train_max_words')}, data.train_limit="
                          f"{cfg.get('train_limit')}")
    for name in ("valid", "test"):
        limit = cfg.get(f"{name}_limit")
        if limit:
            setattr(splits, name, getattr(splits, name)[:limit])
    splits.train = train
    log.info("pairs: train %d, valid %d, test %d", len(splits.train), len(splits.valid), len(splits.test))
    return splits


def tokenize_split(pairs: list[Pair], tokenizer: Tokenizer, root: Path, key_prefix: str) -> TokenizedSplit:
    """Encode with SentencePiece; the result is cached as an Arrow dataset keyed by texts and model."""
    import datasets

    datasets.disable_progress_bars()
    digest = hashlib.sha256(key_prefix.encode())
    digest.update(hashlib.sha256(tokenizer.model_proto).digest())
    for p in pairs:
        digest.update(f"{p.fr}\t{p.en}\n".encode())
    path = root / f"tok-{digest.hexdigest()[:16]}"
    if path.exists():
        columns = datasets.load_from_disk(str(path))[:]  # dict of python lists
        return TokenizedSplit(pairs, columns["src"], columns["tgt"])
    src = tokenizer.encode([p.fr for p in pairs])
    tgt = tokenizer.encode([p.en for p in pairs])
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    datasets.Dataset.from_dict({"src": src, "tgt": tgt}).save_to_disk(str(tmp))
    try:
        os.replace(tmp, path)
    except OSError:  # another process won the race; its copy is identical
        shutil.rmtree(tmp, ignore_errors=True)
    return TokenizedSplit(pairs, src, tgt)


def prepare_data(cfg: DictConfig, tokenizer: Optional[Tokenizer] = None) -> PreparedData:
    """Everything the trainer needs from `cfg.data`. Pass `tokenizer` to reuse a checkpoint's model."""
    splits = load_splits(cfg)
    root = cache_dir(cfg)
    if tokenizer is None:
        tok = cfg.tokenizer
        tokenizer = train_tokenizer(splits.train, root, tok.vocab_size, tok.model_type, tok.character_coverage)
    tokenized = {name: tokenize_split(getattr(splits, name), tokenizer, root, name) for name in SPLITS}
    return PreparedData(tokenizer, tokenized)
