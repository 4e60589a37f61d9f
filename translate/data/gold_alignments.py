"""Human word alignments of French-English sentence pairs: the Hansards set of the HLT-NAACL 2003 shared task
(Och & Ney's annotation; 447 test pairs and a 37-pair trial set, `hansards_align/` of the data folder), Sure and
Possible links per pair.

The gold text is lower-cased and tokenised, with French contractions split into their parts (`de le`, `à les`,
`je ai`, `ce ne est`). A model reads French as written, so each pair's French is restored to its written words
(restore_contractions: `de le droit` -> `du droit`, `à le égard` -> `à l'égard`, `je en ai` -> `j'en ai`) and every
gold link on a part is moved to the written word that holds it; the English tokens are kept as they are (one gold
token, one whitespace word). What the restoration cannot know: `le` after `de` or `à` is taken for the article (`du`,
`au`), so a pronoun before an infinitive (`de le faire`) is merged wrongly, and every word starting with h elides the
word before it (`le homme` -> `l'homme`; an aspirated h, `le haut`, does not elide in French). Both are rare in this
set; a test names the rules.

Links are (French word, English word), counted from 0 on the restored French words and the English tokens, as the
silver links (silver_alignments.Links); `possible` holds the sure links too (Och & Ney: S ⊆ P).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SPLITS = ("trial", "test")
# article contractions: (preposition, article) -> the written word, unless the next word elides the article
ARTICLES = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}
# words written without their last vowel and with an apostrophe before a word starting with a vowel or h
ELIDING = {"le": "l'", "la": "l'", "de": "d'", "je": "j'", "me": "m'", "te": "t'", "se": "s'", "ne": "n'",
           "que": "qu'", "ce": "c'", "jusque": "jusqu'", "lorsque": "lorsqu'", "puisque": "puisqu'",
           "quoique": "quoiqu'"}
VOWEL_OR_H = re.compile(r"^[aeiouyhàâäéèêëîïôöùûüæœ]", re.IGNORECASE)


def elides_before(word: str) -> bool:
    return bool(VOWEL_OR_H.match(word))


def restore_contractions(tokens: list[str]) -> tuple[list[str], list[int]]:
    """Gold French tokens -> (the written words, for each token the index of the word that holds it)."""
    words: list[str] = []
    word_of: list[int] = []
    k = 0
    while k < len(tokens):
        token, following = tokens[k], tokens[k + 1] if k + 1 < len(tokens) else None
        after = tokens[k + 2] if k + 2 < len(tokens) else None
        if following is not None and (token, following) in ARTICLES and not (
                following == "le" and after is not None and elides_before(after)):
            words.append(ARTICLES[(token, following)])
            word_of += [len(words) - 1] * 2
            k += 2
            continue
        if following is not None and token in ELIDING and elides_before(following):
            words.append(ELIDING[token] + following)
            word_of += [len(words) - 1] * 2
            k += 2
            continue
        if token == "si" and following in ("il", "ils"):
            words.append("s'" + following)
            word_of += [len(words) - 1] * 2
            k += 2
            continue
        words.append(token)
        word_of.append(len(words) - 1)
        k += 1
    return words, word_of


@dataclass(frozen=True)
class GoldPair:
    french: str                       # as written (restore_contractions), whitespace words
    english: str                      # the gold's English tokens
    sure: frozenset                   # of (French word, English word)
    possible: frozenset               # sure links included


def read_links(path: Path) -> dict[int, list[tuple[int, int, str]]]:
    """`sentence english french S|P` lines, positions from 1 -> {sentence: [(english, french, kind)]}, from 0."""
    links: dict[int, list[tuple[int, int, str]]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 4 or fields[3] not in ("S", "P"):
            raise ValueError(f"{path}:{number}: expected 'sentence english french S|P', got {line!r}")
        sentence, english, french = int(fields[0]), int(fields[1]), int(fields[2])
        if english < 1 or french < 1:   # the .nonullalign files hold no NULL links; a 0 would be one
            raise ValueError(f"{path}:{number}: positions count from 1, got {line!r}")
        links.setdefault(sentence, []).append((english - 1, french - 1, fields[3]))
    return links


def read_gold(folder: Path, split: str) -> list[GoldPair]:
    """The pairs of `split` (trial or test) of the gold folder, French restored, links on its written words."""
    if split not in SPLITS:
        raise ValueError(f"gold alignment split {split!r} is not one of {', '.join(SPLITS)}")
    folder = Path(folder)
    french_lines = (folder / f"{split}.fr").read_text(encoding="utf-8").splitlines()
    english_lines = (folder / f"{split}.en").read_text(encoding="utf-8").splitlines()
    if len(french_lines) != len(english_lines):
        raise ValueError(f"{folder}: {split}.fr has {len(french_lines)} lines, {split}.en {len(english_lines)}")
    links = read_links(folder / f"{split}.wa.nonullalign")
    pairs = []
    for index, (fr, en) in enumerate(zip(french_lines, english_lines), 1):
        tokens, english = fr.split(), en.split()
        words, word_of = restore_contractions(tokens)
        sure, possible = set(), set()
        for e, f, kind in links.get(index, []):
            if e >= len(english) or f >= len(tokens):
                raise ValueError(f"{folder}/{split}.wa.nonullalign: sentence {index} links English {e + 1} and "
                                 f"French {f + 1}, beyond its {len(english)} and {len(tokens)} tokens")
            link = (word_of[f], e)
            possible.add(link)
            if kind == "S":
                sure.add(link)
        pairs.append(GoldPair(" ".join(words), " ".join(english), frozenset(sure), frozenset(possible)))
    return pairs
