"""Attention weights of a model re-reading its own hypotheses (teacher-forced on them).

Decoding is causal and deterministic in eval mode, so forcing the finished hypothesis gives exactly the weights
the model used while producing it, for all sentences of a batch in one forward pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import torch
from torch import Tensor

from translate.data.batching import collate
from translate.data.tokenizer import Tokenizer
from translate.decoding.translator import length_batches
from translate.model.transformer import Transformer


@dataclass
class SentenceAttention:
    """One sentence's weights, padding removed. L layers, H heads, Ts = source + eos, Tt = bos + hypothesis."""

    encoder: Tensor   # (L, H, Ts, Ts)
    decoder: Tensor   # (L, H, Tt, Tt)
    cross: Tensor     # (L, H, Tt, Ts); row i is the query that produces output token i (hypothesis + eos)
    # teacher-forced token accuracy: the share of output tokens (hypothesis + eos) the model ranks first
    token_accuracy: Optional[float] = None


@torch.no_grad()
def forced_attention(model: Transformer, tokenizer: Tokenizer, src_ids: list[list[int]],
                     hyp_ids: list[list[int]], batch_tokens: int = 4000, token_accuracy: bool = False
                     ) -> Iterator[tuple[int, SentenceAttention]]:
    """Source and hypothesis id lists (no specials) -> (index, SentenceAttention) for every sentence, batch by batch
    (sorted by length) so that a whole test set never sits in memory at once. token_accuracy: also project the
    decoder's states onto the vocabulary (about as much work again for a small model) to count the hits."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    lengths = [max(len(s) + 1, len(h) + 1) for s, h in zip(src_ids, hyp_ids)]
    try:
        for indices in length_batches(lengths, batch_tokens):
            batch = collate(src_ids, hyp_ids, indices, tokenizer.pad_id, tokenizer.bos_id, tokenizer.eos_id)
            src, tgt_in = batch.src.to(device), batch.tgt_in.to(device)
            encoded = model.encode(src, need_weights=True)
            decoded = model.decode(tgt_in, encoded, need_weights=True)
            enc = torch.stack(encoded.weights, 1).float().cpu()         # (B, L, H, Ts, Ts)
            dec = torch.stack(decoded.self_weights, 1).float().cpu()    # (B, L, H, Tt, Tt)
            cross = torch.stack(decoded.cross_weights, 1).float().cpu()  # (B, L, H, Tt, Ts)
            hits = (model.project(decoded.hidden).argmax(-1).eq(batch.tgt_out.to(device)).cpu()   # (B, Tt)
                    if token_accuracy else None)
            for row, i in enumerate(indices):
                ts, tt = len(src_ids[i]) + 1, len(hyp_ids[i]) + 1
                yield i, SentenceAttention(enc[row, :, :, :ts, :ts], dec[row, :, :, :tt, :tt],
                                           cross[row, :, :, :tt, :ts],
                                           None if hits is None else float(hits[row, :tt].float().mean()))
    finally:
        model.train(was_training)
