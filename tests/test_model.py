"""The Transformer trunk: causal masking, padding, attention weights as return values, NoPE equivariance."""
from __future__ import annotations

import pytest
import torch

from translate.encodings.learned import Learned
from translate.encodings.none import NoEncoding
from translate.encodings.sinusoidal import Sinusoidal
from translate.model.transformer import Transformer
from translate.model.config import ModelConfig

VOCAB, PAD = 50, 0


def make_model(encoding_cls=Sinusoidal, norm_position="pre", **kw) -> Transformer:
    torch.manual_seed(0)
    model = Transformer(VOCAB, PAD, encoding_cls(32, 4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=2,
                        n_decoder_layers=2, d_ff=64, dropout=0.0, norm_position=norm_position, **kw))
    return model.eval()


def tokens(*rows):
    return torch.tensor(rows, dtype=torch.long)


@pytest.mark.parametrize("norm_position", ["pre", "post"])
def test_a_future_target_token_does_not_change_earlier_logits(norm_position):
    model = make_model(norm_position=norm_position)
    src = tokens([5, 6, 7, 3])
    a = model.project(model(src, tokens([2, 10, 11, 12, 13])))
    b = model.project(model(src, tokens([2, 10, 11, 40, 41])))
    torch.testing.assert_close(a[:, :3], b[:, :3])
    assert not torch.allclose(a[:, 3:], b[:, 3:])


def test_padding_does_not_change_outputs():
    model = make_model()
    alone = model.project(model(tokens([5, 6, 7, 3]), tokens([2, 10, 11])))
    padded = model.project(model(tokens([5, 6, 7, 3, PAD, PAD], [8, 3, PAD, PAD, PAD, PAD]),
                                 tokens([2, 10, 11, PAD], [2, 12, PAD, PAD])))
    torch.testing.assert_close(padded[:1, :3], alone, atol=1e-5, rtol=1e-5)


def test_attention_weights_are_returned_and_match_the_fused_path():
    model = make_model()
    src, tgt = tokens([5, 6, 7, 3], [9, 3, PAD, PAD]), tokens([2, 10, 11], [2, 12, PAD])
    encoded = model.encode(src, need_weights=True)
    decoded = model.decode(tgt, encoded, need_weights=True)
    assert len(encoded.weights) == 2 and encoded.weights[0].shape == (2, 4, 4, 4)
    assert decoded.cross_weights[1].shape == (2, 4, 3, 4) and decoded.self_weights[0].shape == (2, 4, 3, 3)
    torch.testing.assert_close(decoded.cross_weights[0].sum(-1), torch.ones(2, 4, 3))
    assert float(decoded.cross_weights[0][1, :, :, 2:].detach().abs().max()) == 0.0  # padding gets no attention
    assert float(decoded.self_weights[0][0, :, 0, 1:].detach().abs().max()) == 0.0  # nor the future
    fused = model.decode(tgt, model.encode(src)).hidden
    torch.testing.assert_close(decoded.hidden, fused, atol=1e-5, rtol=1e-5)


def test_without_positional_encoding_the_encoder_is_permutation_equivariant():
    model = make_model(NoEncoding)
    src = tokens([5, 6, 7, 8, 9, 3])
    perm = torch.tensor([4, 0, 5, 2, 1, 3])
    plain = model.encode(src).memory
    permuted = model.encode(src[:, perm]).memory
    torch.testing.assert_close(permuted, plain[:, perm], atol=1e-5, rtol=1e-5)
    with_pe = make_model(Sinusoidal)
    assert not torch.allclose(with_pe.encode(src[:, perm]).memory, with_pe.encode(src).memory[:, perm], atol=1e-3)


def test_tied_embeddings_share_one_matrix():
    tied, untied = make_model(tie_embeddings=True), make_model(tie_embeddings=False)
    assert tied.output.weight is tied.src_embed.weight is tied.tgt_embed.weight
    assert untied.output.weight is not untied.src_embed.weight
    assert sum(p.numel() for p in untied.parameters()) > sum(p.numel() for p in tied.parameters())


def test_a_learned_table_refuses_longer_inputs_clearly():
    model = Transformer(VOCAB, PAD, Learned(32, 4, max_positions=4), ModelConfig(d_model=32, n_heads=4, n_encoder_layers=1,
                        n_decoder_layers=1, d_ff=64))
    with pytest.raises(ValueError, match="at most 4 positions"):
        model.encode(tokens([5, 6, 7, 8, 9, 3]))
