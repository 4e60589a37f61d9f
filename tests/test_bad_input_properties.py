"""Property-based: arbitrary text through tokenizer -> model -> decoding never fails and keeps one output per line."""
from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TINY_RUN, make_config
from translate.assembly.trained import LoadedModel
from translate.data.cleaning import normalise
from translate.decoding.translator import DecodeSettings
from translate.cli.translate import translate_lines
from translate.assembly.trainer import model_from_config

MAX_POSITIONS = 24  # a small learned table, so truncation is exercised often


@pytest.fixture(scope="module")
def loaded(tiny_data):
    cfg = make_config(*TINY_RUN, "encoding=learned", f"encoding.max_positions={MAX_POSITIONS}")
    torch.manual_seed(0)
    model = model_from_config(cfg, len(tiny_data.tokenizer), tiny_data.tokenizer.pad_id).eval()
    return LoadedModel(model, tiny_data.tokenizer, cfg, 0)


TEXT = st.text(st.characters(codec="utf-8"), max_size=120)  # any code point UTF-8 can carry, controls included
LINES = st.lists(st.one_of(TEXT, st.sampled_from(["", "   ", "\t", "Je pars en vacances.", "日本語 " * 40])),
                 min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(lines=LINES, beam=st.sampled_from([1, 2]))
def test_arbitrary_text_translates_line_for_line(loaded, lines, beam):
    settings_ = DecodeSettings(beam_size=beam, max_length_ratio=1.5, max_length_extra=4)
    result = translate_lines(loaded, settings_, lines)
    assert len(result.lines) == len(lines) and all(isinstance(out, str) for out in result.lines)
    for line, out in zip(lines, result.lines):  # no output ran past the table, or Learned would have raised
        if not normalise(line):
            assert out == ""
    assert all(w.startswith("warning: input line ") for w in result.warnings)


@settings(max_examples=100, deadline=None)
@given(text=TEXT)
def test_tokenizer_round_trip_never_fails(loaded, text):
    ids = loaded.tokenizer.encode([normalise(text)])[0]
    assert all(0 <= i < len(loaded.tokenizer) for i in ids)
    assert isinstance(loaded.tokenizer.decode([ids])[0], str)
