"""The test sentences a job translated, read again from its corpus, the length buckets they fall in and the groups
of pairs that are not independent (they share an English or a French sentence)."""
from __future__ import annotations

from functools import cached_property
from dataclasses import dataclass
from typing import Any, Optional

from omegaconf import OmegaConf

from translate.analysis.buckets import PAIR_LENGTH, Bucket, members
from translate.data.cleaning import Pair
from translate.data.components import component_ids
from translate.data.pipeline import read_corpus
from translate.data.test_sets import TestSetSpec, parse_test_sets, test_set_pairs
from translate.analysis.sweep.significance import Groups

# Train-only filters: they change the training pairs, never the test split.
TRAIN_ONLY = ("data.train_min_words", "data.train_max_words", "data.train_limit", "data.train_max_pairs",
              "data.train_same_tokens_as")


@dataclass
class TestSet:
    pairs: list[Pair]

    @property
    def references(self) -> list[str]:
        return [p.en for p in self.pairs]

    @cached_property
    def groups(self) -> Groups:
        """Pairs joined by a shared English or French sentence (connected components) form one group, which the
        bootstrap resamples as a whole; a pair sharing nothing is its own group."""
        return Groups.of(component_ids(self.pairs))

    def words(self, bucketed_by: str) -> Optional[list[int]]:
        """Each pair's length as a metrics.json `bucketed_by` measures it, or None when the text cannot say."""
        length_of = PAIR_LENGTH.get(bucketed_by)
        return None if length_of is None else [length_of(p) for p in self.pairs]

    def bucket_members(self, by_length: dict) -> Optional[list[list[int]]]:
        """Sentence indices of each bucket of a metrics.json `by_length`, or None for a length we cannot measure
        from the text alone (e.g. SentencePiece pieces)."""
        lengths = self.words(by_length.get("bucketed_by"))
        if lengths is None:
            return None
        return members(lengths, [Bucket(b["low"], b["high"]) for b in by_length["buckets"]])


def thawed(value: Any) -> Any:
    """Undo jobs.frozen for eval.test_sets: tuples of (key, value) pairs back to dicts, other tuples to lists."""
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value):
            return {k: thawed(v) for k, v in value}
        return [thawed(v) for v in value]
    return value


def test_set_spec(config: dict[str, Any], name: str) -> TestSetSpec:
    """The eval.test_sets entry called `name` in a job's flattened config; a job from before eval.test_sets tested
    the corpus split of that name."""
    entries = config.get("eval.test_sets")
    specs = {spec.name: spec for spec in parse_test_sets(thawed(entries))} if entries else {}
    return specs.get(name) or TestSetSpec(name, split=name)


class TestSets:
    """Loads each distinct test set once (jobs of a sweep usually share them), the way training built it."""

    def __init__(self) -> None:
        self._loaded: dict[str, TestSet] = {}
        self._corpora: dict[str, Any] = {}

    def for_config(self, config: dict[str, Any], name: str = "test") -> TestSet:
        data = {k[len("data."):]: v for k, v in config.items() if k.startswith("data.") and k not in TRAIN_ONLY}
        spec = test_set_spec(config, name)
        corpus_key = repr(sorted(data.items()))
        key = f"{spec!r}:{corpus_key}"
        if key not in self._loaded:
            if corpus_key not in self._corpora:
                nested = OmegaConf.create({})
                for dotted, value in data.items():
                    OmegaConf.update(nested, dotted, thawed(value), force_add=True)
                self._corpora[corpus_key] = (read_corpus(nested), data.get("test_limit"))
            corpus, limit = self._corpora[corpus_key]
            self._loaded[key] = TestSet(test_set_pairs(spec, corpus, limit))
        return self._loaded[key]
