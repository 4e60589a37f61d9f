"""The test sets a run is scored on: `eval.test_sets`, a list of entries, each one of

    {name: test, split: test}                          a split (train, valid, test) of the run's corpus, or the
                                                       reserved real long sentences (long_test, long_valid: Tatoeba)
    {name: flickr2016, src: FILE.fr[.gz], ref: FILE.en[.gz]}   line-aligned plain or gzipped files
    {name: long_concat, long_concat_from: test}        synthetic long pseudo-sentences (translate/data/long_concat.py)

A relative `src`/`ref` is looked for like a corpus: under $TRANSLATE_DATA_DIR, ../shared/data, then data/.
The first entry is the primary one: its scores are also the top-level scores of metrics.json.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from omegaconf import DictConfig, ListConfig, OmegaConf

from translate.config import ConfigError
from translate.data.cleaning import DropCounts, Pair, clean_pairs
from translate.data.corpora import CorpusError, Splits, decode_pairs, read_byte_lines
from translate.data.locate import candidate_dirs
from translate.data.long_concat import build_long_concat

SPLITS = ("train", "valid", "test", "long_test", "long_valid")
EVAL_SPLITS = ("valid", "test", "long_test", "long_valid")   # long_concat is never built from train
KINDS = ("split", "src", "long_concat_from")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")  # it names files and TensorBoard tags


@dataclass(frozen=True)
class TestSetSpec:
    name: str
    split: Optional[str] = None
    src: Optional[str] = None
    ref: Optional[str] = None
    long_concat_from: Optional[str] = None
    key: str = "eval.test_sets"   # where it was configured, for error messages

    @property
    def source(self) -> str:
        """What it was made from, in words (stored in metrics.json)."""
        if self.split:
            return f"split {self.split}"
        if self.long_concat_from:
            return f"long_concat of split {self.long_concat_from} (synthetic)"
        return f"files {self.src}, {self.ref}"


def parse_test_sets(entries, key: str = "eval.test_sets") -> list[TestSetSpec]:
    """Check every entry (an error names the key, the value and what is allowed) and return them in order."""
    if not isinstance(entries, (list, ListConfig)) or not entries:
        raise ConfigError(f"{key}={shown(entries)!r} is not allowed: expected a non-empty list of test sets, e.g. "
                          f"[{{name: test, split: test}}]")
    specs = [parse_entry(entry, f"{key}[{i}]") for i, entry in enumerate(entries)]
    names = [s.name for s in specs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"{key} names {repeated} more than once: expected a different name per test set")
    return specs


def shown(value):
    return OmegaConf.to_container(value) if isinstance(value, (DictConfig, ListConfig)) else value


def parse_entry(entry, key: str) -> TestSetSpec:
    allowed = "a section with a name and one of: split, src and ref, long_concat_from"
    if not isinstance(entry, (dict, DictConfig)):
        raise ConfigError(f"{key}={shown(entry)!r} is not allowed: expected {allowed}")
    entry = dict(shown(entry))
    unknown = sorted(set(entry) - {"name", "split", "src", "ref", "long_concat_from"})
    if unknown:
        raise ConfigError(f"{key} has unknown keys {unknown}: allowed keys are name, split, src, ref, long_concat_from")
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{key}.name={name!r} is not allowed: expected letters, digits, '_', '.' or '-'")
    kinds = [k for k in KINDS if entry.get(k) is not None]
    if len(kinds) != 1:
        raise ConfigError(f"{key} ({name}) sets {kinds or 'none of them'}: expected exactly one of split, "
                          f"src (with ref), long_concat_from")
    if kinds == ["split"] and entry["split"] not in SPLITS:
        raise ConfigError(f"{key}.split={entry['split']!r} is not allowed: expected one of {list(SPLITS)}")
    if kinds == ["long_concat_from"] and entry["long_concat_from"] not in EVAL_SPLITS:
        raise ConfigError(f"{key}.long_concat_from={entry['long_concat_from']!r} is not allowed: expected one of "
                          f"{list(EVAL_SPLITS)} (never train)")
    for side in ("src", "ref"):
        if kinds == ["src"] and not (isinstance(entry.get(side), str) and entry[side]):
            raise ConfigError(f"{key}.{side}={entry.get(side)!r} is not allowed: expected a file path (plain or .gz)")
    if kinds != ["src"] and entry.get("ref") is not None:
        raise ConfigError(f"{key}.ref={entry['ref']!r} is not allowed without src")
    return TestSetSpec(name, entry.get("split"), entry.get("src"), entry.get("ref"), entry.get("long_concat_from"), key)


def locate_file(path: str, spec: TestSetSpec, side: str) -> Path:
    given = Path(path).expanduser()
    if given.is_absolute():
        if given.exists():
            return given
        looked = [str(given)]
    else:
        places = [folder / given for _, folder in candidate_dirs("")]  # the data folders themselves
        found = next((p for p in places if p.exists()), None)
        if found:
            return found
        looked = [str(p) for p in places]
    raise CorpusError(f"{spec.key} ({spec.name}): {side}={path!r} not found; looked in {looked}. Give an absolute "
                      f"path, or set TRANSLATE_DATA_DIR to a folder holding {path}.")


def read_file_pair(spec: TestSetSpec) -> list[Pair]:
    src, ref = locate_file(spec.src, spec, "src"), locate_file(spec.ref, spec, "ref")
    fr_lines, en_lines = read_byte_lines(src), read_byte_lines(ref)
    if len(fr_lines) != len(en_lines):
        raise CorpusError(f"{spec.key} ({spec.name}): {src} has {len(fr_lines)} lines but {ref} has "
                          f"{len(en_lines)}; the files must be line-aligned")
    return clean_pairs(decode_pairs(fr_lines, en_lines, DropCounts()), DropCounts())


def test_set_pairs(spec: TestSetSpec, corpus: Splits, limit: Optional[int] = None) -> list[Pair]:
    """The pairs of one test set; `corpus` is the run's corpus before any limit; `limit` (data.test_limit) keeps
    the first N of every test set."""
    if spec.split:
        pairs = getattr(corpus, spec.split)
    elif spec.long_concat_from:
        pairs = build_long_concat(getattr(corpus, spec.long_concat_from))
    else:
        pairs = read_file_pair(spec)
    if not pairs:
        raise CorpusError(f"{spec.key} ({spec.name}, {spec.source}) holds no sentence pair")
    return pairs[: limit or None]
