"""Public French-English corpora, each read into train / valid / test lists of cleaned pairs.

A corpus is chosen with `data=<name>`; its class is named by `data.corpus._target_`.
"""
from __future__ import annotations

import gzip
import io
import logging
import random
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from translate.data.cleaning import DropCounts, Pair, clean_pairs
from translate.data.components import sentence_components
from translate.data.long_reserve import reserve_long
from translate.data.locate import RemoteFile, locate_corpus

log = logging.getLogger(__name__)



def require_counts(**counts) -> None:
    """Sizes and limits are integers >= 1 (None: no limit); the error names the setting and its value."""
    for name, value in counts.items():
        if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name}={value!r} is not allowed: expected an integer >= 1")

class CorpusError(ValueError):
    pass


@dataclass
class Splits:
    train: list[Pair]
    valid: list[Pair]
    test: list[Pair]
    long_test: list[Pair] = field(default_factory=list)    # real long pairs no run trains on (long_reserve.py)
    long_valid: list[Pair] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)  # pairs of the corpus files left out, by reason

    def check_not_empty(self, corpus: str) -> None:
        for name in ("train", "valid", "test"):
            if not getattr(self, name):
                raise CorpusError(f"corpus {corpus!r}: the {name} split is empty after filtering; check data.path, "
                                  f"data.corpus.max_words and the split sizes (data.corpus.valid_size, "
                                  f"data.corpus.test_size).")


def split_by_component(pairs: list[Pair], valid_size: int, test_size: int, seed: int) -> Splits:
    """Split whole components of the English-French sentence graph, so that no English and no French sentence
    appears in two splits (Tatoeba has several French per English and several English per French).

    Sizes are counted in distinct English sentences, as before this split existed: valid and test each get whole
    components, drawn in a seeded random order, while they fit in the remaining count (components are small:
    at most 21 English sentences in the 2017 release), so each ends within a component of its size. Deterministic:
    components are sorted by their sorted English sentences before the seeded shuffle.
    """
    components = sentence_components(pairs)
    english = [sorted({pairs[i].en for i in c}) for c in components]
    total = sum(len(e) for e in english)
    if valid_size + test_size >= total:
        raise CorpusError(f"data.corpus.valid_size + test_size = {valid_size + test_size} must be below the number "
                          f"of distinct English sentences ({total})")
    order = sorted(range(len(components)), key=lambda k: english[k])
    random.Random(seed).shuffle(order)
    room = {"valid": valid_size, "test": test_size}
    chosen: dict[int, str] = {}
    for k in order:
        split = next((name for name, left in room.items() if len(english[k]) <= left), None)
        if split is not None:
            chosen[k] = split
            room[split] -= len(english[k])
        if not any(room.values()):
            break
    indices: dict[str, list[int]] = {"train": [], "valid": [], "test": []}
    for k, component in enumerate(components):
        indices[chosen.get(k, "train")].extend(component)
    # corpus order inside each split, as before
    return Splits(*([pairs[i] for i in sorted(indices[name])] for name in ("train", "valid", "test")))


class Tatoeba:
    """manythings.org Anki release: fra.txt inside fra-eng.zip, lines `English<TAB>French[<TAB>attribution]`."""

    name = "tatoeba"
    files = [RemoteFile("fra-eng.zip", "http://www.manythings.org/anki/fra-eng.zip",
                        "16c4f7d0df9e7c5e6c54cdb0447f3f4a18a55052ff5e2e0b27dd4a06c0e49d04")]

    def __init__(self, valid_size: int = 1000, test_size: int = 2000, split_seed: int = 1,
                 max_words: Optional[int] = 80, long_reserve: bool = True) -> None:
        require_counts(valid_size=valid_size, test_size=test_size, max_words=max_words)
        if not isinstance(long_reserve, bool):
            raise ValueError(f"data.corpus.long_reserve={long_reserve!r} is not allowed: expected true or false")
        self.valid_size, self.test_size, self.split_seed, self.max_words = valid_size, test_size, split_seed, max_words
        self.long_reserve = long_reserve

    def zip_path(self, data_path: Optional[str]) -> Path:
        if data_path and Path(data_path).is_file():
            return Path(data_path)
        return locate_corpus(self.name, self.files, data_path) / "fra-eng.zip"

    @staticmethod
    def read_lines(zip_path: Path, drops: DropCounts) -> Iterator[tuple[str, str]]:
        try:
            archive = zipfile.ZipFile(zip_path)
        except zipfile.BadZipFile as error:
            raise CorpusError(f"{zip_path} is not a readable zip file ({error})") from None
        with archive:
            if "fra.txt" not in archive.namelist():
                raise CorpusError(f"{zip_path} holds {archive.namelist()}, but no fra.txt")
            try:
                for raw in io.BufferedReader(archive.open("fra.txt")):
                    try:
                        line = raw.decode("utf-8").rstrip("\r\n")
                    except UnicodeDecodeError:
                        drops.add("bad UTF-8")
                        continue
                    columns = line.split("\t")
                    if len(columns) not in (2, 3):
                        drops.add("not 2 or 3 tab-separated columns")
                        continue
                    yield columns[1], columns[0]  # (fr, en)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:  # CRC mismatch, truncated member
                raise CorpusError(f"{zip_path}: fra.txt is damaged ({error}); download the zip again") from None

    def load(self, data_path: Optional[str] = None) -> Splits:
        drops = DropCounts()
        path = self.zip_path(data_path)
        pairs = clean_pairs(self.read_lines(path, drops), drops, self.max_words)
        drops.log(str(path))
        if not pairs:
            raise CorpusError(f"{path}: the corpus is empty after filtering (dropped: {dict(drops.reasons)}); "
                              f"check the file and data.corpus.max_words={self.max_words}")
        splits = split_by_component(pairs, self.valid_size, self.test_size, self.split_seed)
        if self.long_reserve:  # after the split, so valid and test are the same with or without it
            reserve = reserve_long(splits.train, self.split_seed)
            splits.train, splits.long_test, splits.long_valid = reserve.train, reserve.long_test, reserve.long_valid
            log.info("long test %d pairs, long valid %d pairs (reserved from train; %d short pairs of their "
                     "components dropped)", len(reserve.long_test), len(reserve.long_valid), reserve.dropped_short)
        splits.check_not_empty(self.name)
        splits.dropped = dict(drops.reasons)
        return splits


def read_byte_lines(path: Path) -> list[bytes]:
    """The lines of a plain or gzipped file, split on \\n only (so U+2028 and friends inside a line keep the
    alignment of line-aligned files); a damaged file is a CorpusError."""
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as error:  # not gzip, truncated, unreadable
        raise CorpusError(f"{path} cannot be read ({error})") from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.rstrip(b"\r") for line in lines]


def decode_pairs(fr_lines: list[bytes], en_lines: list[bytes], drops: DropCounts) -> Iterator[tuple[str, str]]:
    """Aligned byte lines -> (fr, en) text; a pair with a side that is not UTF-8 is dropped and counted."""
    for fr, en in zip(fr_lines, en_lines):
        try:
            yield fr.decode("utf-8"), en.decode("utf-8")
        except UnicodeDecodeError:
            drops.add("bad UTF-8")


class Multi30k:
    """Multi30K task 1: line-aligned `<split>.fr` / `<split>.en`, plain or gzipped, with its own splits."""

    name = "multi30k"
    ORIGIN = "https://raw.githubusercontent.com/multi30k/dataset/master/data/task1/raw/"
    SHA256 = {
        "test_2016_flickr.en.gz": "611d361c6334bc7246101d48097c13cf5c4413c5befc793cc629934359d532d9",
        "test_2016_flickr.fr.gz": "6d326e188d259fb1d04ac19eae3af956559b3a0b93d7635e56c90987c40c8b90",
        "train.en.gz": "d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f",
        "train.fr.gz": "622e75069e9f4c577425c4f277116ce66e63a2401c0a2312d90073cb12379a3c",
        "val.en.gz": "14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28",
        "val.fr.gz": "ca3106f1a72390591d25f6c45cb4cd39dec4cd3f123e099748a3ce5256c160e9",
    }

    def __init__(self, train: str = "train", valid: str = "val", test: str = "test_2016_flickr",
                 max_words: Optional[int] = 80) -> None:
        require_counts(max_words=max_words)
        self.split_names = {"train": train, "valid": valid, "test": test}
        self.max_words = max_words

    def split_file(self, folder: Path, split: str, lang: str) -> Path:
        for suffix in (".gz", ""):
            path = folder / f"{split}.{lang}{suffix}"
            if path.exists():
                return path
        raise CorpusError(f"{folder} has no {split}.{lang} or {split}.{lang}.gz")

    def read_split(self, folder: Path, split: str, drops: DropCounts) -> list[Pair]:
        fr_path, en_path = self.split_file(folder, split, "fr"), self.split_file(folder, split, "en")
        fr_lines, en_lines = read_byte_lines(fr_path), read_byte_lines(en_path)
        if len(fr_lines) != len(en_lines):
            raise CorpusError(f"{fr_path} has {len(fr_lines)} lines but {en_path} has {len(en_lines)}; "
                              f"the files must be line-aligned")
        return clean_pairs(decode_pairs(fr_lines, en_lines, drops), drops, self.max_words)

    def load(self, data_path: Optional[str] = None) -> Splits:
        if data_path:
            folder = Path(data_path)
        else:
            remotes = [RemoteFile(f"{self.split_names[s]}.{lang}.gz", self.ORIGIN + f"{self.split_names[s]}.{lang}.gz",
                                  self.SHA256.get(f"{self.split_names[s]}.{lang}.gz"))
                       for s in ("train", "valid", "test") for lang in ("fr", "en")]
            folder = locate_corpus(self.name, remotes)
        drops = DropCounts()
        splits = Splits(*(self.read_split(folder, self.split_names[s], drops) for s in ("train", "valid", "test")))
        drops.log(str(folder))
        splits.check_not_empty(self.name)
        splits.dropped = dict(drops.reasons)
        return splits


class HuggingFace:
    """Any Hugging Face dataset with a `translation: {fr, en}` column (e.g. wmt14 fr-en, iwslt2017-fr-en).

    With `data.path` the dataset is read from disk (`DatasetDict.save_to_disk`), else from the hub by name.
    """

    name = "hf"

    def __init__(self, dataset: str = "wmt14", config: Optional[str] = "fr-en", train: str = "train",
                 valid: str = "validation", test: str = "test", max_words: Optional[int] = 80,
                 max_train_pairs: Optional[int] = None) -> None:
        require_counts(max_words=max_words, max_train_pairs=max_train_pairs)
        self.dataset, self.config = dataset, config
        self.split_names = {"train": train, "valid": valid, "test": test}
        self.max_words, self.max_train_pairs = max_words, max_train_pairs

    def load(self, data_path: Optional[str] = None) -> Splits:
        import datasets

        if data_path:
            if not Path(data_path).exists():
                raise CorpusError(f"data.path={data_path!r} does not exist (expected a dataset saved with "
                                  f"save_to_disk)")
            dataset_dict = datasets.load_from_disk(data_path)
        else:
            try:
                dataset_dict = datasets.load_dataset(self.dataset, self.config)
            except Exception as error:  # the hub raises many kinds; all mean the same to the user
                raise CorpusError(f"could not load {self.dataset!r} ({self.config}) from the Hugging Face hub: "
                                  f"{error}. Save it with save_to_disk on a connected machine and pass "
                                  f"data.path=FOLDER.") from None
        drops, splits = DropCounts(), {}
        for ours, theirs in self.split_names.items():
            if theirs not in dataset_dict:
                raise CorpusError(f"dataset has splits {list(dataset_dict)}, not {theirs!r} (data.corpus.{ours})")
            split = dataset_dict[theirs]
            if "translation" not in split.column_names:
                raise CorpusError(f"split {theirs!r} has columns {split.column_names}; a 'translation' column of "
                                  f"{{fr, en}} is required")
            if ours == "train" and self.max_train_pairs:
                split = split.select(range(min(self.max_train_pairs, len(split))))
            rows = split["translation"]
            splits[ours] = clean_pairs(((r.get("fr", ""), r.get("en", "")) for r in rows), drops, self.max_words)
        drops.log(self.dataset)
        result = Splits(**splits, dropped=dict(drops.reasons))
        result.check_not_empty(self.name)
        return result
