"""The test sentences a job translated, read again from its corpus, the length buckets they fall in and the groups
of pairs that are not independent (they share an English or a French sentence)."""
from __future__ import annotations

import dataclasses
import os
from functools import cached_property
from dataclasses import dataclass
from typing import Any, Optional

from translate.analysis.buckets import PAIR_LENGTH, Bucket, members
from translate.analysis.run.metrics_json import LengthReport
from translate.data.cleaning import Pair
from translate.config.fields import TRAIN_ONLY, with_role
from translate.data.components import component_ids
from translate.data.config import DataConfig
from translate.data.locate import ENV_VAR
from translate.data.pipeline import read_corpus
from translate.data.test_sets import TestSetSpec, test_set_pairs
from translate.analysis.significance import Groups

from translate.analysis.sweep.jobs import JobSettings


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

    def bucket_members(self, by_length: LengthReport) -> Optional[list[list[int]]]:
        """Sentence indices of each bucket of a metrics.json `by_length`, or None for a length we cannot measure
        from the text alone (e.g. SentencePiece pieces)."""
        lengths = self.words(by_length.bucketed_by)
        if lengths is None:
            return None
        return members(lengths, [Bucket(b.low, b.high) for b in by_length.buckets])


def test_set_spec(settings: JobSettings, name: str) -> TestSetSpec:
    """The eval.test_sets entry called `name` of a job; a job from before eval.test_sets tested the corpus split of
    that name."""
    return next((spec for spec in settings.test_sets if spec.name == name), None) or TestSetSpec(name, split=name)


def corpus_settings(data: DataConfig) -> DataConfig:
    """The data section without its train-only settings (their role, declared on DataConfig): jobs that differ only
    in those read the same test sentences."""
    return dataclasses.replace(data, **{name: None for name in with_role(DataConfig, TRAIN_ONLY)})


# (corpus settings, where corpora are looked for) -> the corpus: each corpus is read once a process,
# not once a report (a page builds a report for each of its sweeps, mostly of one corpus; a read takes seconds)
_CORPORA: dict[str, Any] = {}


class TestSets:
    """Loads each distinct test set once (jobs of a sweep usually share them), the way training built it."""

    def __init__(self) -> None:
        self._loaded: dict[str, TestSet] = {}

    def for_job(self, settings: JobSettings, name: str = "test") -> TestSet:
        if settings.data is None:
            raise ValueError("the job's config.yaml has no data section")
        data = corpus_settings(settings.data)
        spec = test_set_spec(settings, name)
        corpus_key = repr((data, os.environ.get(ENV_VAR), os.getcwd()))   # where a relative or unnamed path is found
        key = f"{spec!r}:{corpus_key}"
        if key not in self._loaded:
            if corpus_key not in _CORPORA:
                if len(_CORPORA) >= 4:   # a whole corpus each: a long-lived process keeps a few
                    _CORPORA.clear()
                _CORPORA[corpus_key] = read_corpus(data)
            self._loaded[key] = TestSet(test_set_pairs(spec, _CORPORA[corpus_key], data.test_limit))
        return self._loaded[key]
