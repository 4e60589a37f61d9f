"""Which training pairs each step of this rank takes: each epoch's token-budget batches in an order fixed by the
seed, this rank's share of them, padded to a few fixed shapes when asked for (train.pad_shapes).

train.max_tokens and train.max_sentences bound a step over all ranks, so each rank's batches get 1/N of them
(translate.training.distributed); the share is computed once, here, for the batches and the fixed shapes alike."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from translate.data.batching import FixedShapes, make_batches
from translate.training import distributed
from translate.training.config import TrainConfig
from translate.training.device import Runtime


@dataclass(frozen=True)
class BatchPlan:
    lengths: tuple[list[int], list[int]]   # (source, target) tokens of each training pair, specials counted
    max_tokens: int                        # this rank's share of train.max_tokens
    max_sentences: int                     # this rank's share of train.max_sentences
    seed: int
    shapes: Optional[FixedShapes] = None   # fixed batch shapes (for compiled steps), or None
    rank: int = 0
    world_size: int = 1

    @classmethod
    def of(cls, train: TrainConfig, runtime: Runtime, lengths: tuple[list[int], list[int]], seed: int) -> "BatchPlan":
        max_tokens = distributed.rank_budget(train.max_tokens, runtime, "train.max_tokens")
        max_sentences = distributed.rank_budget(train.max_sentences, runtime, "train.max_sentences")
        shapes = FixedShapes(train.shape_multiple, max_tokens, max_sentences) if train.fixed_shapes_wanted() else None
        return cls(lengths, max_tokens, max_sentences, seed, shapes, runtime.rank, runtime.world_size)

    def epoch(self, epoch: int) -> list[list[int]]:
        """This rank's batches of `epoch`: the same for every run with the same seed."""
        batches = make_batches(*self.lengths, self.max_tokens, seed=self.seed * 100_003 + epoch,
                               max_sentences=self.max_sentences,
                               length_multiple=self.shapes.multiple if self.shapes else 1)
        world, rank = self.world_size, self.rank
        return batches[rank::world][: len(batches) // world] if world > 1 else batches

    @property
    def longest(self) -> int:
        """The longest side of any training pair, in tokens."""
        return max(max(lens) for lens in self.lengths)
