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


def _step_logits(model: Transformer, ys: Tensor, encoded: Encoded, cache: Optional[DecoderCache]) -> Tensor:
    """Scores (N, V) of the next token after the prefixes ys (N, t), before the softmax."""
    if cache is not None:
        hidden = model.decode(ys[:, -1:], encoded, cache=cache, start=ys.size(1) - 1).hidden
    else:
        hidden = model.decode(ys, encoded).hidden
    return model.project(hidden[:, -1]).float()


def search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
           use_cache: bool = True) -> list[list[int]]:
    """greedy_search when settings.beam_size is 1 (what beam search would find, faster), else beam_search."""
    pick = greedy_search if settings.beam_size == 1 else beam_search
    return pick(model, src, specials=specials, settings=settings, use_cache=use_cache)


@torch.inference_mode()
def greedy_search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
                  use_cache: bool = True) -> list[list[int]]:
    """src (B, Ts) -> one token list per sentence, without bos/eos. settings.beam_size is not read.

    A sentence leaves the batch at its eos (its rows of the memory and the cache with it), so the steps after it
    cost only what the sentences still being written need.
    """
    bos_id, eos_id, pad_id = specials.bos_id, specials.eos_id, specials.pad_id
    encoded = model.encode(src)
    limits = length_limits(model, src, pad_id, settings)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    sentence = list(range(src.size(0)))  # the sentence each row of ys writes
    results: list[list[int]] = [[] for _ in sentence]
    cache = DecoderCache() if use_cache else None
    for t in range(int(limits.max())):
        logits = _step_logits(model, ys, encoded, cache)  # the softmax keeps the order: argmax without it
        next_tokens = logits.argmax(-1).masked_fill(t + 1 >= limits, eos_id)
        ys = torch.cat([ys, next_tokens[:, None]], dim=1)
        ended = next_tokens.eq(eos_id)
        if not bool(ended.any()):
            continue
        ended_rows = ended.nonzero().view(-1).tolist()
        for row, tokens in zip(ended_rows, ys[ended_rows, 1:].tolist()):
            results[sentence[row]] = strip_specials(tokens, eos_id, pad_id)
        if len(ended_rows) == len(sentence):
            break
        keep = ended.logical_not().nonzero().view(-1)
        gone = set(ended_rows)
        sentence = [s for row, s in enumerate(sentence) if row not in gone]
        ys, limits, encoded = ys.index_select(0, keep), limits.index_select(0, keep), encoded.select(keep)
        if cache is not None:
            cache.reorder(keep)
    return results


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


@torch.inference_mode()
def beam_search(model: Transformer, src: Tensor, *, specials: SpecialIds, settings: DecodeSettings,
                use_cache: bool = True) -> list[list[int]]:
    """Batched beam search; a sentence is done once it holds `settings.beam_size` finished hypotheses.

    With beam_size 1 it returns exactly what greedy_search returns. The first step scores one row per sentence (its
    K hypotheses are the same prefix until then); a done sentence leaves the batch (its K rows of the memory and the
    cache with it).
    """
    bos_id, eos_id, pad_id = specials.bos_id, specials.eos_id, specials.pad_id
    alpha = settings.length_penalty
    batch, k, device = src.size(0), settings.beam_size, src.device
    limits = length_limits(model, src, pad_id, settings)  # (N,), then (N*K,) from the first step on
    encoded = model.encode(src)
    ys = torch.full((batch, 1), bos_id, dtype=torch.long, device=device)
    scores = torch.zeros(batch, 1, device=device)  # (N, hypotheses per sentence): 1 until the first step expands
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(batch)]
    sentence = list(range(batch))  # the sentence of each group of K rows still searching
    results: list[list[int]] = [[] for _ in range(batch)]
    cache = DecoderCache() if use_cache else None
    for t in range(int(limits.max())):
        n = len(sentence)
        width = scores.size(1)  # 1 at the first step, then K
        log_probs = _step_logits(model, ys, encoded, cache).log_softmax(-1)  # (N*width, V)
        at_limit = (t + 1 >= limits).nonzero().view(-1)
        if at_limit.numel():  # past the length limit only eos remains
            log_probs[at_limit] = float("-inf")
            log_probs[at_limit, eos_id] = 0.0
        vocab = log_probs.size(-1)
        candidates = log_probs.add_(scores.view(-1, 1)).view(n, width * vocab)
        top_scores, top_index = candidates.topk(2 * k, dim=-1)  # (N, 2K)
        top_beams, top_tokens = top_index // vocab, top_index % vocab
        is_eos = top_tokens.eq(eos_id)
        for b, rank in is_eos.nonzero().tolist():
            if rank >= k:  # an eos ranked below the k best cannot beat the live beams
                continue
            beam_row = b * width + int(top_beams[b, rank])
            tokens = ys[beam_row, 1:].tolist()
            finished[sentence[b]].append((float(top_scores[b, rank]) / length_penalty(len(tokens) + 1, alpha),
                                          tokens))
        live_scores = top_scores.masked_fill(is_eos, float("-inf"))
        scores, pick = live_scores.topk(k, dim=-1)  # (N, K)
        beam_index = (top_beams.gather(1, pick) + torch.arange(n, device=device)[:, None] * width).view(-1)
        ys = torch.cat([ys.index_select(0, beam_index), top_tokens.gather(1, pick).view(-1, 1)], dim=1)
        if width == 1:  # one row per sentence becomes K: every row of the memory and the cache too
            limits, encoded = limits.index_select(0, beam_index), encoded.select(beam_index)
            if cache is not None:
                cache.reorder(beam_index)
        elif cache is not None:
            cache.reorder_within_sentences(beam_index)
        done = [len(finished[s]) >= k for s in sentence]
        if not any(done):
            continue
        for b, is_done in enumerate(done):
            if is_done:
                results[sentence[b]] = max(finished[sentence[b]], key=lambda item: item[0])[1]
        if all(done):
            sentence = []
            break
        kept = [b for b, is_done in enumerate(done) if not is_done]
        keep = (torch.tensor(kept, device=device)[:, None] * k + torch.arange(k, device=device)).view(-1)
        sentence = [sentence[b] for b in kept]
        scores = scores[kept]
        ys, limits, encoded = ys.index_select(0, keep), limits.index_select(0, keep), encoded.select(keep)
        if cache is not None:
            cache.reorder(keep)
    for b, s in enumerate(sentence):  # still searching at the last step
        results[s] = max(finished[s], key=lambda item: item[0])[1] if finished[s] else ys[b * k, 1:].tolist()
    return results
