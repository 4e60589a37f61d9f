"""Silver word alignments of French-English pairs: eflomal (Östling & Tiedemann 2016, a Bayesian IBM/HMM/fertility
aligner) run in both directions on the whitespace words of the cleaned pairs, symmetrised with grow-diag-final-and,
cached by a hash of the pairs and the settings (like the SentencePiece model).

Silver, not gold: the links of an unsupervised statistical aligner, a shared yardstick for comparing models on the
same sentences, not a human annotation (no sure/possible distinction; function words and idioms are often unlinked or
linked loosely). The aligner learns from the run's training pairs plus the pairs it must align (unlabelled text, so
nothing of a test set reaches a translation model). eflomal samples without a fixed seed (it reads /dev/urandom and
takes none): two alignments of the same pairs differ slightly (about 0.003 AER), which is why the first result is kept
and reused. A comparison whose jobs train on different machines or in different sessions must score them against the
same links: its links are pinned, committed in data/silver/ under the same name as in the cache, and read from there
before the cache (translate.study pin-alignments).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
import unicodedata
from pathlib import Path

from translate.data.cleaning import Pair
from translate.data.locate import REPO_ROOT
from translate.data.symmetrise import grow_diag_final_and
from translate.io import atomic_write_text

log = logging.getLogger(__name__)

# Committed links, read before the cache: the same yardstick for every job of a comparison, wherever it ran.
PINNED_DIR = REPO_ROOT / "data" / "silver"
Links = frozenset  # of (French word, English word) index pairs; whitespace words counted from 0
# What the links depend on besides the pairs: changing any of these makes a new cache file.
ALIGNER_SETTINGS = {"aligner": "eflomal", "model": 3, "n_samplers": 3, "null_prior": 0.2,
                    "symmetrisation": "grow-diag-final-and", "words": "whitespace, outer punctuation stripped",
                    "format": 1}


class AlignerMissing(RuntimeError):
    """eflomal cannot be imported (it compiles with gcc and Cython when pip installs it)."""


def aligner_word(word: str) -> str:
    """The form the aligner counts: "chat," and "chat" are one word to it (eflomal lowercases by itself). A word of
    punctuation only stays as it is, so every sentence keeps its number of words."""
    core = word.strip("".join(c for c in set(word) if unicodedata.category(c).startswith("P")))
    return core or word


def aligner_line(sentence: str) -> str:
    return " ".join(aligner_word(w) for w in sentence.split())


def parse_links(line: str) -> set[tuple[int, int]]:
    """Pharaoh format "0-0 1-2" -> {(0, 0), (1, 2)}."""
    return {(int(s), int(t)) for s, t in (link.split("-") for link in line.split())}


def pharaoh(links: Links) -> str:
    return " ".join(f"{s}-{t}" for s, t in sorted(links))


def run_eflomal(pairs: list[Pair]) -> tuple[list[str], list[str]]:
    """Forward (French -> English) and reverse links of every pair, in Pharaoh lines, both as (French, English)."""
    try:
        from eflomal import Aligner
    except ImportError as error:
        raise AlignerMissing(f"the word aligner eflomal is not installed ({error}); install it with "
                             f"`pip install eflomal` (needs gcc)") from None
    aligner = Aligner(model=ALIGNER_SETTINGS["model"], n_samplers=ALIGNER_SETTINGS["n_samplers"],
                      null_prior=ALIGNER_SETTINGS["null_prior"])
    with tempfile.TemporaryDirectory() as folder:
        forward, reverse = Path(folder) / "forward", Path(folder) / "reverse"
        aligner.align([aligner_line(p.fr) for p in pairs], [aligner_line(p.en) for p in pairs],
                      links_filename_fwd=str(forward), links_filename_rev=str(reverse), quiet=True)
        forward_lines = forward.read_text(encoding="utf-8").splitlines()
        reverse_lines = reverse.read_text(encoding="utf-8").splitlines()
    if not len(forward_lines) == len(reverse_lines) == len(pairs):
        raise RuntimeError(f"eflomal wrote {len(forward_lines)} forward and {len(reverse_lines)} reverse lines for "
                           f"{len(pairs)} pairs")
    return forward_lines, reverse_lines


def alignment_key(train: list[Pair], to_align: list[Pair]) -> str:
    digest = hashlib.sha256(json.dumps(ALIGNER_SETTINGS, sort_keys=True).encode())
    for part in (train, to_align):
        digest.update(f"{len(part)}\n".encode())
        for p in part:
            digest.update(f"{p.fr}\t{p.en}\n".encode())
    return digest.hexdigest()[:16]


def cached_alignment_path(train: list[Pair], to_align: list[Pair], cache_dir: Path) -> Path:
    return Path(cache_dir) / f"silver-eflomal-{alignment_key(train, to_align)}.json"


def read_cached(path: Path, expected: int) -> list[Links]:
    try:
        lines = json.loads(path.read_text(encoding="utf-8"))["links"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"silver alignment cache {path} cannot be read ({error}); delete it to align again") from None
    if len(lines) != expected:
        raise ValueError(f"silver alignment cache {path} holds {len(lines)} sentences, not {expected}; delete it")
    return [Links(parse_links(line)) for line in lines]


def align_pairs(train: list[Pair], to_align: list[Pair]) -> list[Links]:
    """Train eflomal on train + to_align (both directions), return the symmetrised links of to_align."""
    started = time.perf_counter()
    forward, reverse = run_eflomal(train + to_align)
    first = len(train)
    links = [Links(grow_diag_final_and(parse_links(f), parse_links(r)))
             for f, r in zip(forward[first:], reverse[first:])]
    log.info("eflomal aligned %d pairs (%d trained on) in %.1f s", len(to_align), len(train) + len(to_align),
             time.perf_counter() - started)
    return links


def silver_alignments(train: list[Pair], groups: list[list[Pair]], cache_dir: Path,
                      pinned_dir: Path = PINNED_DIR) -> list[list[Links]]:
    """Silver links of every pair of every group (e.g. the valid split and each test set), from one aligner trained
    on `train` plus all of them; read from `pinned_dir` when these pairs' links are pinned there, else reused from
    `cache_dir` when the same pairs were aligned before."""
    to_align = [p for group in groups for p in group]
    path = cached_alignment_path(train, to_align, cache_dir)
    pinned = Path(pinned_dir) / path.name
    if pinned.exists():
        log.info("reading pinned silver alignments %s", pinned)
        path = pinned
    elif path.exists():
        log.info("reusing silver alignments %s", path)
    else:
        text = json.dumps({"settings": ALIGNER_SETTINGS, "sentences": len(to_align),
                           "links": [pharaoh(links) for links in align_pairs(train, to_align)]})
        own = path.with_name(f".{path.name}.{os.getpid()}.part")
        atomic_write_text(own, text)
        try:  # the first writer wins, so that parallel jobs (and DDP ranks) all read the same sampled links
            os.link(own, path)
        except FileExistsError:
            log.info("another process saved silver alignments %s first; using them", path)
        finally:
            own.unlink(missing_ok=True)
    flat = read_cached(path, len(to_align))
    out, start = [], 0
    for group in groups:
        out.append(flat[start:start + len(group)])
        start += len(group)
    return out


def pin_alignments(train: list[Pair], groups: list[list[Pair]], cache_dir: Path, pinned_dir: Path = PINNED_DIR
                   ) -> Path:
    """Commit-ready copy of these pairs' links in `pinned_dir` (aligned first when neither place has them): from then
    on every run with the same pairs reads these links. A file pinned before is kept, never redrawn."""
    silver_alignments(train, groups, cache_dir, pinned_dir)
    name = cached_alignment_path(train, [p for group in groups for p in group], cache_dir).name
    pinned = Path(pinned_dir) / name
    if not pinned.exists():
        Path(pinned_dir).mkdir(parents=True, exist_ok=True)
        atomic_write_text(pinned, (Path(cache_dir) / name).read_text(encoding="utf-8"))
    return pinned
