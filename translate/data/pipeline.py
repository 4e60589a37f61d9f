"""corpus -> cleaned splits -> SentencePiece -> tokenized splits (cached as Arrow via `datasets`)."""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from hydra.utils import instantiate

from translate.data.cleaning import Pair, filter_lengths
from translate.data.config import DataConfig
from translate.data.corpora import CorpusError, Splits
from translate.data.locate import REPO_ROOT
from translate.data.test_sets import LineMap, TestSetSpec, test_set_lines
from translate.data.tokenizer import Tokenizer, train_tokenizer

log = logging.getLogger(__name__)
SPLITS = ("train", "valid", "test")
TRAIN_SAMPLE_SEED = 1  # data.train_max_pairs draws the same pairs for every run


@dataclass
class TokenizedSplit:
    pairs: list[Pair]
    src: list[list[int]]   # French ids, no specials
    tgt: list[list[int]]   # English ids, no specials
    lines: Optional[LineMap] = None   # a pair of files: the input line of each pair and the lines not scored

    def __len__(self) -> int:
        return len(self.pairs)

    def lengths(self) -> tuple[list[int], list[int]]:
        """Lengths with the added eos (source) and bos/eos (target) counted."""
        return [len(s) + 1 for s in self.src], [len(t) + 1 for t in self.tgt]


@dataclass
class PreparedData:
    tokenizer: Tokenizer
    splits: dict[str, TokenizedSplit]
    test_sets: dict[str, TokenizedSplit] = field(default_factory=dict)  # eval.test_sets by name, primary first
    corpus_dropped: dict[str, int] = field(default_factory=dict)  # pairs of the corpus files left out, by reason
    # valid pairs of every length for the position probe (probe_pairs); None where prepare_data was not asked for them
    probe: Optional[TokenizedSplit] = None


def cache_dir(data: DataConfig) -> Path:
    return Path(data.cache_dir or os.environ.get("TRANSLATE_CACHE_DIR") or REPO_ROOT / "data" / "cache")


def read_corpus(data: DataConfig) -> Splits:
    """The corpus named by data.corpus, unfiltered. (A sweep report hands in the data section of an older run's
    config.yaml, which may lack `path`.)"""
    return instantiate(data.corpus).load(getattr(data, "path", None))


def tokenizer_pairs(corpus: Splits, data: DataConfig) -> list[Pair]:
    """What SentencePiece learns from: the train split whatever the length filters and `train_max_pairs`, so that
    runs filtered differently share one tokenizer; only `train_limit` (a size cut for quick runs) applies."""
    return corpus.train[: data.train_limit or None]


def subsample(pairs: list[Pair], max_pairs: Optional[int]) -> list[Pair]:
    """At most `max_pairs` pairs drawn at random with a fixed seed (the same pairs for every run seed, so that seeds
    vary only the training), kept in corpus order."""
    if max_pairs is None:
        return pairs
    if max_pairs > len(pairs):
        raise CorpusError(f"data.train_max_pairs={max_pairs} is more than the {len(pairs)} training pairs left after "
                          f"the length filters; allowed: null or at most {len(pairs)}")
    keep = sorted(random.Random(TRAIN_SAMPLE_SEED).sample(range(len(pairs)), max_pairs))
    return [pairs[i] for i in keep]


def training_pairs(train: list[Pair], data: DataConfig) -> list[Pair]:
    """The train-only filters: French length (train_min_words..train_max_words), the first `train_limit` of those,
    then `train_max_pairs` drawn at random."""
    kept = filter_lengths(train, data.train_min_words, data.train_max_words)
    if data.train_limit:
        kept = kept[: data.train_limit]
    if not kept:
        raise CorpusError(f"no training pairs left after data.train_min_words={data.train_min_words}, "
                          f"data.train_max_words={data.train_max_words}, data.train_limit={data.train_limit}")
    return subsample(kept, data.train_max_pairs)


def validation_pairs(corpus: Splits, data: DataConfig) -> list[Pair]:
    """What a run validates (and early-stops) on. A run trained on some lengths is validated on those lengths: the
    valid split and the reserved long valid set, filtered like the training pairs. Otherwise the valid split."""
    low, high = data.train_min_words, data.train_max_words
    if low is None and high is None:
        return corpus.valid
    kept = filter_lengths(corpus.valid + corpus.long_valid, low, high)
    if not kept:
        raise CorpusError(f"no validation pairs of data.train_min_words={low} to data.train_max_words={high} French "
                          f"words in the valid split (nor in a reserved long valid set)")
    return kept


def finish_splits(corpus: Splits, data: DataConfig) -> Splits:
    """The splits a run uses: train filtered (training_pairs), valid of the training lengths (validation_pairs),
    both valid and test cut to valid_limit / test_limit."""
    splits = Splits(training_pairs(corpus.train, data), validation_pairs(corpus, data)[: data.valid_limit or None],
                    corpus.test[: data.test_limit or None])
    log.info("pairs: train %d, valid %d, test %d", len(splits.train), len(splits.valid), len(splits.test))
    return splits


def same_target_tokens(pairs: list[Pair], like: list[Pair], tokenizer: Tokenizer) -> list[Pair]:
    """`pairs` drawn at random (fixed seed, like train_max_pairs) until their English sides hold as many SentencePiece
    pieces as those of `like`, kept in corpus order: two length groups of the same training size in target tokens."""
    target = sum(len(ids) for ids in tokenizer.encode([p.en for p in like]))
    order = list(range(len(pairs)))
    random.Random(TRAIN_SAMPLE_SEED).shuffle(order)
    pieces = tokenizer.encode([pairs[i].en for i in order])
    total, keep = 0, []
    for i, ids in zip(order, pieces):
        if total >= target:
            break
        keep.append(i)
        total += len(ids)
    if total < target:
        raise CorpusError(f"data.train_same_tokens_as: the {len(pairs)} training pairs hold {total} target pieces, "
                          f"fewer than the {target} of the pairs they should match; widen the length filters")
    return [pairs[i] for i in sorted(keep)]


def load_splits(data: DataConfig) -> Splits:
    """Read the corpus named by data.corpus and apply the train-only filters (length, slice, subsample)."""
    return finish_splits(read_corpus(data), data)


def tokenize_split(pairs: list[Pair], tokenizer: Tokenizer, root: Path, key_prefix: str) -> TokenizedSplit:
    """Encode with SentencePiece; the result is cached as an Arrow dataset keyed by texts and model."""
    import datasets

    datasets.disable_progress_bars()
    digest = hashlib.sha256(key_prefix.encode())
    digest.update(hashlib.sha256(tokenizer.portable).digest())  # wherever it was trained
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


def probe_pairs(corpus: Splits) -> list[Pair]:
    """Valid pairs of every length, whatever lengths a run trained on: the valid split and the reserved long valid
    set taken in turn (one of each, then the next), so that every prefix holds short and long sentences alike."""
    short, long = corpus.valid, corpus.long_valid
    turns = [pair for both in zip(short, long) for pair in both]
    return turns + short[len(long):] + long[len(short):]


def prepare_data(data: DataConfig, tokenizer: Optional[Tokenizer] = None,
                 test_sets: Optional[list[TestSetSpec]] = None, probe: bool = False) -> PreparedData:
    """Everything the trainer needs from the `data` settings. Pass `tokenizer` to reuse a checkpoint's model, and
    `test_sets` (parsed eval.test_sets) for the final evaluation; default: the corpus's test split, named test.
    `probe`: also the valid pairs of every length for the position probe (probe_pairs)."""
    corpus = read_corpus(data)
    splits = finish_splits(corpus, data)
    root = cache_dir(data)
    if tokenizer is None:
        tok = data.tokenizer
        tokenizer = train_tokenizer(tokenizer_pairs(corpus, data), root, tok.vocab_size, tok.model_type,
                                    tok.character_coverage)
    like = data.train_same_tokens_as
    if like is not None:
        splits.train = same_target_tokens(splits.train, filter_lengths(corpus.train, *like), tokenizer)
        log.info("train %d pairs: as many target pieces as the train pairs of %d-%d French words", len(splits.train),
                 *like)
    tokenized = {name: tokenize_split(getattr(splits, name), tokenizer, root, name) for name in SPLITS}
    tested = {}
    for spec in test_sets or [TestSetSpec("test", split="test")]:
        pairs, lines = test_set_lines(spec, corpus, data.test_limit)
        tested[spec.name] = dataclasses.replace(tokenize_split(pairs, tokenizer, root, "test"), lines=lines)  # keyed
        # by texts: the same split is shared
    probed = tokenize_split(probe_pairs(corpus), tokenizer, root, "probe") if probe else None
    return PreparedData(tokenizer, tokenized, tested, corpus.dropped, probed)
