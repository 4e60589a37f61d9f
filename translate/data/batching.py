"""Token-budget batches from length-sorted buckets, batch order shuffled per epoch (fairseq-style).

A batch of n sentences padded to length L costs n * L tokens; `max_tokens` bounds that on both sides.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class Batch:
    src: Tensor       # (B, Ts) source ids + eos, right-padded
    tgt_in: Tensor    # (B, Tt) bos + target ids
    tgt_out: Tensor   # (B, Tt) target ids + eos
    indices: list     # positions of these sentences in the dataset

    @property
    def target_tokens(self) -> int:
        return int(self.tgt_out.ne(0).sum())

    def to(self, device, non_blocking: bool = False) -> "Batch":
        move = lambda t: t.to(device, non_blocking=non_blocking)  # noqa: E731
        return Batch(move(self.src), move(self.tgt_in), move(self.tgt_out), self.indices)


def make_batches(src_lens: list[int], tgt_lens: list[int], max_tokens: int, seed: int,
                 max_sentences: int = 10_000, shuffle: bool = True) -> list[list[int]]:
    """Lists of dataset indices. Sentences are sorted by length (ties broken randomly by `seed`), cut into batches
    whose padded size n * max(len) stays within `max_tokens` on each side, and the batch order is shuffled."""
    rng = random.Random(seed)
    order = list(range(len(src_lens)))
    if shuffle:
        rng.shuffle(order)
    order.sort(key=lambda i: (src_lens[i], tgt_lens[i]))  # stable: ties keep the shuffled order
    batches, current, longest = [], [], 0
    for i in order:
        length = max(src_lens[i], tgt_lens[i])
        if length > max_tokens:
            raise ValueError(f"a sentence of {length} tokens exceeds train.max_tokens={max_tokens}; raise "
                             f"train.max_tokens or lower data.max_words")
        if current and (max(longest, length) * (len(current) + 1) > max_tokens or len(current) >= max_sentences):
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, length)
    if current:
        batches.append(current)
    if shuffle:
        rng.shuffle(batches)
    return batches


def padding_fraction(batches: list[list[int]], lens: list[int]) -> float:
    """Share of padded positions over all the batches' padded tensors."""
    real = sum(lens[i] for b in batches for i in b)
    padded = sum(len(b) * max(lens[i] for i in b) for b in batches)
    return 1.0 - real / max(padded, 1)


def collate(src: list[list[int]], tgt: list[list[int]], indices: list[int], pad_id: int, bos_id: int,
            eos_id: int) -> Batch:
    """Token id lists (without specials) -> padded tensors with eos / bos added."""
    n = len(indices)
    src_len = max(len(src[i]) for i in indices) + 1
    tgt_len = max(len(tgt[i]) for i in indices) + 1
    src_t = torch.full((n, src_len), pad_id, dtype=torch.long)
    tgt_in = torch.full((n, tgt_len), pad_id, dtype=torch.long)
    tgt_out = torch.full((n, tgt_len), pad_id, dtype=torch.long)
    for row, i in enumerate(indices):
        s, t = src[i], tgt[i]
        src_t[row, : len(s)] = torch.tensor(s, dtype=torch.long)
        src_t[row, len(s)] = eos_id
        tgt_in[row, 0] = bos_id
        tgt_in[row, 1: len(t) + 1] = torch.tensor(t, dtype=torch.long)
        tgt_out[row, : len(t)] = torch.tensor(t, dtype=torch.long)
        tgt_out[row, len(t)] = eos_id
    return Batch(src_t, tgt_in, tgt_out, list(indices))
