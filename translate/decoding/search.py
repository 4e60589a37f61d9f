"""Batched greedy and beam search with cached decoder keys/values.

Each takes the model, the source batch (B, Ts), the special ids and one DecodeSettings. `use_cache=False` re-runs
the decoder over the whole prefix at every step; it exists to test and benchmark the cache.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from translate.decoding.length import max_output_tokens_per_sentence
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.model.cache import DecoderCache
from translate.model.transformer import Encoded, Transformer


def length_limits(model: Transformer, src: Tensor, pad_id: int, settings: DecodeSettings) -> Tensor:
    """(B,) most output tokens per sentence (eos included), by the rule of decoding.length."""
    return max_output_tokens_per_sentence(src.ne(pad_id).sum(1), settings.max_length_ratio,
                                          settings.max_length_extra, model.encoding.max_positions)


def _step_log_probs(model: Transformer, ys: Tensor, encoded: Encoded, cache: Optional[DecoderCache]) -> Tensor:
    """Log-probabilities (N, V) of the next token after the prefixes ys (N, t)."""
    if cache is not None:
        hidden = model.decode(ys[:, -1:], encoded, cache=cache, start=ys.size(1) - 1).hidden
    else:
        hidden = model.decode(ys, encoded).hidden
    return model.project(hidden[:, -1]).float().log_softmax(-1)


def search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
           use_cache: bool = True) -> list[list[int]]:
    """greedy_search when settings.beam_size is 1 (what beam search would find, faster), else beam_search."""
    pick = greedy_search if settings.beam_size == 1 else beam_search
    return pick(model, src, specials=specials, settings=settings, use_cache=use_cache)


@torch.no_grad()
def greedy_search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
                  use_cache: bool = True) -> list[list[int]]:
    """src (B, Ts) -> one token list per sentence, without bos/eos. settings.beam_size is not read."""
    bos_id, eos_id, pad_id = specials.bos_id, specials.eos_id, specials.pad_id
    encoded = model.encode(src)
    limits = length_limits(model, src, pad_id, settings)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    cache = DecoderCache() if use_cache else None
    for t in range(int(limits.max())):
        log_probs = _step_log_probs(model, ys, encoded, cache)
        next_tokens = log_probs.argmax(-1)
        next_tokens = torch.where(t + 1 >= limits, torch.full_like(next_tokens, eos_id), next_tokens)
        next_tokens = next_tokens.masked_fill(finished, pad_id)
        ys = torch.cat([ys, next_tokens[:, None]], dim=1)
        finished |= next_tokens.eq(eos_id)
        if bool(finished.all()):
            break
    return [strip_specials(row, eos_id, pad_id) for row in ys[:, 1:].tolist()]


def strip_specials(tokens: list[int], eos_id: int, pad_id: int) -> list[int]:
    out = []
    for tok in tokens:
        if tok in (eos_id, pad_id):
            break
        out.append(tok)
    return out


def length_penalty(length: int, alpha: float) -> float:
    """GNMT (Wu et al. 2016): ((5 + length) / 6) ** alpha; alpha 0 disables normalisation."""
    return ((5 + length) / 6) ** alpha


@torch.no_grad()
def beam_search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
                use_cache: bool = True) -> list[list[int]]:
    """Batched beam search; a sentence is done once it holds `settings.beam_size` finished hypotheses.

    With beam_size 1 it returns exactly what greedy_search returns.
    """
    bos_id, eos_id, pad_id = specials.bos_id, specials.eos_id, specials.pad_id
    alpha = settings.length_penalty
    batch, k, device = src.size(0), settings.beam_size, src.device
    limits = length_limits(model, src, pad_id, settings).repeat_interleave(k)  # (B*K,)
    encoded = model.encode(src).select(torch.arange(batch, device=device).repeat_interleave(k))
    ys = torch.full((batch * k, 1), bos_id, dtype=torch.long, device=device)
    scores = torch.zeros(batch, k, device=device)
    scores[:, 1:] = float("-inf")  # all beams start identical: expand only the first
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(batch)]
    done = torch.zeros(batch, dtype=torch.bool, device=device)
    cache = DecoderCache() if use_cache else None
    for t in range(int(limits.max())):
        log_probs = _step_log_probs(model, ys, encoded, cache)  # (B*K, V)
        at_limit = (t + 1 >= limits)[:, None]
        if bool(at_limit.any()):  # past the length limit only eos remains
            eos_only = torch.full_like(log_probs, float("-inf"))
            eos_only[:, eos_id] = 0.0
            log_probs = torch.where(at_limit, eos_only, log_probs)
        vocab = log_probs.size(-1)
        candidates = (scores.view(-1, 1) + log_probs).view(batch, k * vocab)
        top_scores, top_index = candidates.topk(2 * k, dim=-1)  # (B, 2K)
        top_beams, top_tokens = top_index // vocab, top_index % vocab
        is_eos = top_tokens.eq(eos_id)
        for b, rank in is_eos.nonzero().tolist():
            if done[b] or rank >= k:  # an eos ranked below the k best cannot beat the live beams
                continue
            beam_row = b * k + int(top_beams[b, rank])
            tokens = ys[beam_row, 1:].tolist()
            finished[b].append((float(top_scores[b, rank]) / length_penalty(len(tokens) + 1, alpha), tokens))
        live_scores = top_scores.masked_fill(is_eos, float("-inf"))
        scores, pick = live_scores.topk(k, dim=-1)  # (B, K)
        beam_index = (top_beams.gather(1, pick) + torch.arange(batch, device=device)[:, None] * k).view(-1)
        ys = torch.cat([ys.index_select(0, beam_index), top_tokens.gather(1, pick).view(-1, 1)], dim=1)
        if cache is not None:
            cache.reorder(beam_index)
        done |= torch.tensor([len(f) >= k for f in finished], device=device)
        if bool(done.all()):
            break
    results = []
    for b in range(batch):
        if finished[b]:
            results.append(max(finished[b], key=lambda item: item[0])[1])
        else:
            results.append(ys[b * k, 1:].tolist())
    return results
