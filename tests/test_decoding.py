"""Greedy and beam search: beam 1 = greedy, cached = uncached, length limits, batching."""
from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from translate.decoding.length import longest_source_fitting, max_output_tokens, max_output_tokens_per_sentence
from translate.decoding.search import beam_search, greedy_search, search
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.decoding.translator import length_batches
from translate.encodings.sinusoidal import Sinusoidal
from translate.model.cache import DecoderCache
from translate.model.transformer import Transformer
from translate.model.config import ModelConfig

PAD, BOS, EOS, VOCAB = 0, 2, 3, 40
SPECIALS = SpecialIds(bos_id=BOS, eos_id=EOS, pad_id=PAD)
GREEDY = DecodeSettings()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(1)
    m = Transformer(VOCAB, PAD, Sinusoidal(32, 4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=2,
                    d_ff=64, dropout=0.0))
    with torch.no_grad():  # make eos unlikely-but-possible so outputs have varied lengths
        m.output.weight.mul_(3.0)
    return m.eval()


@pytest.fixture(scope="module")
def src():
    g = torch.Generator().manual_seed(0)
    rows = [torch.randint(4, VOCAB, (n,), generator=g).tolist() + [EOS] for n in (7, 3, 5, 9, 1, 6)]
    width = max(map(len, rows))
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


def test_cached_decoding_equals_uncached(model, src):
    cached = greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=True)
    uncached = greedy_search(model, src, specials=SPECIALS, settings=GREEDY, use_cache=False)
    assert cached == uncached
    beam3 = DecodeSettings(beam_size=3)
    assert beam_search(model, src, specials=SPECIALS, settings=beam3, use_cache=True) == \
        beam_search(model, src, specials=SPECIALS, settings=beam3, use_cache=False)


def test_cached_step_logits_equal_the_full_forward(model, src):
    encoded = model.encode(src)
    prefix = torch.tensor([[BOS, 5, 6, 7]] * src.size(0))
    full = model.project(model.decode(prefix, encoded).hidden)
    cache, steps = DecoderCache(), []
    for t in range(prefix.size(1)):
        steps.append(model.project(model.decode(prefix[:, t:t + 1], encoded, cache=cache, start=t).hidden))
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)


def test_beam_one_equals_greedy(model, src):
    beam1 = DecodeSettings(beam_size=1)
    assert beam_search(model, src, specials=SPECIALS, settings=beam1) == \
        greedy_search(model, src, specials=SPECIALS, settings=GREEDY)


def test_search_is_greedy_for_beam_one_and_beam_search_otherwise(model, src):
    assert search(model, src, specials=SPECIALS, settings=GREEDY) == \
        greedy_search(model, src, specials=SPECIALS, settings=GREEDY)
    beam3 = DecodeSettings(beam_size=3, length_penalty=0.5)
    assert search(model, src, specials=SPECIALS, settings=beam3) == \
        beam_search(model, src, specials=SPECIALS, settings=beam3)


def test_search_settings_are_keywords_and_decode_settings_keep_their_old_import():
    from translate.decoding import translator

    with pytest.raises(TypeError):
        greedy_search(None, None, SPECIALS, GREEDY)  # only the tensors are positional
    assert translator.DecodeSettings is DecodeSettings


def test_beam_finds_a_sequence_at_least_as_likely_as_greedy(model, src):
    @torch.no_grad()
    def log_prob(row, tokens):
        ys = torch.tensor([[BOS] + tokens])
        logp = model.project(model.decode(ys, model.encode(src[row:row + 1])).hidden).log_softmax(-1)
        return float(logp[0, torch.arange(len(tokens) + 1), torch.tensor(tokens + [EOS])].sum())
    greedy = greedy_search(model, src, specials=SPECIALS, settings=GREEDY)
    beam = beam_search(model, src, specials=SPECIALS, settings=DecodeSettings(beam_size=4, length_penalty=0.0))
    for row in range(src.size(0)):
        assert log_prob(row, beam[row]) >= log_prob(row, greedy[row]) - 1e-4


def test_outputs_respect_the_length_limit(model, src):
    out = greedy_search(model, src, specials=SPECIALS,
                        settings=DecodeSettings(max_length_ratio=1.0, max_length_extra=2))
    lengths = src.ne(PAD).sum(1).tolist()
    assert all(len(o) + 1 <= n + 2 for o, n in zip(out, lengths))


def test_batched_decoding_equals_one_sentence_at_a_time(model, src):
    together = greedy_search(model, src, specials=SPECIALS, settings=GREEDY)
    for row in range(src.size(0)):
        n = int(src[row].ne(PAD).sum())
        assert greedy_search(model, src[row:row + 1, :n], specials=SPECIALS, settings=GREEDY) == [together[row]]


def test_batched_beam_search_equals_one_sentence_at_a_time(model, src):
    # Sentences leave the batch when done, with their rows of the memory and the cache: the others must not notice.
    beam3 = DecodeSettings(beam_size=3)
    together = beam_search(model, src, specials=SPECIALS, settings=beam3)
    assert len({len(out) for out in together}) > 1  # sentences end at different steps
    for row in range(src.size(0)):
        n = int(src[row].ne(PAD).sum())
        assert beam_search(model, src[row:row + 1, :n], specials=SPECIALS, settings=beam3) == [together[row]]


def test_greedy_sentences_end_at_different_steps(model, src):
    outputs = greedy_search(model, src, specials=SPECIALS, settings=GREEDY)
    assert len({len(out) for out in outputs}) > 1  # so the batched test above removes rows mid-search


def test_length_batches_cover_all_within_budget():
    lengths = [5, 50, 3, 20, 20, 7, 1]
    batches = length_batches(lengths, 40)
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert all(len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 40 for b in batches)


def test_decoding_stops_at_the_last_position_a_learned_table_represents():
    from translate.encodings.learned import Learned

    torch.manual_seed(0)
    m = Transformer(VOCAB, PAD, Learned(32, 4, max_positions=6), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=1,
                    n_decoder_layers=1, d_ff=64, dropout=0.0)).eval()
    src = torch.tensor([[5, 6, 7, 8, EOS]])
    long_outputs = DecodeSettings(max_length_ratio=3.0)
    for out in (greedy_search(m, src, specials=SPECIALS, settings=long_outputs),
                beam_search(m, src, specials=SPECIALS, settings=replace(long_outputs, beam_size=2))):
        assert len(out[0]) + 1 <= 6


# -- the output-length rule (translate/decoding/length.py) ----------------------------------------------------------
def test_the_batch_length_rule_is_the_sentence_rule_capped_by_the_table():
    source_tokens = torch.tensor([1, 7, 90, 170, 400])
    for ratio in (1.5, 1.3, 0.7):  # 90 * 1.3 and 170 * 0.7 round below the integer in float32
        expected = [max_output_tokens(n, ratio, 4) for n in source_tokens.tolist()]
        assert max_output_tokens_per_sentence(source_tokens, ratio, 4).tolist() == expected
        capped = max_output_tokens_per_sentence(source_tokens, ratio, 4, max_positions=100).tolist()
        assert capped == [min(n, 100) for n in expected]
    assert max_output_tokens(90, 1.3, 4) == 117 + 4


def test_the_longest_source_fitting_a_table_is_the_inverse_of_the_rule():
    for max_positions, ratio, extra in ((40, 1.5, 10), (24, 1.5, 4), (512, 1.3, 10), (100, 0.7, 3)):
        n = longest_source_fitting(max_positions, ratio, extra, cap=1000)
        assert max_output_tokens(n + 1, ratio, extra) <= max_positions and n + 1 <= max_positions  # eos counted
        assert max_output_tokens(n + 2, ratio, extra) > max_positions or n + 2 > max_positions
    assert longest_source_fitting(40, 1.5, 10, cap=5) == 5
    assert longest_source_fitting(None, 1.5, 10, cap=7) == 7
    with pytest.raises(ValueError, match="represents only 10 positions"):
        longest_source_fitting(10, 1.5, 10, cap=1000)
