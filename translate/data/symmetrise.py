"""grow-diag-final-and (Koehn et al. 2003, as in Moses and fast_align's atools): one word alignment from the two
directional ones of a statistical aligner.

Start from the links both directions agree on (precise), grow into the union through neighbours (diagonal ones
included) that link a word not yet linked, then add union links whose two words are both still unlinked, first
from the forward alignment, then from the reverse one. Links are (source word, target word) index pairs.
"""
from __future__ import annotations

from typing import Iterable

Link = tuple[int, int]   # (source word, target word), from 0
NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def grow_diag_final_and(forward: Iterable[Link], reverse: Iterable[Link]) -> frozenset[Link]:
    forward, reverse = set(forward), set(reverse)
    union = forward | reverse
    links = forward & reverse
    linked_source = {s for s, _ in links}
    linked_target = {t for _, t in links}

    def add(link: Link) -> None:
        links.add(link)
        linked_source.add(link[0])
        linked_target.add(link[1])

    grown = True
    while grown:  # grow-diag: until no neighbour of a link can be added
        grown = False
        for s, t in sorted(links):
            for ds, dt in NEIGHBOURS:
                near = (s + ds, t + dt)
                if near in union and near not in links and (near[0] not in linked_source
                                                            or near[1] not in linked_target):
                    add(near)
                    grown = True
    for directional in (forward, reverse):  # final-and: both words still unlinked
        for s, t in sorted(directional):
            if s not in linked_source and t not in linked_target:
                add((s, t))
    return frozenset(links)
