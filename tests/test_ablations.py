"""PE ablations (translate/ablations, conf/ablation): what each changes, what it leaves alone, the errors it raises
at start-up, and that every ablation composes with every encoding."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from conftest import CONF_DIR, make_config
from translate.ablations.remove import Remove
from translate.ablations.scale import Scale
from translate.ablations.shuffle import Shuffle, permute_within
from translate.ablations.side import Side
from translate.config import ConfigError
from translate.decoding.search import greedy_search
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.encodings.base import NO_TERMS, AttentionTerms, PositionalEncoding
from translate.assembly.builders import Component, build_encoding
from translate.model.cache import DecoderCache
from translate.model.transformer import Transformer
from translate.model.config import ModelConfig

VOCAB, PAD, BOS, EOS = 40, 0, 2, 3
SPECIALS = SpecialIds(bos_id=BOS, eos_id=EOS, pad_id=PAD)
GREEDY = DecodeSettings()
D, H = 32, 4
TINY = ("model=tiny", f"model.d_model={D}", "model.d_ff=64", "model.n_encoder_layers=1", "model.n_decoder_layers=1")
ABLATIONS = sorted(p.stem for p in Path(CONF_DIR, "ablation").glob("*.yaml") if p.stem != "none")
ENCODINGS = sorted(p.stem for p in Path(CONF_DIR, "encoding").glob("*.yaml"))


@lru_cache(maxsize=None)
def section(group: str, name: str, *overrides: str):
    """conf/<group>/<name>.yaml composed with its overrides (cached: the matrix below reuses each many times)."""
    return make_config(*TINY, f"{group}={name}", *overrides)[group]


def encoding_for(name: str, ablation: str = "none", *overrides: str) -> PositionalEncoding:
    """Build as the builder does; overrides go to the section they name (encoding.* or ablation.*)."""
    def of(group: str) -> tuple:
        return tuple(o for o in overrides if o.lstrip("+").startswith(f"{group}."))

    torch.manual_seed(0)
    return build_encoding(Component.of(section("encoding", name, *of("encoding")), "encoding"),
                          Component.of(section("ablation", ablation, *of("ablation")), "ablation"), D, H)


def model_for(name: str, ablation: str = "none", *overrides: str) -> Transformer:
    return model_with(encoding_for(name, ablation, *overrides))


def model_with(encoding: PositionalEncoding) -> Transformer:
    """The tiny model of TINY around `encoding`, with the same weights for the same seed."""
    torch.manual_seed(0)
    return Transformer(VOCAB, PAD, encoding, ModelConfig(d_model=D, n_heads=H, n_encoder_layers=1, n_decoder_layers=1, d_ff=64))


def batch(seed: int = 1):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, VOCAB, (3, 9), generator=g)
    src[1, 6:] = PAD
    src[2, 3:] = PAD
    tgt = torch.randint(4, VOCAB, (3, 8), generator=g)
    return src, tgt[:, :-1], tgt[:, 1:]


class ToyRelative(PositionalEncoding):
    """Stands in for the attention-side encodings: a bias, a content term, a value term and a rotation, every kind."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__(d_model, n_heads)
        self.slope = nn.Parameter(torch.tensor(0.5))

    def attention_terms(self, kind, q_positions, k_positions):
        distance = (k_positions.unsqueeze(-2) - q_positions.unsqueeze(-1)).abs().float()  # (..., Tq, Tk)
        bias = -self.slope * distance
        bias = bias.unsqueeze(1) if bias.dim() == 3 else bias  # (B, 1, Tq, Tk) for per-sentence positions
        return AttentionTerms(bias=bias, rotate=lambda q, k: (q.flip(-1), k.flip(-1)),
                              content_bias=lambda q, k: torch.matmul(q, k.transpose(-2, -1)) * 0.1,
                              value_term=lambda probs: probs[..., :1].expand(*probs.shape[:-1], D // H) * 0.1)


def cached_equals_uncached(model: Transformer, src, tgt_in) -> None:
    model.eval()
    torch.manual_seed(5)
    encoded = model.encode(src)
    full = model.decode(tgt_in, encoded).hidden
    cache = DecoderCache()
    steps = [model.decode(tgt_in[:, t:t + 1], encoded, cache=cache, start=t).hidden for t in range(tgt_in.size(1))]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)


# -- zero_dims ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sinusoidal", "learned", "binary", "floater", "shape"])
def test_zero_dims_zeroes_exactly_those_dims_and_leaves_the_rest(name):
    plain = encoding_for(name).eval()
    ablated = encoding_for(name, "zero_dims", "ablation.from=20", "ablation.ranges=[[2,5],[9,10]]").eval()
    positions = torch.arange(12)
    zeroed = [2, 3, 4, 9] + list(range(20, D))
    kept = [i for i in range(D) if i not in zeroed]
    with torch.no_grad():
        table, reference = ablated.table(positions), plain.table(positions)
    assert float(table[:, zeroed].abs().max()) == 0.0
    torch.testing.assert_close(table[:, kept], reference[:, kept], atol=0, rtol=0)
    assert float(reference[:, zeroed].abs().max()) > 0  # there was something to zero
    x = torch.randn(2, 12, D)
    with torch.no_grad():  # the model sees the zeroed table
        torch.testing.assert_close(ablated.embed(x, positions, "encoder"), x + table)


def test_zero_dims_counts_the_table_width_with_concat():
    ablated = encoding_for("sinusoidal", "zero_dims", "encoding.merge=concat", "ablation.from=12")
    x = torch.randn(1, 4, D)
    out = ablated.embed(x, torch.arange(4), "encoder")
    torch.testing.assert_close(out[..., :D // 2], x[..., :D // 2])  # token half untouched
    assert float(out[..., D // 2 + 12:].abs().max()) == 0.0  # table dims 12..15 are the model's last 4
    assert float(out[..., D // 2 + 1:D // 2 + 12].abs().max()) > 0
    with pytest.raises(ConfigError, match=r"ablation.from=16 is not allowed: expected an integer in \[0, 16\)"):
        encoding_for("sinusoidal", "zero_dims", "encoding.merge=concat", "ablation.from=16")


def test_zero_dims_default_from_beyond_the_width_is_refused():
    with pytest.raises(ConfigError, match=r"ablation.from=400 is not allowed: expected an integer in \[0, 32\)"):
        encoding_for("sinusoidal", "zero_dims")


@pytest.mark.parametrize("overrides, message", [
    (("ablation.ranges=[[30,40]]",), r"ablation.ranges entry \[30, 40\) is not allowed"),
    (("ablation.ranges=[[5,2]]",), r"ablation.ranges entry \[5, 2\] is not allowed"),
    (("ablation.from=null",), r"zero nothing"),
    (("ablation.from=-1",), r"ablation.from=-1 is not allowed"),
    (("+ablation.upto=3",), r"has no key\(s\) \['upto'\]"),
])
def test_zero_dims_bad_keys_are_refused(overrides, message):
    with pytest.raises(ConfigError, match=message):
        encoding_for("sinusoidal", "zero_dims", "ablation.from=8", *overrides)


@pytest.mark.parametrize("name", ["complex_order", "none"])
def test_zero_dims_needs_a_table(name):
    with pytest.raises(ConfigError, match=r"needs an encoding with a PE table"):
        encoding_for(name, "zero_dims", "ablation.from=8")


def test_zero_dims_error_reaches_start_up_validation():
    from translate.assembly.settings import validate_config

    with pytest.raises(ConfigError, match=r"ablation.from=400 is not allowed"):
        validate_config(make_config("model=tiny", "ablation=zero_dims"))


# -- remove -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["learned", "sinusoidal", "complex_order"])
def test_remove_equals_encoding_none(name):
    removed, none = model_for(name, "remove").eval(), model_for("none").eval()
    assert not list(removed.encoding.parameters())
    removed.load_state_dict(none.state_dict())  # the same architecture: identical keys
    src, tgt_in, _ = batch()
    torch.testing.assert_close(removed(src, tgt_in), none(src, tgt_in), atol=0, rtol=0)
    assert removed.encoding.max_positions is None


def test_remove_drops_attention_terms_too():
    encoding = Remove().apply(ToyRelative(D, H), D)
    positions = torch.arange(4)
    for kind in ("encoder", "decoder", "cross"):
        assert encoding.attention_terms(kind, positions, positions) is NO_TERMS


# -- side ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["encoder", "decoder"])
def test_side_keeps_one_side_of_a_table(side):
    plain, one_side = encoding_for("learned"), encoding_for("learned", "side", f"ablation.side={side}")
    x, positions = torch.randn(2, 5, D), torch.arange(5)
    for where in ("encoder", "decoder"):
        expected = plain.embed(x, positions, where) if where == side else x
        torch.testing.assert_close(one_side.embed(x, positions, where), expected)


@pytest.mark.parametrize("side", ["encoder", "decoder"])
def test_side_keeps_one_side_of_attention_terms_and_drops_cross(side):
    inner = ToyRelative(D, H)
    encoding = Side(side=side).apply(inner, D)
    q, k = torch.arange(3), torch.arange(5)
    for kind in ("encoder", "decoder", "cross"):
        terms = encoding.attention_terms(kind, q, k)
        if kind == side:
            torch.testing.assert_close(terms.bias, inner.attention_terms(kind, q, k).bias)
        else:
            assert terms is NO_TERMS


def test_side_decoder_leaves_the_encoder_without_positions():
    decoder_only, none = model_for("sinusoidal", "side", "ablation.side=decoder").eval(), model_for("none").eval()
    decoder_only.load_state_dict(none.state_dict())
    src, tgt_in, _ = batch()
    torch.testing.assert_close(decoder_only.encode(src).memory, none.encode(src).memory, atol=0, rtol=0)
    assert not torch.allclose(decoder_only(src, tgt_in), none(src, tgt_in))


def test_side_refuses_an_unknown_side():
    with pytest.raises(ConfigError, match=r"ablation.side='both' is not allowed: expected one of"):
        encoding_for("sinusoidal", "side", "ablation.side=both")


# -- scale --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("merge", ["add", "mul", "concat"])
def test_scale_multiplies_the_table(merge):
    plain = encoding_for("sinusoidal", "none", f"encoding.merge={merge}")
    scaled = encoding_for("sinusoidal", "scale", f"encoding.merge={merge}", "ablation.factor=0.25")
    positions, x = torch.arange(6), torch.randn(2, 6, D)
    torch.testing.assert_close(scaled.table(positions), 0.25 * plain.table(positions))
    expected = {"add": lambda t: x + t, "mul": lambda t: x * (1 + t),
                "concat": lambda t: torch.cat([x[..., :D // 2], t.expand(2, 6, D // 2)], dim=-1)}[merge]
    torch.testing.assert_close(scaled.embed(x, positions, "encoder"), expected(0.25 * plain.table(positions)))


def test_scale_multiplies_bias_content_and_value_terms_but_not_rotations():
    inner = ToyRelative(D, H)
    scaled = Scale(factor=3.0).apply(inner, D)
    positions = torch.arange(4)
    q, k, probs = torch.randn(1, H, 4, D // H), torch.randn(1, H, 4, D // H), torch.rand(1, H, 4, 4)
    ours, theirs = scaled.attention_terms("encoder", positions, positions), inner.attention_terms("encoder", positions,
                                                                                                  positions)
    torch.testing.assert_close(ours.bias, 3.0 * theirs.bias)
    torch.testing.assert_close(ours.content_bias(q, k), 3.0 * theirs.content_bias(q, k))
    torch.testing.assert_close(ours.value_term(probs), 3.0 * theirs.value_term(probs))
    torch.testing.assert_close(ours.rotate(q, k)[0], theirs.rotate(q, k)[0])


def test_scale_zero_equals_no_positions():
    scaled, none = model_for("sinusoidal", "scale", "ablation.factor=0").eval(), model_for("none").eval()
    scaled.load_state_dict(none.state_dict())
    src, tgt_in, _ = batch()
    torch.testing.assert_close(scaled(src, tgt_in), none(src, tgt_in))


def test_scale_refuses_what_has_nothing_to_scale():
    with pytest.raises(ConfigError, match=r"ComplexOrder has no PE table and no additive attention term"):
        encoding_for("complex_order", "scale")
    with pytest.raises(ConfigError, match=r"ablation.factor='big' is not allowed: expected a finite number"):
        encoding_for("sinusoidal", "scale", "ablation.factor=big")


# -- shuffle ------------------------------------------------------------------------------------------------------
def test_permute_within_permutes_real_tokens_and_keeps_padding():
    lengths = torch.tensor([9, 6, 3, 1])
    draws = [permute_within(torch.arange(9), lengths) for _ in range(5)]
    for shuffled in draws:
        for row, length in zip(shuffled.tolist(), lengths.tolist()):
            assert sorted(row[:length]) == list(range(length))
            assert row[length:] == list(range(length, 9))
    assert any(not torch.equal(draws[0], other) for other in draws[1:])  # fresh at every call


def test_shuffle_changes_nothing_for_a_nope_model():
    shuffled, plain = model_for("none", "shuffle").eval(), model_for("none").eval()
    shuffled.load_state_dict(plain.state_dict())
    src, tgt_in, _ = batch()
    torch.testing.assert_close(shuffled(src, tgt_in), plain(src, tgt_in), atol=1e-6, rtol=1e-6)


def test_shuffle_changes_the_encoder_positions_only():
    shuffled, plain = model_for("sinusoidal", "shuffle").eval(), model_for("sinusoidal").eval()
    src, tgt_in, _ = batch()
    torch.manual_seed(3)
    encoded = shuffled.encode(src)
    assert encoded.positions.shape == src.shape and not torch.equal(encoded.positions[0], torch.arange(9))
    assert not torch.allclose(encoded.memory, plain.encode(src).memory)
    decoder = shuffled.encoding.sentence_positions(torch.arange(7), src.ne(PAD).sum(1), "decoder")
    assert torch.equal(decoder, torch.arange(7))


@pytest.mark.parametrize("encoding", ["sinusoidal", "normalized", "toy"])
def test_shuffle_trains_and_decodes_with_cache(encoding):
    inner = ToyRelative(D, H) if encoding == "toy" else encoding_for(encoding)
    model = model_with(Shuffle().apply(inner, D))  # attention terms get (B, Ts) positions
    src, tgt_in, tgt_out = batch()
    loss = F.cross_entropy(model.project(model(src, tgt_in)).transpose(1, 2), tgt_out)
    loss.backward()
    assert torch.isfinite(loss)
    cached_equals_uncached(model, src, tgt_in)
    outputs = []
    for use_cache in (True, False):
        torch.manual_seed(7)  # the same permutation for both searches
        outputs.append(greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=use_cache))
    assert outputs[0] == outputs[1]


# -- randomized ---------------------------------------------------------------------------------------------------
def test_randomized_positions_are_sorted_distinct_and_inside_the_range_in_training_only():
    encoding = encoding_for("sinusoidal", "randomized", "ablation.max_length=12").train()
    lengths = torch.tensor([9, 4, 6])
    drawn = [encoding.sentence_positions(torch.arange(9), lengths, side) for side in ("encoder", "decoder")] * 20
    for positions in drawn:
        assert positions.shape == (3, 9)
        assert bool((positions.diff(dim=1) > 0).all())  # increasing, hence distinct
        assert int(positions.min()) >= 0 and int(positions.max()) < 12
    assert len({tuple(p[0].tolist()) for p in drawn}) > 1  # drawn anew
    assert int(torch.stack(drawn).max()) > 8  # beyond the plain 0..8
    encoding.eval()
    for side in ("encoder", "decoder"):
        assert torch.equal(encoding.sentence_positions(torch.arange(9), lengths, side), torch.arange(9))


def test_randomized_refuses_a_range_beyond_the_table_or_an_encoding_without_positions():
    with pytest.raises(ConfigError, match=r"ablation.max_length=300 is not allowed: encoding Learned represents at "
                                          r"most 256 positions"):
        encoding_for("learned", "randomized", "ablation.max_length=300")
    for name in ("none", "cope"):
        with pytest.raises(ConfigError, match=r"reads no position ids, so there is nothing to randomize"):
            encoding_for(name, "randomized")
    encoding = encoding_for("rope", "randomized", "ablation.max_length=4").train()
    with pytest.raises(ValueError, match=r"a training batch of 9 tokens needs 9 distinct positions"):
        encoding.sentence_positions(torch.arange(9), torch.tensor([9]), "encoder")


@pytest.mark.parametrize("encoding", ["learned", "rope", "alibi"])
def test_randomized_positions_reach_the_encoding_in_training(encoding):
    model = model_for(encoding, "randomized", "ablation.max_length=64").eval()
    model.encoding.train()  # the positions of training, without dropout
    src, tgt_in, _ = batch()
    assert not torch.allclose(model(src, tgt_in), model(src, tgt_in))  # other positions drawn at every pass
    model.eval()
    plain = model_for(encoding).eval()
    torch.testing.assert_close(model(src, tgt_in), plain(src, tgt_in))  # evaluation: 0..n-1, the plain model


# -- freeze -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["learned", "hierarchical", "floater"])
def test_freeze_leaves_the_table_unchanged_by_an_optimiser_step(name):
    model = model_for(name, "freeze")
    before = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)  # as the trainer builds it
    src, tgt_in, tgt_out = batch()
    F.cross_entropy(model.project(model(src, tgt_in)).transpose(1, 2), tgt_out).backward()
    optimizer.step()
    after = model.state_dict()
    encoding_keys = [k for k in after if k.startswith("encoding.")]
    assert encoding_keys and all(torch.equal(before[k], after[k]) for k in encoding_keys)
    assert not torch.equal(before["src_embed.weight"], after["src_embed.weight"])


def test_freeze_refuses_an_encoding_without_parameters():
    with pytest.raises(ConfigError, match=r"encoding Sinusoidal has no parameters to freeze"):
        encoding_for("sinusoidal", "freeze")


# -- every ablation with every encoding ---------------------------------------------------------------------------
def expected_refusal(ablation: str, encoding: PositionalEncoding) -> bool:
    """Combinations that have nothing to act on (checked against the class, not the name)."""
    from translate.ablations.scale import has_additive_terms
    from translate.encodings.base import AbsoluteEncoding

    has_table = isinstance(encoding, AbsoluteEncoding)
    from translate.ablations.randomized import reads_positions

    return {"zero_dims": not has_table, "scale": not (has_table or has_additive_terms(encoding)),
            "freeze": not list(encoding.parameters()), "randomized": not reads_positions(encoding)}.get(ablation, False)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("ablation", ABLATIONS)
def test_every_ablation_composes_with_every_encoding(ablation, encoding):
    extra = ("ablation.from=16",) if ablation == "zero_dims" else ()
    if expected_refusal(ablation, encoding_for(encoding)):
        with pytest.raises(ConfigError, match="ablation"):
            model_for(encoding, ablation, *extra)
        return
    model = model_for(encoding, ablation, *extra)
    src, tgt_in, tgt_out = batch()
    loss = F.cross_entropy(model.project(model(src, tgt_in)).transpose(1, 2), tgt_out)
    loss.backward()
    assert torch.isfinite(loss)
    cached_equals_uncached(model, src, tgt_in)


# -- end to end ---------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_run_with_an_ablation_trains_saves_and_reloads(tiny_config, tmp_path):
    from translate.assembly.trained import load_model
    from translate.cli.train import run

    cfg = tiny_config("encoding=learned", "ablation=side", "ablation.side=decoder", "train.max_steps=4",
                      "train.valid_every=2", "train.save_every=2", "data.test_limit=20", "train.valid_bleu_limit=20")
    metrics = run(cfg, tmp_path)
    assert metrics["ablation"] == "side"
    assert json.loads((tmp_path / "metrics.json").read_text())["ablation"] == "side"
    loaded = load_model(tmp_path / "last.pt")
    assert type(loaded.model.encoding).__name__ == "OneSideEncoding"
    x = torch.randn(1, 3, loaded.model.d_model)
    assert torch.equal(loaded.model.encoding.embed(x, torch.arange(3), "encoder"), x)


# -- zero_dims fill=mean and test-time ablation (controls for claim (a)) ---------------------------------------------
def test_zero_dims_fill_mean_removes_position_information_and_keeps_the_mean():
    plain = encoding_for("sinusoidal").eval()
    ablated = encoding_for("sinusoidal", "zero_dims", "ablation.from=20", "ablation.fill=mean",
                           "ablation.mean_positions=64").eval()
    with torch.no_grad():
        table, reference = ablated.table(torch.arange(12)), plain.table(torch.arange(12))
        mean = plain.table(torch.arange(64))[:, 20:].mean(0)
    torch.testing.assert_close(table[:, :20], reference[:, :20], atol=0, rtol=0)      # other dims untouched
    torch.testing.assert_close(table[:, 20:], mean.expand(12, -1))                     # constant: the mean
    assert float(reference[:, 20:].std(0).max()) > 0                                  # they did vary
    everything = encoding_for("sinusoidal", "zero_dims", "ablation.from=0", "ablation.fill=mean").eval()
    x = torch.zeros(1, 9, D)
    with torch.no_grad():
        out = everything.embed(x, torch.arange(9), "encoder")                           # (1, 9, D)
    torch.testing.assert_close(out, out[:, :1].expand_as(out))                        # same at every position
    assert float(out.abs().max()) > 0                                                  # the constant vector stays


def test_zero_dims_bad_fill_is_refused():
    with pytest.raises(ConfigError, match=r"ablation.fill='half' is not allowed: expected one of \['zero', 'mean'\]"):
        encoding_for("sinusoidal", "zero_dims", "ablation.from=8", "ablation.fill=half")


def test_evaluate_applies_the_ablation_to_a_model_trained_without_it():
    from translate.ablations import apply_at_test_time

    torch.manual_seed(0)
    model = Transformer(VOCAB, PAD, encoding_for("sinusoidal"), ModelConfig(d_model=D, n_heads=H, n_encoder_layers=1,
                        n_decoder_layers=1, d_ff=64)).eval()
    before = model.encoding.table(torch.arange(6)).clone()
    apply_at_test_time(model, make_config("checkpoint=x", "ablation=none", config_name="evaluate").ablation)
    torch.testing.assert_close(model.encoding.table(torch.arange(6)), before)
    cfg = make_config("checkpoint=x", "ablation=zero_dims", "ablation.from=20", config_name="evaluate")
    apply_at_test_time(model, cfg.ablation)
    table = model.encoding.table(torch.arange(6))
    assert float(table[:, 20:].abs().max()) == 0.0 and torch.equal(table[:, :20], before[:, :20])


def test_positive_control_zeroes_the_first_112_dims():
    cfg = make_config("model=base", "+sweep/pe=sinusoidal_zero_low_dims")
    assert cfg.ablation.name == "zero_low_dims" and cfg.ablation["from"] is None
    assert [list(r) for r in cfg.ablation.ranges] == [[0, 112]]
