"""The test sets a run is scored on: `eval.test_sets`, a list of entries, each one of

    {name: test, split: test}                          a split (train, valid, test) of the run's corpus, or the
                                                       reserved real long sentences (long_test, long_valid: Tatoeba)
    {name: flickr2016, src: FILE.fr[.gz], ref: FILE.en[.gz]}   line-aligned plain or gzipped files
    {name: long_concat, long_concat_from: test}        synthetic long pseudo-sentences (translate/data/long_concat.py)
    {name: hansards_gold, gold: test}                  the pairs of a human word alignment, scored for AER against
                                                       their gold links (translate/data/gold_alignments.py)

A relative `src`/`ref` is looked for like a corpus: under $TRANSLATE_DATA_DIR, ../shared/data, then data/.
The first entry is the primary one: its scores are also the top-level scores of metrics.json.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from omegaconf import DictConfig, ListConfig, OmegaConf

from translate.config import ConfigError
from translate.data.cleaning import NOT_UTF8, Pair, decode_utf8, normalise
from translate.data.corpora import CorpusError, Splits, read_byte_lines
from translate.data.gold_alignments import GoldPair, read_gold
from translate.data.locate import candidate_dirs
from translate.data.long_concat import build_long_concat

SPLITS = ("train", "valid", "test", "long_test", "long_valid")
EVAL_SPLITS = ("valid", "test", "long_test", "long_valid")   # long_concat is never built from train
LONG_SPLITS = ("long_test", "long_valid")   # the reserved real long sentences (translate/data/long_reserve.py)
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")  # it names files and TensorBoard tags
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TestSetSpec:
    name: str
    split: Optional[str] = None
    src: Optional[str] = None
    ref: Optional[str] = None
    long_concat_from: Optional[str] = None
    gold: Optional[str] = None
    key: str = "eval.test_sets"   # where it was configured, for error messages

    @property
    def kind(self) -> "TestSetKind":
        return next(kind for kind in KINDS if getattr(self, kind.field) is not None)

    @property
    def source(self) -> str:
        """What it was made from, in words (stored in metrics.json)."""
        return self.kind.source(self)

    @property
    def long_lengths(self) -> bool:
        """Whether it is built to hold long sentences (what a length curve reads past the short buckets)."""
        return self.kind.long_lengths(self)


class TestSetKind:
    """One way of making a test set, chosen by the entry key it names (`field`); code asks the kind, never the name."""

    field: str = ""
    synthetic: bool = False
    reads_corpus: bool = True     # made from the run's corpus (a pair of files is not)
    gold_links: bool = False      # its pairs carry human word links (gold_pairs): AER is scored against them

    def source(self, spec: TestSetSpec) -> str:
        raise NotImplementedError

    def long_lengths(self, spec: TestSetSpec) -> bool:
        return False

    def check(self, entry: dict, key: str, name: str) -> None:
        """Raise ConfigError naming the key when the entry's values are not allowed."""

    def pairs(self, spec: TestSetSpec, corpus: Splits) -> list[Pair]:
        raise NotImplementedError


class CorpusSplit(TestSetKind):
    field = "split"

    def source(self, spec: TestSetSpec) -> str:
        return f"split {spec.split}"

    def long_lengths(self, spec: TestSetSpec) -> bool:
        return spec.split in LONG_SPLITS

    def check(self, entry: dict, key: str, name: str) -> None:
        if entry["split"] not in SPLITS:
            raise ConfigError(f"{key}.split={entry['split']!r} is not allowed: expected one of {list(SPLITS)}")

    def pairs(self, spec: TestSetSpec, corpus: Splits) -> list[Pair]:
        return getattr(corpus, spec.split)


class FilePair(TestSetKind):
    field = "src"
    reads_corpus = False

    def source(self, spec: TestSetSpec) -> str:
        return f"files {spec.src}, {spec.ref}"

    def check(self, entry: dict, key: str, name: str) -> None:
        for side in ("src", "ref"):
            if not (isinstance(entry.get(side), str) and entry[side]):
                raise ConfigError(f"{key}.{side}={entry.get(side)!r} is not allowed: expected a file path (plain or "
                                  f".gz)")

    def pairs(self, spec: TestSetSpec, corpus: Splits) -> list[Pair]:
        return read_file_pair(spec)[0]


class LongConcat(TestSetKind):
    field = "long_concat_from"
    synthetic = True

    def source(self, spec: TestSetSpec) -> str:
        return f"long_concat of split {spec.long_concat_from} (synthetic)"

    def long_lengths(self, spec: TestSetSpec) -> bool:
        return True

    def check(self, entry: dict, key: str, name: str) -> None:
        if entry["long_concat_from"] not in EVAL_SPLITS:
            raise ConfigError(f"{key}.long_concat_from={entry['long_concat_from']!r} is not allowed: expected one of "
                              f"{list(EVAL_SPLITS)} (never train)")

    def pairs(self, spec: TestSetSpec, corpus: Splits) -> list[Pair]:
        return build_long_concat(getattr(corpus, spec.long_concat_from))


GOLD_CORPUS = "hansards_align"   # the folder of the data folder that holds the human alignment
GOLD_SPLITS = ("test",)          # its trial pairs are kept for choosing the AER reading (alignment_error)


def gold_folder(spec: TestSetSpec) -> Path:
    folder = next((path for _, path in candidate_dirs(GOLD_CORPUS) if (path / "test.wa.nonullalign").exists()), None)
    if folder is None:
        raise CorpusError(f"{spec.key} ({spec.name}): gold={spec.gold!r} needs the folder {GOLD_CORPUS}/ (with "
                          f"test.fr, test.en, test.wa.nonullalign and the trial files); looked in "
                          f"{[str(path) for _, path in candidate_dirs(GOLD_CORPUS)]}. Set TRANSLATE_DATA_DIR to "
                          f"the folder that holds it.")
    return folder


def gold_pairs(spec: TestSetSpec, split: Optional[str] = None) -> list[GoldPair]:
    """The gold pairs of a gold test set (`split`: another split of the same folder, e.g. its trial pairs)."""
    return read_gold(gold_folder(spec), split or spec.gold)


class GoldAlignment(TestSetKind):
    field = "gold"
    reads_corpus = False
    gold_links = True

    def source(self, spec: TestSetSpec) -> str:
        return f"gold alignment {GOLD_CORPUS} {spec.gold} (human Sure/Possible links)"

    def check(self, entry: dict, key: str, name: str) -> None:
        if entry["gold"] not in GOLD_SPLITS:
            raise ConfigError(f"{key}.gold={entry['gold']!r} is not allowed: expected one of {list(GOLD_SPLITS)} "
                              f"(the trial pairs choose the AER reading and are never scored)")

    def pairs(self, spec: TestSetSpec, corpus: Splits) -> list[Pair]:
        return [Pair(p.french, p.english) for p in gold_pairs(spec)]


KINDS = (CorpusSplit(), FilePair(), LongConcat(), GoldAlignment())


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
    allowed = "a section with a name and one of: split, src and ref, long_concat_from, gold"
    if not isinstance(entry, (dict, DictConfig)):
        raise ConfigError(f"{key}={shown(entry)!r} is not allowed: expected {allowed}")
    entry = dict(shown(entry))
    unknown = sorted(set(entry) - {"name", "ref", *(kind.field for kind in KINDS)})
    if unknown:
        raise ConfigError(f"{key} has unknown keys {unknown}: allowed keys are name, split, src, ref, long_concat_from, "
                          f"gold")
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{key}.name={name!r} is not allowed: expected letters, digits, '_', '.' or '-'")
    kinds = [kind for kind in KINDS if entry.get(kind.field) is not None]
    if len(kinds) != 1:
        raise ConfigError(f"{key} ({name}) sets {[k.field for k in kinds] or 'none of them'}: expected exactly one of "
                          f"split, src (with ref), long_concat_from, gold")
    kinds[0].check(entry, key, name)
    if kinds[0].field != "src" and entry.get("ref") is not None:
        raise ConfigError(f"{key}.ref={entry['ref']!r} is not allowed without src")
    return TestSetSpec(name, entry.get("split"), entry.get("src"), entry.get("ref"), entry.get("long_concat_from"),
                       entry.get("gold"), key)


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


# What a line of a user's files gets when it cannot be scored: stated in the log, metrics.json and the summary.
NOT_SCORED_RULE = ("a line whose French or English side is empty or not valid UTF-8 gets an empty hypothesis line "
                   "and is left out of the scores")


@dataclass(frozen=True)
class SkippedLine:
    file: str
    line: int    # from 1
    why: str


@dataclass
class LineMap:
    """Where the pairs of a pair of files came from, so that line i of the hypotheses is line i of the input."""

    lines: int               # lines of each file
    scored: list[int]        # the line (from 0) of each pair, in order
    skipped: list[SkippedLine]

    def spread(self, hyps: list[str]) -> list[str]:
        """One hypothesis per input line: the scored ones in their place, an empty line for every other."""
        out = [""] * self.lines
        for line, hyp in zip(self.scored, hyps):
            out[line] = hyp
        return out

    def first(self, n: Optional[int]) -> "LineMap":
        """The map of the first n pairs (data.test_limit), up to the line of the last of them."""
        if not n or n >= len(self.scored):
            return self
        end = self.scored[n - 1] + 1
        return LineMap(end, self.scored[:n], [s for s in self.skipped if s.line <= end])

    def summary(self) -> dict:
        """What metrics.json records of it."""
        return {"lines": self.lines, "not_scored": len(self.skipped), "rule": NOT_SCORED_RULE,
                "skipped_lines": [{"file": s.file, "line": s.line, "why": s.why} for s in self.skipped]}


def line_problem(fr: Optional[str], en: Optional[str], fr_raw: bytes, en_raw: bytes) -> Optional[tuple[int, str]]:
    """(side, why) of the first side of a line pair that cannot be scored (0: French, 1: English), or None."""
    for side, (text, raw) in enumerate(((fr, fr_raw), (en, en_raw))):
        if text is None:
            return side, f"{NOT_UTF8} ({raw[:40]!r})"
        if not normalise(text):
            return side, "empty" if not text else "blank (only whitespace)"
    return None


def check_text(path: Path, raw: list[bytes]) -> None:
    """A file that is not text (NUL bytes: an archive, an image, UTF-16) cannot be scored: CorpusError naming it."""
    if any(b"\x00" in line for line in raw):
        raise CorpusError(f"{path} is not a text file (it holds NUL bytes); expected UTF-8 plain text or .gz, one "
                          f"sentence per line")


def read_file_pair(spec: TestSetSpec) -> tuple[list[Pair], LineMap]:
    """The pairs of a pair of line-aligned files and where each came from; every line pair that cannot be scored is
    named in the log (file, line, why) and gets an empty hypothesis (NOT_SCORED_RULE)."""
    src, ref = locate_file(spec.src, spec, "src"), locate_file(spec.ref, spec, "ref")
    fr_lines, en_lines = read_byte_lines(src), read_byte_lines(ref)
    check_text(src, fr_lines)
    check_text(ref, en_lines)
    if len(fr_lines) != len(en_lines):
        raise CorpusError(f"{spec.key} ({spec.name}): {src} has {len(fr_lines)} lines but {ref} has "
                          f"{len(en_lines)}; the files must be line-aligned")
    pairs, scored, skipped = [], [], []
    for i, (fr_raw, en_raw) in enumerate(zip(fr_lines, en_lines)):
        fr, en = decode_utf8(fr_raw), decode_utf8(en_raw)
        problem = line_problem(fr, en, fr_raw, en_raw)
        if problem is None:
            pairs.append(Pair(normalise(fr), normalise(en)))
            scored.append(i)
        else:
            skipped.append(SkippedLine(str((src, ref)[problem[0]]), i + 1, problem[1]))
    for s in skipped:
        log.warning("%s line %d: %s; not scored, its hypothesis line is empty", s.file, s.line, s.why)
    if skipped:
        log.warning("%s: %d of %d lines not scored (%s)", spec.name, len(skipped), len(fr_lines), NOT_SCORED_RULE)
    return pairs, LineMap(len(fr_lines), scored, skipped)


def test_set_lines(spec: TestSetSpec, corpus: Splits, limit: Optional[int] = None
                   ) -> tuple[list[Pair], Optional[LineMap]]:
    """The pairs of one test set and, for a pair of files, where each came from (None for the other kinds)."""
    if isinstance(spec.kind, FilePair):
        pairs, lines = read_file_pair(spec)
        lines = lines.first(limit)
    else:
        pairs, lines = spec.kind.pairs(spec, corpus), None
    if not pairs:
        raise CorpusError(f"{spec.key} ({spec.name}, {spec.source}) holds no sentence pair" +
                          (f" that can be scored ({len(lines.skipped)} of {lines.lines} lines skipped: "
                           f"{NOT_SCORED_RULE})" if lines is not None and lines.skipped else ""))
    return pairs[: limit or None], lines


def test_set_pairs(spec: TestSetSpec, corpus: Splits, limit: Optional[int] = None) -> list[Pair]:
    """The pairs of one test set; `corpus` is the run's corpus before any limit; `limit` (data.test_limit) keeps
    the first N of every test set."""
    return test_set_lines(spec, corpus, limit)[0]
