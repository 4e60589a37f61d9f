"""What the reports write to TensorBoard, read back from the event files."""
from __future__ import annotations

import json

import pytest
import torch
from conftest import TINY_RUN, make_config
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import DecodeSettings, Translator
from translate.encodings.base import AttentionTerms, PositionalEncoding
from translate.encodings.none import NoEncoding
from translate.scoring.splits import translate_split
from translate.analysis.run.encoding_pictures import bias_by_distance, encoding_figures, position_only_scores
from translate.analysis.run.report_split import report_checkpoint
from translate.analysis.run.settings import ReportSettings
from translate.assembly.settings import typed
from translate.assembly.trainer import model_from_config


def read_events(folder) -> EventAccumulator:
    events = EventAccumulator(str(folder), size_guidance={"images": 0, "scalars": 0})
    events.Reload()
    return events


@pytest.fixture(scope="module")
def translator(tiny_data):
    cfg = make_config(*TINY_RUN)
    torch.manual_seed(0)
    model = model_from_config(cfg, len(tiny_data.tokenizer), tiny_data.tokenizer.pad_id).eval()
    return Translator(model, tiny_data.tokenizer, DecodeSettings(max_length_extra=3))


def test_report_writes_scalars_images_and_tables(tiny_data, translator, tmp_path):
    test = tiny_data.splits["test"]
    split = TokenizedSplit(test.pairs[:24], test.src[:24], test.tgt[:24])
    hyps = translate_split(translator, split)
    settings = report_settings(make_config("report.edges=[2,4]", "report.bootstrap_samples=50"))
    report = report_checkpoint(settings, translator, split, hyps, tmp_path, step=7)

    assert [b["bucket"] for b in report["buckets"]] == ["1-2", "3-4", "5+"]
    assert sum(b["sentences"] for b in report["buckets"]) == 24
    json.dumps(report)  # goes into metrics.json as it is
    table = (tmp_path / "by_length.md").read_text()
    assert "| 3-4 |" in table and "BLEU 95% CI" in table

    events = read_events(tmp_path / "tb")
    scalars, images = events.Tags()["scalars"], events.Tags()["images"]
    for row in report["buckets"]:
        for key in ("bleu", "chrf", "diagonal_share", "attention_entropy"):
            tag = f"test/{key}_by_length/{row['bucket']}"
            assert tag in scalars
            assert events.Scalars(tag)[0].step == 7
            assert events.Scalars(tag)[0].value == pytest.approx(row[key], abs=1e-4)
    assert "test/by_length/bar_chart" in images
    probes = ["fixed/0", "fixed/1"] + [f"{b['bucket']}/test{i}" for b, i in
                                       zip(report["buckets"], first_of_each_bucket(split))]
    for label in probes:
        for kind in ("cross", "cross_heads", "encoder_self", "decoder_self"):
            assert f"attention/{kind}/{label}" in images
    for name in ("table", "cosine_similarity", "dimension_variance"):
        assert f"encoding/{name}" in images
    image = events.Images("attention/cross_heads/fixed/0")[0]
    assert image.step == 7 and image.width > 200 and image.height > 200


def first_of_each_bucket(split) -> list[int]:
    lengths = [len(p.fr.split()) for p in split.pairs]
    return [next(i for i, n in enumerate(lengths) if low <= n <= high) for low, high in ((1, 2), (3, 4), (5, 99))]


def test_only_the_asked_images_are_drawn(tiny_data, translator, tmp_path):
    test = tiny_data.splits["test"]
    split = TokenizedSplit(test.pairs[:6], test.src[:6], test.tgt[:6])
    settings = report_settings(make_config("report.images=[cross]", "report.probes_per_bucket=0",
                                                      "report.bootstrap_samples=0"))
    report = report_checkpoint(settings, translator, split, translate_split(translator, split), tmp_path, step=1)
    assert all(b["bleu_ci"] is None for b in report["buckets"])
    images = read_events(tmp_path / "tb").Tags()["images"]
    assert sorted(images) == ["attention/cross/fixed/0", "attention/cross/fixed/1"]


class DistanceBias(PositionalEncoding):
    """-slope_h * |i - j|, an ALiBi-like test double."""

    def attention_terms(self, kind, q_positions, k_positions):
        slopes = torch.arange(1, self.n_heads + 1, dtype=torch.float32)[:, None, None]  # (H, 1, 1)
        distance = (k_positions[None, :] - q_positions[:, None]).abs().float()  # (Tq, Tk)
        return AttentionTerms(bias=-slopes * distance)


def test_bias_pictures_show_bias_against_distance():
    distances, means = bias_by_distance(DistanceBias(16, 2).attention_terms("encoder", torch.arange(5),
                                                                            torch.arange(5)).bias)
    assert distances.tolist() == [-4, -3, -2, -1, 0, 1, 2, 3, 4]
    assert means[1].tolist() == [-8.0, -6.0, -4.0, -2.0, 0.0, -2.0, -4.0, -6.0, -8.0]
    assert sorted(encoding_figures(DistanceBias(16, 2), 20)) == ["bias_cross", "bias_decoder", "bias_encoder"]
    assert encoding_figures(NoEncoding(16, 2), 20) == {}


class PairRotation(PositionalEncoding):
    """Rotates each (even, odd) pair of q and k dims by position * 0.3 rad: a one-frequency RoPE test double."""

    def attention_terms(self, kind, q_positions, k_positions):
        def rotate_at(x, positions):
            angle = positions.float()[:, None] * 0.3  # (T, 1)
            even, odd = x[..., 0::2], x[..., 1::2]
            return torch.stack([even * angle.cos() - odd * angle.sin(), even * angle.sin() + odd * angle.cos()],
                               -1).flatten(-2)
        return AttentionTerms(rotate=lambda q, k: (rotate_at(q, q_positions), rotate_at(k, k_positions)))


def test_rotation_pictures_score_a_fixed_query_and_key_by_distance():
    scores = position_only_scores(PairRotation(16, 2), "encoder", torch.arange(12))  # (H, T, T)
    assert scores.shape == (2, 12, 12)
    for offset in range(-11, 12):
        diagonal = torch.diagonal(scores, offset, -2, -1)
        assert torch.allclose(diagonal, diagonal[:, :1].expand_as(diagonal), atol=1e-5)  # depends on distance only
    assert not torch.allclose(scores[:, 0, 0], scores[:, 0, 5])
    assert sorted(encoding_figures(PairRotation(16, 2), 20)) == ["score_cross", "score_decoder", "score_encoder"]
    assert position_only_scores(DistanceBias(16, 2), "encoder", torch.arange(4)) is None


def report_settings(cfg) -> ReportSettings:
    return typed(cfg, "report", ReportSettings)
