"""Pairs that are not independent: connected components of the bipartite English-French sentence graph (a pair is
an edge; a chain en1-fr1-en2-fr2 is one component). Splits keep components whole, so that no sentence is in two
splits, and the bootstrap resamples a component as one group."""
from __future__ import annotations

from translate.data.cleaning import Pair


def component_ids(pairs: list[Pair]) -> list[int]:
    """A label per pair (the index of one pair of its component): equal labels, same component."""
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving keeps the trees shallow
            i = parent[i]
        return i

    first: dict[tuple[str, str], int] = {}
    for i, pair in enumerate(pairs):
        for node in (("en", pair.en), ("fr", pair.fr)):
            parent[root(i)] = root(first.setdefault(node, i))
    return [root(i) for i in range(len(pairs))]


def sentence_components(pairs: list[Pair]) -> list[list[int]]:
    """Indices of `pairs` grouped by component, each in corpus order; components ordered by their first pair."""
    members: dict[int, list[int]] = {}
    for i, c in enumerate(component_ids(pairs)):
        members.setdefault(c, []).append(i)
    return list(members.values())
