"""The decoder's key/value cache (translate/model/cache.py): growth, reordering, cross-attention computed once."""
from __future__ import annotations

import torch

from translate.encodings.sinusoidal import Sinusoidal
from translate.model.config import ModelConfig
from translate.model.cache import DecoderCache, KeyValues
from translate.model.transformer import Transformer

PAD, BOS, EOS, VOCAB = 0, 2, 3, 40
B, H, DH = 3, 2, 4


def rows(batch: int, steps: int, offset: float = 0.0) -> torch.Tensor:
    """(batch, H, steps, Dh) whose every entry in row b is b + offset: a row's origin can be read off its values."""
    return (torch.arange(batch, dtype=torch.float)[:, None, None, None] + offset).expand(batch, H, steps, DH).clone()


def test_self_attention_keys_grow_by_step_and_reorder_by_row():
    kv = KeyValues()
    k, v = kv.append(rows(B, 1), rows(B, 1, offset=10))
    assert k.shape == (B, H, 1, DH)
    k, v = kv.append(rows(B, 2, offset=0.5), rows(B, 2, offset=10.5))
    assert k.shape == v.shape == (B, H, 3, DH) and kv.k is k and kv.v is v
    torch.testing.assert_close(k[:, :, :1], rows(B, 1))  # earlier steps first
    kv.reorder(torch.tensor([2, 0, 0]))
    assert kv.k[:, 0, 0, 0].tolist() == [2.0, 0.0, 0.0]
    assert kv.v[:, 0, 2, 0].tolist() == [12.5, 10.5, 10.5]


def test_cross_attention_keys_are_computed_once():
    kv, calls = KeyValues(), []

    def compute():
        calls.append(1)
        return rows(B, 5), rows(B, 5, offset=10)
    first = kv.computed_once(compute)
    second = kv.computed_once(compute)
    assert len(calls) == 1 and first[0] is second[0] and first[1] is second[1]


def test_an_empty_cache_reorders_to_an_empty_cache():
    kv = KeyValues()
    kv.reorder(torch.tensor([0, 0]))
    assert kv.k is None and kv.v is None


def test_decoder_cache_makes_layers_on_demand_and_reorders_all_of_them():
    cache = DecoderCache()
    assert cache.for_layer(1) is cache.for_layer(1) and len(cache.layers) == 2
    for layer in cache.layers:
        layer.self_attention.append(rows(B, 2), rows(B, 2))
        layer.cross_attention.computed_once(lambda: (rows(B, 5), rows(B, 5)))
    cache.reorder(torch.tensor([1, 1, 2]))
    for layer in cache.layers:
        for kv in (layer.self_attention, layer.cross_attention):
            assert kv.k[:, 0, 0, 0].tolist() == kv.v[:, 0, 0, 0].tolist() == [1.0, 1.0, 2.0]


def small_model() -> Transformer:
    torch.manual_seed(0)
    return Transformer(VOCAB, PAD, Sinusoidal(32, 4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=1, n_decoder_layers=2,
                       d_ff=64, dropout=0.0)).eval()


@torch.no_grad()
def test_decoding_projects_the_memory_once_per_layer():
    model = small_model()
    src = torch.tensor([[5, 6, 7, EOS], [8, 9, EOS, PAD]])
    projections = []
    for layer in model.decoder_layers:
        layer.cross_attn.kv_proj.register_forward_hook(lambda *_: projections.append(1))
    encoded, cache = model.encode(src), DecoderCache()
    for t, token in enumerate([BOS, 11, 12]):
        model.decode(torch.full((2, 1), token), encoded, cache=cache, start=t)
    assert len(projections) == len(model.decoder_layers)
    assert [layer.self_attention.k.size(2) for layer in cache.layers] == [3, 3]
    assert [layer.cross_attention.k.size(2) for layer in cache.layers] == [src.size(1)] * 2


@torch.no_grad()
def test_a_reordered_cache_continues_the_reordered_prefixes():
    """What beam search relies on: after reorder(index) the next step is that of the prefixes ys[index]."""
    model = small_model()
    src = torch.tensor([[5, 6, 7, EOS], [8, 9, EOS, PAD], [10, EOS, PAD, PAD]])
    ys = torch.tensor([[BOS, 11, 12], [BOS, 13, 14], [BOS, 15, 16]])
    encoded, cache = model.encode(src), DecoderCache()
    for t in range(ys.size(1)):
        model.decode(ys[:, t:t + 1], encoded, cache=cache, start=t)
    index = torch.tensor([2, 0, 0])
    cache.reorder(index)
    nxt = torch.tensor([[17], [18], [19]])
    cached = model.decode(nxt, encoded.select(index), cache=cache, start=ys.size(1)).hidden[:, -1]
    full = model.decode(torch.cat([ys.index_select(0, index), nxt], dim=1), encoded.select(index)).hidden[:, -1]
    torch.testing.assert_close(cached, full, atol=1e-5, rtol=1e-5)
