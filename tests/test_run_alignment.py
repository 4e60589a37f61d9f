"""Diagonal share and entropy; teacher-forced attention weights do not depend on the batch around a sentence."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from translate.encodings.sinusoidal import Sinusoidal
from translate.model.transformer import Transformer
from translate.data.pipeline import TokenizedSplit
from translate.analysis.run.alignment import (align_one, attention_entropy, chance_share, diagonal_band, diagonal_share,
                                         kendall_tau, mean_by_bucket, sentence_alignment)
from translate.analysis.run.forced_attention import forced_attention
from translate.model.config import ModelConfig

SPECIALS = SimpleNamespace(pad_id=0, unk_id=1, bos_id=2, eos_id=3)


def test_identity_alignment_is_all_on_the_diagonal():
    probs = torch.eye(12).expand(2, 4, 12, 12)  # (L, H, T, T)
    assert diagonal_share(probs) == pytest.approx(1.0)
    assert attention_entropy(probs) == pytest.approx(0.0, abs=1e-6)


def test_monotone_alignment_of_unequal_lengths_is_on_the_diagonal():
    tq, tk = 10, 28
    probs = torch.zeros(tq, tk)
    probs[torch.arange(tq), (torch.arange(tq) * (tk - 1) / (tq - 1)).round().long()] = 1.0
    assert diagonal_share(probs) == pytest.approx(1.0)


@pytest.mark.parametrize("width", [10, 40, 100])
def test_uniform_attention_puts_about_one_width_th_per_band_token_on_the_diagonal(width):
    probs = torch.full((width, width), 1.0 / width)
    band_tokens = 3  # +-1 token around the diagonal
    assert diagonal_share(probs) == pytest.approx(band_tokens / width, rel=0.15)
    assert diagonal_share(probs) < band_tokens / width  # first and last rows only hold 2 band tokens
    assert attention_entropy(probs) == pytest.approx(math.log(width), rel=1e-5)


def test_anti_diagonal_attention_is_off_the_diagonal():
    probs = torch.eye(20).flip(-1)
    assert diagonal_share(probs) == pytest.approx(2 / 20)  # only the rows that cross the middle


def test_band_is_plus_minus_one_token():
    assert diagonal_band(4, 4).sum(-1).tolist() == [2, 3, 3, 2]


def test_mean_by_bucket_leaves_empty_buckets_empty():
    assert mean_by_bucket([0.2, 0.4, 1.0], [0, 0, 2], 3) == [0.3, None, 1.0]


def tiny_model() -> Transformer:
    torch.manual_seed(0)
    return Transformer(30, 0, Sinusoidal(32, 4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=2,
                       d_ff=64)).eval()


def test_forced_attention_ignores_padding_and_batch_neighbours():
    model = tiny_model()
    src = [[5, 6, 7], [5, 6, 7, 8, 9, 10, 11, 12, 13]]
    hyp = [[14, 15], [14, 15, 16, 17, 18, 19]]
    together = dict(forced_attention(model, SPECIALS, src, hyp))
    alone = dict(forced_attention(model, SPECIALS, src[:1], hyp[:1]))
    att = together[0]
    assert att.cross.shape == (2, 4, 3, 4) and att.encoder.shape == (2, 4, 4, 4) and att.decoder.shape == (2, 4, 3, 3)
    for name in ("encoder", "decoder", "cross"):
        assert torch.allclose(getattr(att, name), getattr(alone[0], name), atol=1e-5)
    assert torch.allclose(att.cross.sum(-1), torch.ones(2, 4, 3), atol=1e-5)
    assert torch.equal(att.decoder.triu(1), torch.zeros_like(att.decoder))  # causal


def test_sentence_alignment_is_a_share_and_a_bounded_entropy():
    model = tiny_model()
    src = [[5, 6, 7, 8], [9] * 12]
    ref = [[14, 15, 16], [17, 18]]
    aligned = sentence_alignment(model, SPECIALS, src, ref)
    assert all(0.0 <= a.share <= 1.0 and -1.0 <= a.monotonicity <= 1.0 for a in aligned)
    assert all(0.0 <= a.entropy <= math.log(len(s) + 1) + 1e-5 for a, s in zip(aligned, src))
    assert len(aligned[0].by_layer) == 2


@pytest.mark.parametrize("tq, tk", [(5, 9), (12, 12), (25, 31), (40, 60)])
def test_normalised_share_is_one_for_identity_and_zero_for_uniform_at_every_length(tq, tk):
    monotone = torch.zeros(2, 4, tq, tk)
    monotone[..., torch.arange(tq), (torch.arange(tq) * (tk - 1) / (tq - 1)).round().long()] = 1.0
    one = align_one(monotone)
    assert one.normalised == pytest.approx(1.0) and one.monotonicity == pytest.approx(1.0)
    assert one.by_layer == [pytest.approx(1.0)] * 2
    uniform = align_one(torch.full((2, 4, tq, tk), 1.0 / tk))
    assert uniform.share == pytest.approx(chance_share(tq, tk))   # the raw share is the chance level...
    assert uniform.normalised == pytest.approx(0.0, abs=1e-6)     # ...which normalises to 0 at every length
    assert uniform.entropy == pytest.approx(math.log(tk), rel=1e-5)


def test_kendall_tau_of_argmax_positions():
    assert kendall_tau([0, 1, 2, 3]) == pytest.approx(1.0)
    assert kendall_tau([3, 2, 1, 0]) == pytest.approx(-1.0)
    assert kendall_tau([2, 2, 2]) == 0.0
    assert kendall_tau([0, 0, 1, 1]) == pytest.approx(4 / math.sqrt(6 * 4))   # tau-b with ties: 4 / sqrt(6 * 4)


def test_alignment_forces_the_reference_the_same_target_for_two_models(monkeypatch):
    """Two different models with different hypotheses: the alignment reads both on the reference ids."""
    from translate.data.cleaning import Pair
    from translate.analysis.run import report_split
    from translate.analysis.run.settings import ReportSettings

    split = TokenizedSplit([Pair("a b c", "x y"), Pair("d e", "z")], [[5, 6, 7], [8, 9]], [[14, 15], [16]])
    seen = []
    real = report_split.sentence_alignment

    def spy(model, tokenizer, src_ids, tgt_ids, batch_tokens=4000, **kwargs):
        seen.append([list(t) for t in tgt_ids])
        return real(model, tokenizer, src_ids, tgt_ids, batch_tokens, **kwargs)

    monkeypatch.setattr(report_split, "sentence_alignment", spy)
    settings = ReportSettings(bootstrap_samples=20)
    for seed, hyps in ((0, ["x y", "z"]), (1, ["something else entirely", ""])):
        torch.manual_seed(seed)
        model = Transformer(30, 0, Sinusoidal(32, 4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=1,
                            n_decoder_layers=1, d_ff=64)).eval()
        translator = SimpleNamespace(model=model, tokenizer=SPECIALS, settings=SimpleNamespace(batch_tokens=4000))
        report = report_split.by_length(settings, translator, split, hyps)
        assert report["alignment_forced_on"] == "reference"
        assert len(report["per_sentence"]["diagonal_share_normalised"]) == 2
    assert seen[0] == seen[1] == split.tgt
