"""Absolute encodings (translate/encodings/*, table contract and complex_order): each through encoder and decoder,
cached = uncached decoding, the merge modes, and the property that defines each one."""
from __future__ import annotations

from functools import lru_cache

import pytest
import torch
import torch.nn.functional as F

from translate.assembly.builders import Component
from conftest import make_config
from translate.decoding.search import beam_search, greedy_search
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.assembly.builders import build_encoding
from translate.model.cache import DecoderCache
from translate.assembly.trainer import model_from_config

VOCAB, PAD, BOS, EOS = 40, 0, 2, 3
SPECIALS = SpecialIds(bos_id=BOS, eos_id=EOS, pad_id=PAD)
GREEDY = DecodeSettings()
TINY = ("model=tiny", "model.d_model=32", "model.d_ff=64", "model.n_encoder_layers=1", "model.n_decoder_layers=1")
D = 32
TABLES = ["sinusoidal", "sinusoidal_concat", "sin_only", "tanh", "binary", "index", "normalized", "learned",
          "hierarchical", "floater", "shape", "cape"]
ABSOLUTE = TABLES + ["complex_order"]


@lru_cache(maxsize=None)
def config(*overrides: str):
    return make_config(*TINY, *overrides)


def model_for(name: str, *overrides: str, seed: int = 0):
    torch.manual_seed(seed)
    return model_from_config(config(f"encoding={name}", *overrides), VOCAB, PAD)


def encoding_for(name: str, *overrides: str):
    cfg = config(f"encoding={name}", *overrides)
    torch.manual_seed(0)
    return build_encoding(Component.of(cfg.encoding, "encoding"), Component.of(cfg.ablation, "ablation"), D, 4)


def batch(seed: int = 1):
    """Right-padded sentences of different lengths: src (3, 9), tgt_in and tgt_out (3, 7)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, VOCAB, (3, 9), generator=g)
    src[1, 6:] = PAD
    src[2, 3:] = PAD
    tgt = torch.randint(4, VOCAB, (3, 8), generator=g)
    tgt[2, 5:] = PAD
    return src, tgt[:, :-1], tgt[:, 1:]


@pytest.mark.parametrize("name", ABSOLUTE)
def test_forward_and_backward_reach_encoder_decoder_and_encoding(name):
    model = model_for(name).train()
    src, tgt_in, tgt_out = batch()
    hidden = model(src, tgt_in)
    assert hidden.shape == (3, 7, D)
    loss = F.cross_entropy(model.project(hidden).transpose(1, 2), tgt_out, ignore_index=PAD)
    loss.backward()
    assert torch.isfinite(loss)
    for part in (model.encoder_layers, model.decoder_layers):
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in part.parameters())
    grads = [p.grad for p in model.encoding.parameters()]
    assert all(g is not None for g in grads)
    if grads:  # learned encodings learn (FLOATER's inner layer only once its zero-initialised outer layer has)
        assert sum(float(g.abs().sum()) for g in grads) > 0


# Options added by issue 16 that are not their encoding's default, as Hydra overrides.
OPTIONS = [("floater", "encoding.integrate=state")]


@pytest.mark.parametrize("name,overrides", [(name, ()) for name in ABSOLUTE] + [(n, (o,)) for n, o in OPTIONS])
def test_cached_decoding_equals_uncached(name, overrides):
    model = model_for(name, *overrides).eval()
    src, tgt_in, _ = batch()
    encoded = model.encode(src)
    full = model.decode(tgt_in, encoded).hidden
    cache, steps = DecoderCache(), []
    for t in range(tgt_in.size(1)):
        steps.append(model.decode(tgt_in[:, t:t + 1], encoded, cache=cache, start=t).hidden)
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)
    assert greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=True) == \
        greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=False)


def test_beam_search_reorders_per_sentence_positions():
    """Beam search expands and reorders the encoder output; per-sentence positions and lengths must follow."""
    model = model_for("normalized").eval()
    src, _, _ = batch()
    encoded = model.encode(src)
    picked = encoded.select(torch.tensor([2, 2, 0]))
    assert torch.equal(picked.positions, encoded.positions[[2, 2, 0]])
    assert picked.lengths.tolist() == [3, 3, 9]
    beam1, beam3 = DecodeSettings(beam_size=1), DecodeSettings(beam_size=3)
    assert beam_search(model, src, specials=SPECIALS, settings=beam1) == \
        greedy_search(model, src, specials=SPECIALS, settings=GREEDY)
    assert beam_search(model, src, specials=SPECIALS, settings=beam3, use_cache=True) == \
        beam_search(model, src, specials=SPECIALS, settings=beam3, use_cache=False)


# -- merge modes ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("merge", ["add", "mul", "concat"])
@pytest.mark.parametrize("name", TABLES)
def test_merge_modes_combine_embedding_and_table(name, merge):
    encoding = encoding_for(name, f"encoding.merge={merge}")
    encoding.eval()  # shape and cape: no random shift
    positions = torch.arange(6)
    x = torch.randn(2, 6, D)
    table = encoding.table(positions)
    out = encoding.embed(x, positions, "encoder")
    if merge == "add":
        torch.testing.assert_close(out, x + table)
    elif merge == "mul":
        torch.testing.assert_close(out, x * (1 + table))
    else:
        assert table.shape == (6, D // 2)  # d_pe defaults to d_model / 2
        torch.testing.assert_close(out[..., :D // 2], x[..., :D // 2])
        torch.testing.assert_close(out[..., D // 2:], table.expand(2, 6, D // 2))


@pytest.mark.parametrize("merge", ["mul", "concat"])
@pytest.mark.parametrize("name", ["sinusoidal", "learned", "floater"])
def test_merge_modes_train_and_decode(name, merge):
    model = model_for(name, f"encoding.merge={merge}")
    src, tgt_in, tgt_out = batch()
    loss = F.cross_entropy(model.project(model(src, tgt_in)).transpose(1, 2), tgt_out, ignore_index=PAD)
    loss.backward()
    assert torch.isfinite(loss)
    model.eval()
    assert greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=True) == \
        greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=False)


def test_bad_merge_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"encoding.merge='sum' is not allowed"):
        encoding_for("sinusoidal", "encoding.merge=sum")


# -- sinusoidal family ---------------------------------------------------------------------------------------------
def rotation_map(k: int, base: float = 10000.0):
    """The (d, d) map of PE(p) to PE(p + k) for the interleaved table: a 2x2 rotation by k * w_i per pair."""
    m = torch.zeros(D, D, dtype=torch.float64)
    for i in range(D // 2):
        a = k * base ** (-2 * i / D)
        c, s = torch.cos(torch.tensor(a, dtype=torch.float64)), torch.sin(torch.tensor(a, dtype=torch.float64))
        # row vector convention: PE(p + k) = PE(p) @ m; sin(x + a) = sin x cos a + cos x sin a, cos(x + a) = ...
        m[2 * i, 2 * i], m[2 * i + 1, 2 * i] = c, s
        m[2 * i, 2 * i + 1], m[2 * i + 1, 2 * i + 1] = -s, c
    return m


@pytest.mark.parametrize("name", ["sinusoidal", "sinusoidal_concat"])
def test_sinusoidal_shift_is_a_fixed_linear_map(name):
    table = encoding_for(name).table(torch.arange(400)).double()
    order = torch.arange(D) if name == "sinusoidal" else torch.stack([torch.arange(D // 2), torch.arange(D // 2, D)],
                                                                      dim=-1).flatten()
    interleaved = table[:, order]  # the concat layout is a fixed permutation of the interleaved one
    for k in (1, 7, 100):
        m = rotation_map(k)
        torch.testing.assert_close(interleaved[:-k] @ m, interleaved[k:], atol=1e-4, rtol=0)


def test_sin_only_has_no_linear_shift_map_and_zero_at_origin():
    table = encoding_for("sin_only").table(torch.arange(300))
    # PE(0) = 0 while PE(k) != 0: no linear map M_k can send PE(0) to PE(k).
    assert float(table[0].abs().max()) == 0.0
    assert float(table[7].abs().max()) > 0.5
    assert float(table.abs().max()) <= 1.0


def test_sinusoidal_concat_is_sinusoidal_with_sines_first():
    positions = torch.arange(20)
    interleaved = encoding_for("sinusoidal").table(positions)
    halves = encoding_for("sinusoidal_concat").table(positions)
    torch.testing.assert_close(halves[:, :D // 2], interleaved[:, 0::2])
    torch.testing.assert_close(halves[:, D // 2:], interleaved[:, 1::2])


def test_tanh_is_bounded_monotone_and_saturates():
    table = encoding_for("tanh").table(torch.arange(200))
    assert float(table.min()) >= 0.0 and float(table.max()) < 1.0 + 1e-6
    assert bool((table[1:] >= table[:-1]).all())  # monotone in the position, every dimension
    assert float(table[150, 0] - table[100, 0]) < 1e-6  # the fastest dimension has saturated
    assert float(table[150, -1] - table[100, -1]) > 0  # the slowest still separates them


# -- binary, index, normalized -------------------------------------------------------------------------------------
def test_binary_gives_the_bits_of_the_position():
    positions = torch.tensor([0, 1, 2, 5, 37, 1023, 1024])
    table = encoding_for("binary").table(positions)
    for row, p in zip(table.tolist(), positions.tolist()):
        assert row == [float((p >> i) & 1) for i in range(D)]


def test_binary_refuses_positions_beyond_its_bits():
    encoding = encoding_for("binary", "encoding.merge=concat")  # 16 bits
    assert encoding.max_positions == 2 ** 16
    with pytest.raises(ValueError, match="at most 65536 positions"):
        encoding.table(torch.tensor([2 ** 16]))


def test_index_is_the_raw_position_and_survives_layer_norm():
    encoding = encoding_for("index")
    table = encoding.table(torch.arange(5))
    signs = torch.tensor([1.0, -1.0] * (D // 2))
    torch.testing.assert_close(table, torch.arange(5).float()[:, None] * signs)
    x = torch.randn(1, 5, D)
    norm = torch.nn.LayerNorm(D)
    with torch.no_grad():
        moved = norm(encoding.embed(x, torch.arange(5), "encoder")) - norm(x)
    assert float(moved[0, 1:].abs().max(dim=-1).values.min()) > 0.01  # not erased by LayerNorm's mean removal


def test_normalized_positions_lie_in_0_1_per_sentence():
    model = model_for("normalized").eval()
    src, tgt_in, _ = batch()
    lengths = src.ne(PAD).sum(1)  # 9, 6, 3
    encoded = model.encode(src)
    positions = encoded.positions  # (B, Ts)
    assert positions.shape == src.shape
    for row, length in zip(positions, lengths.tolist()):
        real = row[:length]
        assert float(real[0]) == 0.0 and float(real[-1]) == pytest.approx(1.0)
        assert bool(((real >= 0) & (real <= 1)).all())
        torch.testing.assert_close(real, torch.arange(length).float() / (length - 1))
    decoder = model.encoding.sentence_positions(torch.arange(7), lengths, "decoder")
    torch.testing.assert_close(decoder[2], torch.arange(7).float() / 2)  # divided by the source's last index
    table = model.encoding.table(positions)  # (B, Ts, d)
    real = src.ne(PAD)
    assert float(table[real].abs().max()) == pytest.approx(1.0)


def test_normalized_single_token_sentence_is_position_zero():
    encoding = encoding_for("normalized")
    positions = encoding.sentence_positions(torch.arange(3), torch.tensor([1, 3]), "encoder")
    assert positions[0, 0].item() == 0.0 and positions[1].tolist() == [0.0, 0.5, 1.0]


# -- learned and hierarchical ---------------------------------------------------------------------------------------
def test_learned_init_and_max_positions():
    zeros = encoding_for("learned", "encoding.init=zeros", "encoding.max_positions=16")
    assert zeros.weight.shape == (16, D) and float(zeros.weight.detach().abs().max()) == 0.0
    normal = encoding_for("learned", "encoding.init_std=0.5", "encoding.max_positions=512")
    assert 0.4 < float(normal.weight.detach().std()) < 0.6
    with pytest.raises(ValueError, match="at most 16 positions"):
        zeros.table(torch.arange(17))
    with pytest.raises(ValueError, match="encoding.init='uniform' is not allowed"):
        encoding_for("learned", "encoding.init=uniform")


def test_hierarchical_matches_the_table_below_n_and_extends_to_n_squared():
    encoding = encoding_for("hierarchical", "encoding.base_positions=8")
    n, alpha, u = 8, 0.4, encoding.weight.detach()
    assert encoding.max_positions == n * n
    table = encoding.table(torch.arange(n * n)).detach()
    torch.testing.assert_close(table[:n], u)  # unchanged below n
    v = (u - alpha * u[0]) / (1 - alpha)
    for p in (8, 13, 27, 63):
        torch.testing.assert_close(table[p], alpha * v[p // n] + (1 - alpha) * v[p % n])
    assert len({tuple(row) for row in table.round(decimals=5).tolist()}) == n * n  # all n^2 positions distinct
    with pytest.raises(ValueError, match="at most 64 positions"):
        encoding.table(torch.tensor([n * n]))


def test_hierarchical_refuses_bad_alpha():
    with pytest.raises(ValueError, match=r"encoding.alpha=1.0 is not allowed"):
        encoding_for("hierarchical", "encoding.alpha=1.0")


# -- floater ------------------------------------------------------------------------------------------------------
def test_floater_starts_exactly_as_the_sinusoidal_table_at_one_step_per_position():
    floater = encoding_for("floater")  # integrate=deviation, steps_per_position=1
    positions = torch.arange(100)
    torch.testing.assert_close(floater.table(positions), encoding_for("sinusoidal").table(positions),
                               atol=1e-6, rtol=0)


def test_floater_integrating_the_state_starts_off_the_table_by_the_solvers_error():
    sinusoid = encoding_for("sinusoidal").table(torch.arange(100))
    coarse = encoding_for("floater", "encoding.integrate=state").table(torch.arange(100))
    fine = encoding_for("floater", "encoding.integrate=state", "encoding.steps_per_position=8").table(torch.arange(40))
    assert float((coarse - sinusoid).abs().max().detach()) > 0.1  # the error the exact start removes
    torch.testing.assert_close(fine, sinusoid[:40], atol=2e-3, rtol=0)  # more steps: closer


@pytest.mark.parametrize("integrate", ["deviation", "state"])
def test_floater_is_an_ode_trajectory_learned_by_its_dynamics(integrate):
    floater = encoding_for("floater", f"encoding.integrate={integrate}")
    with torch.no_grad():
        floater.dynamics.g_out.weight.normal_(0, 0.1)
    table = floater.table(torch.arange(12))
    sinusoid = encoding_for("sinusoidal").table(torch.arange(12)) if integrate == "deviation" else 0 * table
    solved = table - sinusoid  # what the solver integrates: q = p - PE_sin, or p
    for p in (0, 5, 10):  # one RK4 step of the dynamics maps each position to the next
        torch.testing.assert_close(floater.rk4_step(float(p), solved[p], 1.0), solved[p + 1], atol=1e-5, rtol=1e-5)
    assert float((table - encoding_for("sinusoidal").table(torch.arange(12))).abs().max().detach()) > 1e-3  # g moved it
    table.sum().backward()
    assert float(floater.dynamics.g_in.weight.grad.abs().sum()) > 0


def test_floater_deviation_obeys_the_same_ode_as_the_state():
    """dq/dt = A q + g(t, PE_sin + q) is h(t, p) - d/dt PE_sin(t) at p = PE_sin + q."""
    floater = encoding_for("floater")
    dynamics = floater.dynamics
    with torch.no_grad():
        dynamics.g_out.weight.normal_(0, 0.1)
    q, t = torch.randn(D), 3.7
    p = dynamics.sinusoid(t) + q
    sinusoid_rate = dynamics.rotation(dynamics.sinusoid(t))  # d/dt (sin wt, cos wt) = w (cos wt, -sin wt)
    torch.testing.assert_close(dynamics.deviation(t, q), dynamics(t, p) - sinusoid_rate)


def test_floater_decoding_cache_follows_parameter_updates():
    floater = encoding_for("floater")
    with torch.no_grad():
        before = floater.table(torch.arange(10)).clone()
        torch.testing.assert_close(floater.table(torch.arange(10)), before)  # served from the solved prefix
        floater.dynamics.g_out.bias.add_(0.5)  # an optimiser step changes the parameters in place
        after = floater.table(torch.arange(10))
    assert float((after - before)[1:].abs().max()) > 0.1
    torch.testing.assert_close(after, floater.table(torch.arange(10)).detach())  # with autograd: same values


# -- complex order -------------------------------------------------------------------------------------------------
def test_complex_order_rotates_each_complex_dimension_by_word_frequency_times_position():
    encoding = encoding_for("complex_order")
    with torch.no_grad():
        encoding.frequency.weight.normal_(0, 0.1)  # word-dependent frequencies
    x = torch.randn(2, 5, D)
    positions = torch.arange(5)
    out = encoding.embed(x, positions, "encoder")
    c_in = torch.complex(x[..., :D // 2], x[..., D // 2:])
    c_out = torch.complex(out[..., :D // 2], out[..., D // 2:])
    torch.testing.assert_close(c_out.abs(), c_in.abs())  # amplitudes are the word's
    torch.testing.assert_close(out[:, 0], x[:, 0])  # position 0: the embedding itself
    omega = encoding.frequency(x)  # (2, 5, D/2), one frequency vector per word
    torch.testing.assert_close(c_out, c_in * torch.polar(torch.ones_like(omega), omega * positions[:, None]))
    other_word = encoding.embed(torch.randn(2, 5, D), positions, "encoder")
    assert not torch.allclose(encoding.frequency(x), encoding.frequency(other_word))


# -- shape and cape: random in training only -----------------------------------------------------------------------
def test_shape_shifts_each_sentence_in_training_only():
    encoding = encoding_for("shape", "encoding.max_shift=50")
    sinusoidal = encoding_for("sinusoidal")
    positions = torch.arange(6)
    x = torch.zeros(8, 6, D)
    encoding.train()
    shifted = encoding.embed(x, positions, "encoder")  # (8, 6, D): PE(p + k_b)
    candidates = sinusoidal.table(torch.arange(60))
    offsets = []
    for row in shifted:
        matches = [k for k in range(51) if torch.allclose(row, candidates[k:k + 6], atol=1e-5)]
        assert len(matches) == 1
        offsets.append(matches[0])
    assert len(set(offsets)) > 1  # drawn per sentence
    encoding.eval()
    torch.testing.assert_close(encoding.embed(x, positions, "encoder"), sinusoidal.table(positions).expand(8, 6, D))


def test_shape_eval_shift_reads_the_table_at_an_offset():
    encoding = encoding_for("shape", "encoding.eval_shift=10").eval()
    torch.testing.assert_close(encoding.embed(torch.zeros(1, 4, D), torch.arange(4), "decoder")[0],
                               encoding_for("sinusoidal").table(torch.arange(10, 14)))


def test_cape_augments_positions_in_training_only():
    encoding = encoding_for("cape")
    sinusoidal = encoding_for("sinusoidal")
    positions = torch.arange(6)
    x = torch.zeros(4, 6, D)
    encoding.train()
    first, second = encoding.embed(x, positions, "encoder"), encoding.embed(x, positions, "encoder")
    assert not torch.allclose(first, second)
    assert not torch.allclose(first[0], sinusoidal.table(positions))
    augmented = encoding.augment(positions, 1000)
    spread = augmented - positions.float()
    scale = 1.1
    assert float(augmented.min()) >= (0 - 5.0 - 0.5) * scale and float(augmented.max()) <= (5 + 5.0 + 0.5) * scale
    assert float(spread.std()) > 1.0  # global shifts of up to +-5 are drawn
    assert bool((augmented[:, 1:] > augmented[:, :-1]).all())  # local shifts <= 0.5 keep the order
    encoding.eval()
    torch.testing.assert_close(encoding.embed(x, positions, "encoder"), sinusoidal.table(positions).expand(4, 6, D))


def test_cape_without_augmentation_is_sinusoidal_in_training():
    encoding = encoding_for("cape", "encoding.max_global_shift=0", "encoding.max_local_shift=0",
                            "encoding.max_global_scaling=1").train()
    torch.testing.assert_close(encoding.embed(torch.zeros(2, 5, D), torch.arange(5), "encoder")[0],
                               encoding_for("sinusoidal").table(torch.arange(5)))


def test_cape_refuses_scaling_below_one():
    with pytest.raises(ValueError, match=r"encoding.max_global_scaling=0.5 is not allowed"):
        encoding_for("cape", "encoding.max_global_scaling=0.5")
