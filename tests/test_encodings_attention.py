"""Encodings inside attention: each works through encoder, decoder and cached decoding, and has its defining
property (offset-only logits, ALiBi's geometric slopes, T5's buckets, Shaw's clipping, xPos's decay, URPE's
Toeplitz matrix, ...), checked against the paper's formula written out naively on small tensors."""
from __future__ import annotations

import math

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from translate.assembly.builders import Component
from conftest import make_config
from translate.decoding.search import greedy_search
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.encodings.base import NO_TERMS
from translate.encodings.cope import CoPE, gated_counts
from translate.encodings.alibi import ALiBi, alibi_slopes
from translate.encodings.deberta import DeBERTa, log_bucket
from translate.encodings.fire import Fire
from translate.encodings.kerple import Kerple
from translate.encodings.nezha import Nezha
from translate.encodings.relative import LayerCopies, expand_index, relative_shift, sinusoid_table
from translate.encodings.rope import RoPE
from translate.encodings.shaw import Shaw
from translate.encodings.t5 import T5, t5_bucket
from translate.encodings.transformer_xl import TransformerXL
from translate.encodings.tupe import TUPE
from translate.encodings.urpe import URPE
from translate.encodings.xpos import XPos
from translate.model.attention import attend
from translate.assembly.builders import build_encoding
from translate.model.cache import DecoderCache
from translate.assembly.trainer import model_from_config

PAD, BOS, EOS, VOCAB = 0, 2, 3, 40
SPECIALS = SpecialIds(bos_id=BOS, eos_id=EOS, pad_id=PAD)
GREEDY = DecodeSettings()
ATTENTION_ENCODINGS = ["shaw", "nezha", "transformer_xl", "deberta", "tupe", "t5", "alibi", "kerple", "fire", "urpe",
                       "rope", "xpos", "cope"]
# Logits depend on the offset i - j only (TUPE adds an absolute correlation; FIRE only below its threshold L; CoPE
# reads no position id at all: it counts gates on the context).
OFFSET_ONLY = [name for name in ATTENTION_ENCODINGS if name not in ("tupe", "cope")]
D, H = 32, 4
DH = D // H



def build(name: str, *overrides: str, seed: int = 0):
    torch.manual_seed(seed)
    cfg = make_config("model=tiny", f"encoding={name}", "model.dropout=0.0", *overrides)
    return model_from_config(cfg, VOCAB, PAD)


def encoding_of(name: str, *overrides: str, seed: int = 0):
    """The encoding alone, at width D with H heads (the tensors of `random_qkv`)."""
    torch.manual_seed(seed)
    cfg = make_config(f"encoding={name}", *overrides)
    return build_encoding(Component.of(cfg.encoding, "encoding"), Component.of(cfg.ablation, "ablation"), D, H)


def random_qkv(tq: int, tk: int, batch: int = 2, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, H, tq, DH, generator=g), torch.randn(batch, H, tk, DH, generator=g),
            torch.randn(batch, H, tk, DH, generator=g))


def attention(encoding, kind: str, q_positions, k_positions, q, k, v):
    """(output, probabilities) of one attention with the encoding's terms: everything a term can change."""
    terms = encoding.attention_terms(kind, q_positions, k_positions)
    return attend(q, k, v, terms.bias, terms, 0.0, need_weights=True)


def source_batch():
    g = torch.Generator().manual_seed(0)
    rows = [torch.randint(4, VOCAB, (n,), generator=g).tolist() + [EOS] for n in (7, 3, 5, 9)]
    width = max(map(len, rows))
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


# -- every encoding: forward, backward, cached decoding -----------------------------------------------------------

@pytest.mark.parametrize("name", ATTENTION_ENCODINGS)
def test_forward_and_backward_through_encoder_and_decoder(name):
    model = build(name, "encoding.cross_attention=true")
    src, tgt = source_batch(), torch.randint(4, VOCAB, (4, 6))
    hidden = model(src, tgt)
    assert hidden.shape == (4, 6, 64) and torch.isfinite(hidden).all()
    model.project(hidden).logsumexp(-1).mean().backward()
    for pname, p in model.encoding.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), pname
        assert p.grad.abs().sum() > 0, f"{pname} gets no gradient"


@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("name", ATTENTION_ENCODINGS)
def test_cached_decoding_equals_uncached(name, cross):
    check_cached_decoding(build(name, f"encoding.cross_attention={str(cross).lower()}", seed=1).eval(), cross)


# Every option that is not its encoding's default (issue 16), as Hydra overrides.
OPTIONS = [("shaw", "encoding.per_layer=false"), ("transformer_xl", "encoding.per_layer=false"),
           ("deberta", "encoding.per_layer=false"), ("deberta", "encoding.p2c_delta=i_j"),
           ("deberta", "encoding.relative_norm=layer_norm"), ("alibi", "encoding.direction=directional"),
           ("kerple", "encoding.direction=directional"), ("fire", "encoding.direction=directional"),
           ("xpos", "encoding.encoder_scaling=xpos"), ("xpos", "encoding.scale_base=16.0"),
           ("urpe", "encoding.toeplitz=bucketed"), ("alibi", "encoding.biased_heads=2"),
           ("cope", "encoding.direction=directional"), ("cope", "encoding.per_layer=false")]


@pytest.mark.parametrize("name,override", OPTIONS)
def test_cached_decoding_equals_uncached_for_every_option(name, override):
    check_cached_decoding(build(name, override, "encoding.cross_attention=true", seed=1).eval(), cross=True)


def check_cached_decoding(model, cross: bool) -> None:
    with torch.no_grad():
        model.output.weight.mul_(3.0)  # eos becomes likely enough for outputs of varied lengths
    src = source_batch()
    encoded = model.encode(src)
    prefix = torch.randint(4, VOCAB, (src.size(0), 7))
    full = model.project(model.decode(prefix, encoded).hidden)
    cache = DecoderCache()
    steps = [model.project(model.decode(prefix[:, t:t + 1], encoded, cache=cache, start=t).hidden)
             for t in range(prefix.size(1))]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)
    if cross:  # the whole search once per encoding (the cross=True model uses every path)
        assert greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=True) == \
            greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=False)


@pytest.mark.parametrize("name", ATTENTION_ENCODINGS)
def test_cross_attention_is_off_unless_configured(name):
    off, on = encoding_of(name), encoding_of(name, "encoding.cross_attention=true")
    q_pos, k_pos = torch.arange(3), torch.arange(5)
    assert off.attention_terms("cross", q_pos, k_pos) is NO_TERMS
    q, k, v = random_qkv(3, 5)
    plain, _ = attend(q, k, v, None, off.attention_terms("cross", q_pos, k_pos), 0.0, need_weights=True)
    positioned, _ = attention(on, "cross", q_pos, k_pos, q, k, v)
    assert not torch.allclose(plain, positioned, atol=1e-6)


@pytest.mark.parametrize("name", OFFSET_ONLY)
@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_shifting_every_position_changes_nothing(name, kind):
    encoding = encoding_of(name, "encoding.cross_attention=true")
    q, k, v = random_qkv(5, 7)
    q_pos, k_pos = (torch.arange(2, 7), torch.arange(7)) if kind == "decoder" else (torch.arange(5), torch.arange(7))
    out, probs = attention(encoding, kind, q_pos, k_pos, q, k, v)
    shifted_out, shifted_probs = attention(encoding, kind, q_pos + 13, k_pos + 13, q, k, v)
    torch.testing.assert_close(shifted_probs, probs, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(shifted_out, out, atol=1e-5, rtol=1e-4)
    moved_out, _ = attention(encoding, kind, q_pos + 1, k_pos, q, k, v)  # a different offset does change them
    assert not torch.allclose(moved_out, out, atol=1e-4)


@pytest.mark.parametrize("name", ATTENTION_ENCODINGS)
def test_positions_per_sentence_give_the_same_terms_as_shared_ones(name):
    """The `shuffle` ablation passes (B, Ts) source positions: to the encoder, and as keys of cross-attention."""
    encoding = encoding_of(name, "encoding.cross_attention=true")
    q, k, v = random_qkv(4, 6)
    q_pos, k_pos = torch.arange(4), torch.arange(6)
    for kind, q_batched in [("encoder", q_pos.expand(2, 4)), ("cross", q_pos)]:
        shared = attention(encoding, kind, q_pos, k_pos, q, k, v)
        batched = attention(encoding, kind, q_batched, k_pos.expand(2, 6), q, k, v)
        for a, b in zip(shared, batched):
            torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
    per_sentence = torch.stack([k_pos, k_pos.flip(0)])  # the second sentence's positions reversed
    out, _ = attention(encoding, "cross", q_pos, per_sentence, q, k, v)
    torch.testing.assert_close(out[1], attention(encoding, "cross", q_pos, k_pos.flip(0), q, k, v)[0][1],
                               atol=1e-5, rtol=1e-5)


class LargestTensor(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.numel = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(t, torch.Tensor):
                self.numel = max(self.numel, t.numel())
        return out


@pytest.mark.parametrize("name", ["shaw", "nezha", "transformer_xl", "deberta"])
def test_relative_terms_never_build_a_tensor_per_pair_and_head_dim(name):
    model = build(name)
    src, tgt = torch.randint(4, VOCAB, (2, 40)), torch.randint(4, VOCAB, (2, 40))
    with LargestTensor() as largest:
        model.project(model(src, tgt)).sum().backward()
    per_pair_and_dim = 2 * 4 * 40 * 40 * (64 // 4)  # B * H * Tq * Tk * Dh
    assert largest.numel < per_pair_and_dim / 4


def test_no_encoding_leaves_the_encoder_permutation_equivariant():
    model = build("none").eval()
    src = torch.tensor([[5, 6, 7, 8, 9, 3, PAD], [10, 11, 12, 13, 14, 15, 3]])
    perm = torch.tensor([3, 0, 4, 1, 2, 5])  # the first sentence's tokens; its padding stays last
    permuted = src.clone()
    permuted[0, :6] = src[0, perm]
    a, b = model.encode(src).memory, model.encode(permuted).memory
    torch.testing.assert_close(b[0, :6], a[0, perm], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(b[1], a[1])
    rope = build("rope").eval()
    assert not torch.allclose(rope.encode(permuted).memory[0, :6], rope.encode(src).memory[0, perm], atol=1e-4)


@pytest.mark.parametrize("name, key, value", [
    ("shaw", "max_relative_position", 0), ("t5", "num_buckets", 2), ("kerple", "variant", "cubic"),
    ("rope", "rotary_fraction", 0.0), ("alibi", "cross_attention", "yes"), ("urpe", "max_length", 1),
    ("deberta", "max_relative_positions", 3), ("tupe", "relative_bias", "sometimes"),
    ("shaw", "per_layer", "yes"), ("transformer_xl", "per_layer", 2), ("deberta", "p2c_delta", "ij"),
    ("deberta", "relative_norm", "rms"), ("alibi", "direction", "left"), ("fire", "direction", "both"),
    ("alibi", "biased_heads", 5), ("cope", "npos_max", 1), ("cope", "init", "ones"), ("rope", "scaling", "linear"),
    ("rope", "scaling_factor", 0.5),
])
def test_a_bad_hyperparameter_names_key_and_value(name, key, value):
    with pytest.raises(ValueError, match=f"encoding.{key}={value!r}".replace("(", r"\(")):
        build(name, f"encoding.{key}={value}")


# -- relative logits: gather and shift ----------------------------------------------------------------------------

def test_relative_shift_equals_the_gather_it_replaces():
    for tq, tk, q0 in [(5, 5, 0), (1, 6, 5), (3, 8, 5), (4, 2, 0)]:
        scores = torch.randn(2, 3, tq, tq + tk - 1)
        q_pos, k_pos = torch.arange(q0, q0 + tq), torch.arange(tk)
        rows = (q_pos[-1] - k_pos[0]) - (q_pos[:, None] - k_pos[None, :])  # descending distances
        expected = scores.gather(-1, expand_index(rows, (2, 3, tq, tk)))
        torch.testing.assert_close(relative_shift(scores, tk), expected)


# -- Shaw and NEZHA -----------------------------------------------------------------------------------------------

def shaw_reference(encoding, q_pos, k_pos, q, k, v, tables=None):
    """The paper's equations with a^K, a^V materialised per pair (`tables`: one layer's, default the encoding's)."""
    kk = encoding.max_relative_position
    rows = (k_pos[None, :] - q_pos[:, None]).clamp(-kk, kk) + kk
    key_table, value_table = tables or (encoding.key_table, encoding.value_table)
    a_k, a_v = key_table[rows], value_table[rows]  # (Tq, Tk, Dh)
    logits = (torch.einsum("bhqd,bhkd->bhqk", q, k) + torch.einsum("bhqd,qkd->bhqk", q, a_k)) / math.sqrt(DH)
    probs = logits.softmax(-1)
    return torch.einsum("bhqk,bhkd->bhqd", probs, v) + torch.einsum("bhqk,qkd->bhqd", probs, a_v), probs


@pytest.mark.parametrize("cls", [Shaw, Nezha])
def test_shaw_terms_match_the_paper_written_out(cls):
    encoding = cls(D, H, max_relative_position=3, **({"per_layer": False} if cls is Shaw else {}))
    if cls is Shaw:
        torch.nn.init.normal_(encoding.key_table)
        torch.nn.init.normal_(encoding.value_table)
    q, k, v = random_qkv(6, 9)
    q_pos, k_pos = torch.arange(3, 9), torch.arange(9)
    out, probs = attention(encoding, "decoder", q_pos, k_pos, q, k, v)
    ref_out, ref_probs = shaw_reference(encoding, q_pos, k_pos, q, k, v)
    torch.testing.assert_close(probs, ref_probs, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)


def test_shaw_clips_distances_beyond_k():
    encoding = Shaw(D, H, max_relative_position=2)
    torch.nn.init.normal_(encoding.key_table)
    q = torch.randn(1, H, 1, DH)
    k = torch.randn(1, H, 1, DH).expand(1, H, 10, DH)  # the same key content at every position
    logits = encoding.attention_terms("encoder", torch.tensor([0]), torch.arange(10)).content_bias(q, k)[0, :, 0]
    torch.testing.assert_close(logits[:, 2:], logits[:, 2:3].expand(H, 8))  # j - i >= k all read row +k
    assert not torch.allclose(logits[:, 0], logits[:, 1]) and not torch.allclose(logits[:, 1], logits[:, 2])
    assert encoding.key_table.shape == (5, DH)  # 2k + 1 rows of the head width, shared by the heads


def test_nezha_tables_are_fixed_sinusoids():
    encoding = Nezha(D, H, max_relative_position=4)
    assert not list(encoding.parameters())
    d = torch.arange(-4, 5).float()[:, None]
    freq = 10000.0 ** (-torch.arange(0, DH, 2).float() / DH)
    torch.testing.assert_close(encoding.key_table[:, 0::2], torch.sin(d * freq))
    torch.testing.assert_close(encoding.value_table[:, 1::2], torch.cos(d * freq))


# -- Transformer-XL -----------------------------------------------------------------------------------------------

def xl_reference(encoding, q_pos, k_pos, q, k, r_proj=None):
    """Dai et al.'s four terms with W_R R_{i-j} materialised per pair -> probabilities (`r_proj`: one layer's)."""
    tq, tk = len(q_pos), len(k_pos)
    r = (r_proj or encoding.r_proj)(sinusoid_table(q_pos[:, None] - k_pos[None, :], D, 10000.0)).view(tq, tk, H, DH)
    u, w = encoding.u.view(H, DH), encoding.v.view(H, DH)
    logits = (torch.einsum("bhqd,bhkd->bhqk", q, k) + torch.einsum("bhqd,qkhd->bhqk", q, r)
              + torch.einsum("hd,bhkd->bhk", u, k)[:, :, None] + torch.einsum("hd,qkhd->hqk", w, r)) / math.sqrt(DH)
    return logits.softmax(-1)


def test_transformer_xl_terms_match_the_paper_written_out():
    encoding = TransformerXL(D, H, per_layer=False)
    torch.nn.init.normal_(encoding.u)
    torch.nn.init.normal_(encoding.v)
    q, k, v = random_qkv(4, 7)
    k_pos = torch.arange(7)
    for q_pos in (torch.arange(3, 7), torch.tensor([5, 3, 6, 4])):  # the relative shift, then the gather
        _, probs = attention(encoding, "decoder", q_pos, k_pos, q, k, v)
        torch.testing.assert_close(probs, xl_reference(encoding, q_pos, k_pos, q, k), atol=1e-5, rtol=1e-5)


# -- DeBERTa ------------------------------------------------------------------------------------------------------

def test_deberta_log_buckets_are_exact_up_to_half_the_buckets_then_logarithmic():
    d = torch.arange(-600, 601)
    bucket = log_bucket(d, 16, 64)
    exact = d.abs() <= 8
    assert torch.equal(bucket[exact], d[exact])
    far = d[~exact].abs().float()
    expected = torch.ceil(torch.log(far / 8) / math.log(63 / 8) * 7).long() + 8
    assert torch.equal(bucket[~exact].abs(), expected) and torch.equal(bucket.sign(), d.sign())
    assert int(bucket[d == 63]) == 15 and bool((bucket.diff() >= 0).all())  # monotone, bucket 2k/2 - 1 at max - 1


def deberta_reference(encoding, q_pos, k_pos, q, k, p2c_delta="j_i", projections=None, norm=None):
    """He et al.'s three terms with K^r, Q^r materialised per pair -> probabilities (`projections`: one layer's)."""
    key_proj, query_proj = projections or (encoding.key_proj, encoding.query_proj)

    def projected(proj, relative):  # (Tq, Tk, H, Dh) rows of P W_r at δ
        rows = (log_bucket(relative, 4, 8) + 4).clamp(0, 7)
        embeddings = encoding.embeddings if norm is None else norm(encoding.embeddings)
        return proj(embeddings[rows]).view(*relative.shape, H, DH)

    query_minus_key = q_pos[:, None] - k_pos[None, :]
    key_r = projected(key_proj, query_minus_key)     # δ(i, j)
    query_r = projected(query_proj, -query_minus_key if p2c_delta == "j_i" else query_minus_key)  # δ(j, i) or δ(i, j)
    logits = (torch.einsum("bhqd,bhkd->bhqk", q, k) + torch.einsum("bhqd,qkhd->bhqk", q, key_r)
              + torch.einsum("bhkd,qkhd->bhqk", k, query_r)) / math.sqrt(3 * DH)
    return logits.softmax(-1)


@pytest.mark.parametrize("p2c_delta", ["j_i", "i_j"])
def test_deberta_terms_match_the_paper_written_out(p2c_delta):
    encoding = DeBERTa(D, H, position_buckets=4, max_relative_positions=8, per_layer=False, p2c_delta=p2c_delta)
    q, k, v = random_qkv(5, 9)
    q_pos, k_pos = torch.arange(4, 9), torch.arange(9)
    _, probs = attention(encoding, "decoder", q_pos, k_pos, q, k, v)
    torch.testing.assert_close(probs, deberta_reference(encoding, q_pos, k_pos, q, k, p2c_delta), atol=1e-5, rtol=1e-5)
    other = "i_j" if p2c_delta == "j_i" else "j_i"  # the two readings differ (the offsets are not symmetric here)
    assert not torch.allclose(probs, deberta_reference(encoding, q_pos, k_pos, q, k, other), atol=1e-4)


def test_deberta_v2_layer_norm_normalises_the_relative_embeddings_before_projecting():
    encoding = DeBERTa(D, H, position_buckets=4, max_relative_positions=8, per_layer=False,
                       relative_norm="layer_norm")
    torch.nn.init.normal_(encoding.norm.weight)
    torch.nn.init.normal_(encoding.norm.bias)
    q, k, v = random_qkv(5, 9)
    q_pos, k_pos = torch.arange(4, 9), torch.arange(9)
    _, probs = attention(encoding, "encoder", q_pos, k_pos, q, k, v)
    expected = deberta_reference(encoding, q_pos, k_pos, q, k, norm=encoding.norm)
    torch.testing.assert_close(probs, expected, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(probs, deberta_reference(encoding, q_pos, k_pos, q, k), atol=1e-4)


# -- per-layer position parameters (Shaw, Transformer-XL, DeBERTa) ------------------------------------------------

def layer_reference(encoding, copy, q_pos, k_pos, q, k, v):
    """Probabilities from the paper's equation with one layer's position parameters."""
    if isinstance(encoding, Shaw):
        return shaw_reference(encoding, q_pos, k_pos, q, k, v, (copy.key_table, copy.value_table))[1]
    if isinstance(encoding, TransformerXL):
        return xl_reference(encoding, q_pos, k_pos, q, k, copy)
    return deberta_reference(encoding, q_pos, k_pos, q, k, projections=(copy.key_proj, copy.query_proj))


PER_LAYER = {"shaw": lambda **kw: Shaw(D, H, max_relative_position=3, **kw),
             "transformer_xl": lambda **kw: TransformerXL(D, H, **kw),
             "deberta": lambda **kw: DeBERTa(D, H, position_buckets=4, max_relative_positions=8, **kw)}


@pytest.mark.parametrize("name", list(PER_LAYER))
def test_per_layer_terms_use_each_layers_own_parameters(name):
    encoding = PER_LAYER[name](cross_attention=True)
    encoding.use_layers(2, 3)
    copies = next(m for m in encoding.children() if isinstance(m, LayerCopies)).copies
    assert len(copies) == 2 + 3 + 3  # encoder layers, decoder self- and cross-attention layers
    for copy in copies:  # fresh copies already differ; make them differ clearly
        for p in copy.parameters():
            torch.nn.init.normal_(p)
    q, k, v = random_qkv(5, 9)
    q_pos, k_pos = torch.arange(4, 9), torch.arange(9)
    layer = iter(copies)
    for kind, count in (("encoder", 2), ("decoder", 3), ("cross", 3)):
        terms = encoding.attention_terms(kind, q_pos, k_pos)
        probs = [attend(q, k, v, None, terms.for_layer(i), 0.0, need_weights=True)[1] for i in range(count)]
        for p in probs:
            torch.testing.assert_close(p, layer_reference(encoding, next(layer), q_pos, k_pos, q, k, v),
                                       atol=1e-5, rtol=1e-5)
        assert not torch.allclose(probs[0], probs[1], atol=1e-4)


@pytest.mark.parametrize("name", list(PER_LAYER))
def test_freezing_a_per_layer_encoding_freezes_every_layers_copy(name):
    model = build(name, "ablation=freeze")
    copies = next(m for m in model.encoding.children() if isinstance(m, LayerCopies)).copies
    assert len(copies) == 4 and not any(p.requires_grad for p in model.encoding.parameters())


@pytest.mark.parametrize("name", list(PER_LAYER))
def test_shared_terms_are_one_set_for_every_layer(name):
    encoding = PER_LAYER[name](per_layer=False)
    encoding.use_layers(2, 3)
    assert len(next(m for m in encoding.children() if isinstance(m, LayerCopies)).copies) == 1
    terms = encoding.attention_terms("decoder", torch.arange(4), torch.arange(4))
    assert terms.layers is None and terms.for_layer(2) is terms


@pytest.mark.parametrize("name", list(PER_LAYER))
def test_per_layer_parameters_each_receive_gradients_in_the_model(name):
    model = build(name)  # model=tiny: 2 encoder and 2 decoder layers
    copies = next(m for m in model.encoding.children() if isinstance(m, LayerCopies)).copies
    assert len(copies) == 4
    model(source_batch(), torch.randint(4, VOCAB, (4, 6))).pow(2).mean().backward()
    for index, copy in enumerate(copies):
        for pname, p in copy.named_parameters():
            assert p.grad is not None and p.grad.abs().sum() > 0, f"copy {index}: {pname} gets no gradient"


# -- TUPE ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("relative_bias", [True, False])
def test_tupe_unties_positions_from_content(relative_bias):
    encoding = TUPE(D, H, max_positions=16, relative_bias=relative_bias)
    q, k, v = random_qkv(5, 5)
    pos = torch.arange(5)
    terms = encoding.attention_terms("encoder", pos, pos)
    assert terms.content_bias is None  # positions never meet the words
    _, probs = attention(encoding, "encoder", pos, pos, q, k, v)
    p = encoding.norm(encoding.positions[:5])
    pq = encoding.query_proj(p).view(5, H, DH).transpose(0, 1)
    pk = encoding.key_proj(p).view(5, H, DH).transpose(0, 1)
    logits = (torch.einsum("bhqd,bhkd->bhqk", q, k) + pq @ pk.transpose(-1, -2)) / math.sqrt(2 * DH)
    if relative_bias:
        logits = logits + encoding.relative.tables["encoder"](t5_bucket(pos[None] - pos[:, None], True, 32, 128)
                                                              ).permute(2, 0, 1)
    torch.testing.assert_close(probs, logits.softmax(-1), atol=1e-5, rtol=1e-5)


def test_tupe_refuses_positions_beyond_its_table():
    with pytest.raises(ValueError, match="at most 8 positions"):
        TUPE(D, H, max_positions=8).attention_terms("encoder", torch.arange(9), torch.arange(9))


# -- T5 -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets_are_exact_below_half_the_buckets_and_logarithmic_above(bidirectional):
    buckets, max_distance = 32, 128
    per_side = buckets // 2 if bidirectional else buckets
    exact = per_side // 2
    n = torch.arange(0, 400)  # distance into the past, j - i = -n
    got = t5_bucket(-n, bidirectional, buckets, max_distance)
    assert torch.equal(got[:exact], n[:exact])
    far = n[exact:].float()
    expected = (exact + (torch.log(far / exact) / math.log(max_distance / exact) * (per_side - exact)).long())
    assert torch.equal(got[exact:], expected.clamp(max=per_side - 1))
    assert bool((got[max_distance:] == per_side - 1).all()) and bool((got.diff() >= 0).all())
    assert int(got[2 * exact]) == exact + (per_side - exact) // int(math.log2(max_distance / exact))  # log-spaced
    future = t5_bucket(n[1:], bidirectional, buckets, max_distance)
    if bidirectional:  # the other direction has buckets of its own
        assert torch.equal(future, got[1:] + per_side)
    else:  # causal buckets: the future is one bucket (and masked)
        assert bool((future == 0).all())


def test_t5_has_one_scalar_per_head_and_bucket_per_stack_shared_by_layers():
    encoding = T5(D, H)
    assert sorted(encoding.tables) == ["decoder", "encoder"]
    assert encoding.tables["encoder"].weight.shape == (32, H)
    bias = encoding.attention_terms("encoder", torch.arange(6), torch.arange(6)).bias
    assert bias.shape == (H, 6, 6)
    torch.testing.assert_close(bias[:, 2, 4], encoding.tables["encoder"].weight[16 + 2])  # j - i = +2


# -- ALiBi and KERPLE ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("heads", [1, 4, 8, 16])
def test_alibi_slopes_are_geometric(heads):
    slopes = torch.tensor(alibi_slopes(heads))
    assert math.isclose(float(slopes[0]), 2 ** (-8 / heads), rel_tol=1e-6)
    torch.testing.assert_close(slopes[1:] / slopes[:-1], torch.full((heads - 1,), 2 ** (-8 / heads)))


def test_alibi_slopes_for_other_head_counts_follow_the_paper():
    six = alibi_slopes(6)  # the 4 slopes of 4 heads, then every other of 8 heads' slopes
    assert six == pytest.approx([2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3])


def test_alibi_bias_is_minus_slope_times_distance():
    encoding = ALiBi(D, H)
    bias = encoding.attention_terms("encoder", torch.arange(5), torch.arange(5)).bias
    i, j = torch.arange(5)[:, None], torch.arange(5)[None, :]
    expected = -torch.tensor(alibi_slopes(H))[:, None, None] * (i - j).abs()
    torch.testing.assert_close(bias, expected)
    assert not list(encoding.parameters())


def test_partial_alibi_leaves_the_unbiased_heads_as_no_pe():
    """x-transformers' alibi_num_heads: heads 0..n-1 get the slopes ALiBi gives n heads, the others equal no PE's."""
    partial = ALiBi(D, H, biased_heads=2, direction="directional")
    torch.testing.assert_close(partial.slopes.view(-1), torch.tensor(alibi_slopes(2) + [0.0, 0.0]))
    q, k, v = random_qkv(5, 5)
    pos = torch.arange(5)
    plain_out, plain_probs = attend(q, k, v, None, NO_TERMS, 0.0, need_weights=True)
    for kind in ("encoder", "decoder"):
        out, probs = attention(partial, kind, pos, pos, q, k, v)
        torch.testing.assert_close(out[:, 2:], plain_out[:, 2:])
        torch.testing.assert_close(probs[:, 2:], plain_probs[:, 2:])
        assert not torch.allclose(out[:, :2], plain_out[:, :2], atol=1e-4)


@pytest.mark.parametrize("variant", ["log", "power"])
def test_kerple_bias_is_its_kernel(variant):
    encoding = Kerple(D, H, variant=variant)
    r1, r2 = encoding.r1("decoder").detach(), encoding.r2("decoder").detach()
    distance = (torch.arange(3, 7)[:, None] - torch.arange(7)[None, :]).abs().float()
    bias = encoding.attention_terms("decoder", torch.arange(3, 7), torch.arange(7)).bias
    expected = -r1 * (torch.log1p(r2 * distance) if variant == "log" else distance ** r2)
    torch.testing.assert_close(bias, expected)
    assert bool((bias.diff(dim=-1)[..., :3] > 0).all())  # the past: nearer keys, larger logits


@pytest.mark.parametrize("variant,r1_top,r2_top", [("log", 2.0, 1.0), ("power", 1.0, 2.0)])
def test_kerple_starts_in_the_authors_ranges(variant, r1_top, r2_top):
    """The authors' code: log -p log(1 + a|d|) with p ~ U[0, 2], a ~ U[0, 1]; power -a|d|^p with the scale
    a ~ U[0, 1] and the exponent p ~ U[0, 2]."""
    torch.manual_seed(0)
    encoding = Kerple(64, 64, variant=variant)  # 64 heads: enough draws to see each range
    r1 = torch.cat([encoding.r1(kind).detach().flatten() for kind in encoding.kinds])
    r2 = torch.cat([encoding.r2(kind).detach().flatten() for kind in encoding.kinds])
    for values, top in ((r1, r1_top), (r2, r2_top)):
        assert float(values.min()) >= 0.01 and float(values.max()) <= top
        assert float(values.max()) > 0.9 * top  # the whole range is used, not half of it


def test_kerple_keeps_its_parameters_in_range_whatever_the_raw_values():
    encoding = Kerple(D, H, variant="power")
    with torch.no_grad():
        encoding.raw_r1["encoder"].fill_(-30.0)  # a clamp-and-pass-through parameter could sit here, below eps
        encoding.raw_r2["encoder"].fill_(30.0)
    bias = encoding.attention_terms("encoder", torch.arange(4), torch.arange(4)).bias
    torch.testing.assert_close(bias[:, 0, 3], torch.full((H,), -0.01 * 3 ** 2.0))  # r1 -> eps, r2 -> 2
    with torch.no_grad():
        encoding.raw_r1["encoder"].fill_(-2.0)
        encoding.raw_r2["encoder"].fill_(1.0)
    bias = encoding.attention_terms("encoder", torch.arange(4), torch.arange(4)).bias
    r1, r2 = 0.01 + math.log1p(math.exp(-2.0)), 0.01 + 1.99 / (1 + math.exp(-1.0))
    torch.testing.assert_close(bias[:, 0, 3], torch.full((H,), -r1 * 3 ** r2))
    bias.sum().backward()
    assert bool((encoding.raw_r1["encoder"].grad != 0).all()) and bool((encoding.raw_r2["encoder"].grad != 0).all())


# -- directional biases in the encoder (ALiBi, KERPLE, FIRE) -------------------------------------------------------

def test_directional_alibi_has_its_slopes_reversed_to_the_right():
    encoding = ALiBi(D, H, direction="directional")
    bias = encoding.attention_terms("encoder", torch.arange(5), torch.arange(5)).bias
    slopes = alibi_slopes(H)
    for i, j in [(3, 1), (1, 3), (0, 4), (2, 2)]:
        slope = slopes if j <= i else slopes[::-1]
        torch.testing.assert_close(bias[:, i, j], -torch.tensor(slope) * abs(i - j))
    decoder = encoding.attention_terms("decoder", torch.arange(5), torch.arange(5)).bias
    torch.testing.assert_close(decoder, ALiBi(D, H).attention_terms("decoder", torch.arange(5), torch.arange(5)).bias)


@pytest.mark.parametrize("variant", ["log", "power"])
def test_directional_kerple_has_one_kernel_per_side(variant):
    encoding = Kerple(D, H, variant=variant, direction="directional")
    bias = encoding.attention_terms("encoder", torch.arange(6), torch.arange(6)).bias
    for side, (i, j) in (("encoder", (4, 1)), ("encoder_right", (1, 4))):
        r1, r2 = encoding.r1(side).detach().view(H), encoding.r2(side).detach().view(H)
        d = torch.tensor(3.0)
        expected = -r1 * (torch.log1p(r2 * d) if variant == "log" else d ** r2)
        torch.testing.assert_close(bias[:, i, j], expected)
    assert "decoder_right" not in encoding.raw_r1  # causal: the left kernel only


def test_directional_fire_has_one_function_per_side():
    encoding = Fire(D, H, init_threshold=8.0, direction="directional")
    bias = encoding.attention_terms("encoder", torch.arange(12), torch.arange(12)).bias
    psi = lambda x: torch.log(0.1 * torch.as_tensor(x, dtype=torch.float32) + 1)  # noqa: E731
    for i, j in [(3, 1), (1, 3), (10, 2), (2, 10)]:
        function = encoding.functions["encoder" if j <= i else "encoder_right"]
        x = psi(abs(i - j)) / (psi(max(8, i)) + 1e-6)
        torch.testing.assert_close(bias[:, i, j], function.mlp(x.view(1, 1)).view(H))


@pytest.mark.parametrize("name", ["alibi", "kerple", "fire"])
def test_directional_variants_break_reversal_equivariance_and_symmetric_ones_keep_it(name):
    """Reversing the encoder's input reverses a symmetric bias's output exactly; a directional bias tells the two
    orders apart."""
    q, k, v = random_qkv(6, 6)
    pos = torch.arange(6)
    flip = lambda x: x.flip(-2)  # noqa: E731
    for direction, equivariant in (("symmetric", True), ("directional", False)):
        encoding = encoding_of(name, f"encoding.direction={direction}")
        out, _ = attention(encoding, "encoder", pos, pos, q, k, v)
        reversed_out, _ = attention(encoding, "encoder", pos, pos, flip(q), flip(k), flip(v))
        assert torch.allclose(flip(reversed_out), out, atol=1e-5) == equivariant, direction


# -- FIRE ---------------------------------------------------------------------------------------------------------

def test_fire_normalises_the_log_distance_by_the_query_position_beyond_l():
    encoding = Fire(D, H, init_threshold=8.0)
    function = encoding.functions["decoder"]
    bias = encoding.attention_terms("decoder", torch.arange(40), torch.arange(40)).bias  # (H, 40, 40)
    psi = lambda x: torch.log(0.1 * torch.as_tensor(x, dtype=torch.float32) + 1)  # noqa: E731
    for i, j in [(3, 1), (7, 0), (20, 17), (39, 2)]:
        x = psi(i - j) / (psi(max(8, i)) + 1e-6)
        torch.testing.assert_close(bias[:, i, j], function.mlp(x.view(1, 1)).view(H))
    torch.testing.assert_close(bias[:, 5, 2], bias[:, 6, 3])  # below L: the offset alone
    assert not torch.allclose(bias[:, 20, 17], bias[:, 30, 27])  # beyond L: interpolated by the position


# -- URPE ---------------------------------------------------------------------------------------------------------

def test_urpe_reweights_probabilities_by_a_toeplitz_matrix():
    encoding = URPE(D, H, max_length=6)
    torch.nn.init.normal_(encoding.toeplitz["encoder"])
    pos = torch.arange(9)
    c = encoding.toeplitz_matrix("encoder", pos, pos)  # (H, 9, 9)
    torch.testing.assert_close(c[:, 1:, 1:], c[:, :-1, :-1])  # constant along every diagonal
    torch.testing.assert_close(c[:, 0, 5:], c[:, 0, 5:6].expand(H, 4))  # beyond N - 1 the border entry
    q, k, v = random_qkv(9, 9)
    out, probs = attention(encoding, "encoder", pos, pos, q, k, v)
    t5_only = T5(D, H)
    t5_only.tables.load_state_dict(encoding.tables.state_dict())
    plain = attention(t5_only, "encoder", pos, pos, q, k, v)[1]
    torch.testing.assert_close(probs, plain * c)
    torch.testing.assert_close(out, (plain * c) @ v)


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_bucketed_urpe_reads_c_at_the_t5_bucket_of_each_pair(kind):
    encoding = URPE(D, H, toeplitz="bucketed", num_buckets=8, max_distance=20)
    torch.nn.init.normal_(encoding.toeplitz[kind])
    assert encoding.toeplitz[kind].shape == (8, H)
    pos = torch.arange(30)
    c = encoding.toeplitz_matrix(kind, pos, pos)
    for i, j in [(0, 0), (5, 3), (3, 5), (29, 0), (0, 29), (20, 9)]:
        bucket = t5_bucket(torch.tensor(j - i), kind != "decoder", 8, 20)
        torch.testing.assert_close(c[:, i, j], encoding.toeplitz[kind][bucket])
    q, k, v = random_qkv(30, 30)
    _, probs = attention(encoding, kind, pos, pos, q, k, v)
    t5_only = T5(D, H, num_buckets=8, max_distance=20)
    t5_only.tables.load_state_dict(encoding.tables.state_dict())
    torch.testing.assert_close(probs, attention(t5_only, kind, pos, pos, q, k, v)[1] * c)


def test_urpe_starts_as_its_relative_bias():
    encoding = URPE(D, H)
    pos = torch.arange(5)
    t5_only = T5(D, H)
    t5_only.tables.load_state_dict(encoding.tables.state_dict())
    q, k, v = random_qkv(5, 5)
    torch.testing.assert_close(attention(encoding, "encoder", pos, pos, q, k, v)[0],
                               attention(t5_only, "encoder", pos, pos, q, k, v)[0])


# -- RoPE and xPos ------------------------------------------------------------------------------------------------

def rotate(encoding, kind, q_pos, k_pos, q, k):
    return encoding.attention_terms(kind, q_pos, k_pos).rotate(q, k)


def test_rope_rotates_pairs_by_position_times_frequency():
    encoding = RoPE(D, H)
    x = torch.randn(1, H, 4, DH)
    q_rot, k_rot = rotate(encoding, "encoder", torch.arange(4), torch.arange(4), x, x)
    torch.testing.assert_close(q_rot.norm(dim=-1), x.norm(dim=-1))  # a rotation
    theta = 10000.0 ** (-torch.arange(0, DH, 2).float() / DH)
    angle = 3 * theta  # position 3
    expected_even = x[0, :, 3, 0::2] * torch.cos(angle) - x[0, :, 3, 1::2] * torch.sin(angle)
    torch.testing.assert_close(q_rot[0, :, 3, 0::2], expected_even)
    torch.testing.assert_close(q_rot[:, :, 0], x[:, :, 0])  # position 0: identity


def test_rope_rotates_only_its_fraction_of_dims():
    encoding = RoPE(D, H, rotary_fraction=0.5)
    x = torch.randn(1, H, 5, DH)
    q_rot, _ = rotate(encoding, "encoder", torch.arange(5), torch.arange(5), x, x)
    torch.testing.assert_close(q_rot[..., DH // 2:], x[..., DH // 2:])
    assert not torch.allclose(q_rot[..., 1:, : DH // 2], x[..., 1:, : DH // 2])


def xpos_reference(q, k, q_pos, k_pos, scale_base):
    """Σ_t ζ_t^((n - m)/γ) (R q_n)_t·(R k_m)_t over rotation pairs t: the paper's logit written out -> (B, H, Tq, Tk)."""
    rope = RoPE(D, H)
    rq, rk = rotate(rope, "encoder", q_pos, k_pos, q, k)
    zeta = (torch.arange(0, DH, 2).float() / DH + 0.4) / 1.4
    offset = (q_pos[:, None] - k_pos[None, :]).float()  # (Tq, Tk)
    decay = zeta[:, None, None] ** (offset / scale_base)  # (Dh/2, Tq, Tk)
    pair_products = (rq[..., :, None, :] * rk[..., None, :, :]).unflatten(-1, (DH // 2, 2)).sum(-1)
    return (pair_products * decay.permute(1, 2, 0)).sum(-1)


def test_xpos_encoder_scaling_applies_the_decoders_scaling_in_both_directions():
    xpos = XPos(D, H, scale_base=16.0, encoder_scaling="xpos", cross_attention=True)
    q, k, _ = random_qkv(6, 10)
    for kind in ("encoder", "cross"):
        q_pos, k_pos = torch.arange(6), torch.arange(10)
        xq, xk = rotate(xpos, kind, q_pos, k_pos, q, k)
        torch.testing.assert_close(xq @ xk.transpose(-1, -2), xpos_reference(q, k, q_pos, k_pos, 16.0),
                                   atol=1e-5, rtol=1e-5)
    rope_q, _ = rotate(RoPE(D, H), "encoder", torch.arange(6), torch.arange(10), q, k)
    assert not torch.allclose(xq, rope_q, atol=1e-4)


def test_xpos_at_the_default_scale_base_is_within_a_few_percent_of_rope():
    """The near-equality the docs state: at γ = 512 the decay at offset 50 lies in [0.88, 1]."""
    zeta = (torch.arange(0, DH, 2).float() / DH + 0.4) / 1.4
    factor = zeta ** (50 / 512)
    assert 0.88 < float(factor.min()) < 0.89 and float(factor.max()) < 1.0


def test_xpos_decays_decoder_logits_exponentially_with_the_offset():
    rope, xpos = RoPE(D, H), XPos(D, H, scale_base=16.0)
    q, k, _ = random_qkv(6, 10)
    q_pos, k_pos = torch.arange(4, 10), torch.arange(10)
    rq, rk = rotate(rope, "decoder", q_pos, k_pos, q, k)
    xq, xk = rotate(xpos, "decoder", q_pos, k_pos, q, k)
    zeta = (torch.arange(0, DH, 2).float() / DH + 0.4) / 1.4
    offset = (q_pos[:, None] - k_pos[None, :]).float()  # (Tq, Tk)
    decay = zeta[:, None, None] ** (offset / 16.0)  # (Dh/2, Tq, Tk): ζ_t^((n - m)/γ) per pair
    pair_products = (rq[..., :, None, :] * rk[..., None, :, :]).unflatten(-1, (DH // 2, 2)).sum(-1)
    expected = (pair_products * decay.permute(1, 2, 0)).sum(-1)  # (B, H, Tq, Tk)
    torch.testing.assert_close(xq @ xk.transpose(-1, -2), expected, atol=1e-5, rtol=1e-5)
    e_q, e_k = rotate(xpos, "encoder", torch.arange(6), torch.arange(10), q, k)  # bidirectional: rotation alone
    r_q, r_k = rotate(rope, "encoder", torch.arange(6), torch.arange(10), q, k)
    torch.testing.assert_close(e_q, r_q)
    torch.testing.assert_close(e_k, r_k)


# -- RoPE scaled at test time ------------------------------------------------------------------------------------

def scaled_rope(scaling: str, trained: int = 6, **kw) -> RoPE:
    encoding = RoPE(D, H, scaling=scaling, **kw)
    encoding.record_training_length(trained)
    return encoding.eval()


def rotated_at(encoding, lengths, steps):
    """(q rotated, the positions the encoding gave) for sentences of these source lengths, `steps` positions each."""
    positions = encoding.sentence_positions(torch.arange(steps), torch.tensor(lengths), "encoder")
    x = torch.randn(len(lengths), H, steps, DH, generator=torch.Generator().manual_seed(3))
    return rotate(encoding, "encoder", positions, positions, x, x)[0], x, positions


@pytest.mark.parametrize("scaling", ["interpolation", "ntk", "yarn"])
def test_rope_scaling_is_the_identity_inside_the_training_length(scaling):
    encoding, plain = scaled_rope(scaling), RoPE(D, H)
    rotated, x, positions = rotated_at(encoding, [6, 3], 6)  # no sentence longer than the trained 6 tokens
    assert torch.equal(positions, torch.arange(6))
    torch.testing.assert_close(rotated, rotate(plain, "encoder", positions, positions, x, x)[0], atol=0, rtol=0)
    rotated, x, _ = rotated_at(encoding, [9, 4], 9)  # one longer sentence in the batch: the shorter one is untouched
    torch.testing.assert_close(rotated[1], rotate(plain, "encoder", torch.arange(9), torch.arange(9), x, x)[0][1])
    assert not torch.allclose(rotated[0], rotate(plain, "encoder", torch.arange(9), torch.arange(9), x, x)[0][0])
    encoding.train()  # training never scales
    assert torch.equal(encoding.sentence_positions(torch.arange(9), torch.tensor([9]), "encoder"), torch.arange(9))


def test_rope_scaling_changes_the_frequencies_as_documented():
    theta = 10000.0 ** (-torch.arange(0, DH, 2).float() / DH)  # (r/2,)
    r, s, m = DH, 2.0, torch.arange(12).float()  # 12 source tokens, 6 trained: s = 12 / 6

    def expected(frequencies, amplitude=1.0):
        angle = m[:, None] * frequencies  # (T, r/2)
        x = torch.randn(1, H, 12, DH, generator=torch.Generator().manual_seed(3))
        even, odd = x[..., 0::2], x[..., 1::2]
        return amplitude * torch.stack([even * angle.cos() - odd * angle.sin(),
                                        even * angle.sin() + odd * angle.cos()], -1).flatten(-2)

    interpolation = rotated_at(scaled_rope("interpolation"), [12], 12)[0]
    torch.testing.assert_close(interpolation, expected(theta / s))  # every pair slowed by s
    ntk = rotated_at(scaled_rope("ntk"), [12], 12)[0]
    ntk_base = 10000.0 * s ** (r / (r - 2))
    torch.testing.assert_close(ntk, expected(ntk_base ** (-torch.arange(0, DH, 2).float() / DH)), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ntk[..., :2], expected(theta)[..., :2])  # the fastest pair keeps its speed
    trained = 64  # long enough that the fastest pairs turn more than β = 32 times... with a small β
    yarn = rotated_at(scaled_rope("yarn", trained=trained, yarn_beta=4.0), [2 * trained], 12)[0]
    turns = trained * theta / (2 * math.pi)
    keep = ((turns - 1.0) / (4.0 - 1.0)).clamp(0, 1)
    assert keep[0] == 1 and keep[-1] == 0  # the ramp's two ends both occur
    torch.testing.assert_close(yarn, expected(theta * ((1 - keep) / s + keep), 0.1 * math.log(s) + 1))
    fixed = rotated_at(scaled_rope("interpolation", scaling_factor=4.0), [12], 12)[0]
    torch.testing.assert_close(fixed, expected(theta / 4.0))


def test_rope_scaling_needs_the_training_length():
    encoding = RoPE(D, H, scaling="yarn").eval()  # nothing recorded
    with pytest.raises(ValueError, match=r"give encoding.trained_length=N"):
        encoding.sentence_positions(torch.arange(4), torch.tensor([4]), "encoder")
    given = RoPE(D, H, scaling="yarn", trained_length=3).eval()
    assert given.sentence_positions(torch.arange(4), torch.tensor([4]), "encoder").is_complex()
    with pytest.raises(ValueError, match=r"encoding.scaling='ntk' is not allowed"):
        XPos(D, H, scaling="ntk")


def test_rope_keeps_the_training_length_in_its_state_and_loads_older_states():
    model = build("rope")
    model.encoding.record_training_length(17)
    state = model.state_dict()
    assert int(state["encoding.trained_length"]) == 17
    fresh = build("rope")
    fresh.load_state_dict(state)
    assert int(fresh.encoding.trained_length) == 17
    del state["encoding.trained_length"]  # a checkpoint from before the length was recorded
    build("rope").load_state_dict(state)


@pytest.mark.parametrize("scaling", ["interpolation", "ntk", "yarn"])
def test_scaled_rope_decodes_with_a_cache_as_without(scaling):
    model = build("rope", f"encoding.scaling={scaling}", "encoding.trained_length=5", seed=1).eval()
    assert model.encode(source_batch()).positions.is_complex()  # sentences of 4, 6, 8, 10 tokens: some scaled
    check_cached_decoding(model, cross=True)


def test_a_test_time_setting_is_given_to_the_checkpoints_encoding_only_where_its_class_allows_it():
    from omegaconf import OmegaConf
    from translate.assembly.trained import at_test_time
    from translate.cli.evaluate import as_job_config, encoding_changes, output_dir
    from translate.config import ConfigError

    evaluation = make_config("checkpoint=runs/x/best.pt", "encoding.scaling=yarn", config_name="evaluate")
    changes = encoding_changes(evaluation)
    assert changes == {"scaling": "yarn"}
    trained = make_config("encoding=rope")
    assert at_test_time(trained.encoding, changes).scaling == "yarn" and trained.encoding.scaling == "none"
    job = as_job_config(OmegaConf.create(OmegaConf.to_container(trained, resolve=True)), evaluation)
    assert job.encoding.scaling == "yarn" and job.encoding.name == "rope_yarn_at_test"
    assert output_dir(evaluation, "test").name == "eval-test-beam1-scaling_yarn"
    with pytest.raises(ConfigError, match=r"encoding.scaling='yarn' cannot be changed at test time for encoding alibi"):
        at_test_time(make_config("encoding=alibi").encoding, changes)


# -- CoPE ---------------------------------------------------------------------------------------------------------

def test_cope_counts_reduce_to_relative_positions_when_every_gate_is_one():
    ones = torch.ones(1, 1, 5, 5)
    i, j = torch.arange(5)[:, None], torch.arange(5)[None, :]
    torch.testing.assert_close(gated_counts(ones, "encoder")[0, 0], ((i - j).abs() + 1).float())
    decoder = gated_counts(torch.ones(1, 1, 2, 5), "decoder")[0, 0]  # the last two queries of five keys (a cache)
    i = torch.arange(3, 5)[:, None]
    torch.testing.assert_close(decoder.where(j <= i, torch.zeros(())), (i - j + 1).clamp(min=0).where(
        j <= i, 0).float())
    torch.testing.assert_close(gated_counts(ones, "cross")[0, 0], (j + 1).float().expand(5, 5))


def test_cope_counts_are_sums_of_the_gates_between_key_and_query():
    gates = torch.rand(2, H, 4, 6)  # four queries, the last four of six keys
    counts = gated_counts(gates, "encoder")
    for i in range(4):
        c = i + 2
        for j in range(6):
            lo, hi = min(j, c), max(j, c)
            torch.testing.assert_close(counts[..., i, j], gates[..., i, lo:hi + 1].sum(-1))


def test_cope_adds_interpolated_count_embeddings_to_the_logits():
    encoding = CoPE(D, H, npos_max=8, per_layer=False)
    q, k, _ = random_qkv(5, 5)
    pos = torch.arange(5)
    logits = encoding.attention_terms("encoder", pos, pos).content_bias(q, k)
    counts = gated_counts(torch.sigmoid(q @ k.transpose(-2, -1) / math.sqrt(DH)), "encoder")
    table = encoding.tables["encoder"].copies[0].left
    low, high = table[counts.floor().long()], table[counts.ceil().long()]  # (B, H, Tq, Tk, Dh)
    w = (counts - counts.floor()).unsqueeze(-1)
    expected = (q.unsqueeze(-2) * (low * (1 - w) + high * w)).sum(-1)
    torch.testing.assert_close(logits, expected, atol=1e-5, rtol=1e-5)
    assert counts.max() <= 5 and counts.min() > 0
