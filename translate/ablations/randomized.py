"""randomized: randomized positional encodings (Ruoss, Delétang, Genewein, Grau-Moya, Csordás, Bennani, Legg and
Veness 2023, "Randomized Positional Encodings Boost Length Generalization of Transformers", ACL).

In training, each sentence reads its positions from a larger range: the T positions of a side are a sorted random
subset of [0, L_max), drawn anew per sentence, per side and per forward pass,

    training:    positions = sort(sample(range(L_max), T)),   distinct and increasing, L_max = `max_length`
    evaluation:  positions = 0, 1, ..., n - 1

so the model meets the large position values (and gaps) it would otherwise only meet on long test sentences, while
the order of the tokens is kept. Composes with any encoding that reads positions (a table or a relative encoding):
the sampled positions are what the wrapped encoding's `sentence_positions` receives. The paper wants L_max well above
the longest test sentence; it must not exceed what the encoding can represent (`max_positions`, e.g. `learned`'s
table), and a training batch longer than L_max cannot be given distinct positions: both are refused.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.ablations.wrapper import EncodingWrapper
from translate.config import ConfigError
from translate.encodings.base import ATTENTION_KINDS, AttentionTerms, PositionalEncoding


def sorted_subsets(batch: int, steps: int, max_length: int, device: torch.device) -> Tensor:
    """(B, T): per row, T distinct values of [0, max_length), increasing."""
    keys = torch.rand(batch, max_length, device=device)
    return keys.topk(steps, dim=1).indices.sort(dim=1).values


class RandomizedPositions(EncodingWrapper):
    def __init__(self, inner: PositionalEncoding, max_length: int) -> None:
        super().__init__(inner)
        self.max_length = max_length

    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        if self.training:
            steps = positions.size(-1)
            if steps > self.max_length:
                raise ValueError(f"ablation=randomized: a training batch of {steps} tokens needs {steps} distinct "
                                 f"positions of [0, ablation.max_length={self.max_length}); raise ablation.max_length "
                                 f"or lower data.train_max_words")
            positions = sorted_subsets(source_lengths.size(0), steps, self.max_length, positions.device)
        return self.inner.sentence_positions(positions, source_lengths, side)


def effect(terms: AttentionTerms, q: Tensor, k: Tensor, probs: Tensor) -> Tensor:
    """Everything the terms change for these q, k and probabilities, as one tensor: logits and outputs' terms."""
    if terms.rotate is not None:
        q, k = terms.rotate(q, k)
    parts = [torch.matmul(q, k.transpose(-2, -1))]
    if terms.bias is not None:
        parts.append(terms.bias.expand_as(parts[0]))
    if terms.content_bias is not None:
        parts.append(terms.content_bias(q, k))
    if terms.reweight is not None:
        parts.append(terms.reweight(probs))
    if terms.value_term is not None:
        parts.append(terms.value_term(probs))
    return torch.cat([p.reshape(-1) for p in parts])


def reads_positions(encoding: PositionalEncoding) -> bool:
    """Probe: does anything the encoding contributes change when the positions spread apart (0, 1, 2 -> 0, 3, 7)?"""
    near, far = torch.arange(3), torch.tensor([0, 3, 7])
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 3, encoding.d_model, generator=g)
    q, k = (torch.randn(1, encoding.n_heads, 3, encoding.d_model // encoding.n_heads, generator=g) for _ in range(2))
    probs = torch.rand(1, encoding.n_heads, 3, 3, generator=g).softmax(-1)
    was_training = encoding.training
    encoding.eval()
    try:
        with torch.no_grad():
            if not torch.allclose(encoding.embed(x, near, "encoder"), encoding.embed(x, far, "encoder")):
                return True
            for kind in ATTENTION_KINDS:
                near_effect, far_effect = (effect(encoding.attention_terms(kind, p, p), q, k, probs)
                                           for p in (near, far))
                if near_effect.shape != far_effect.shape or not torch.allclose(near_effect, far_effect):
                    return True
    finally:
        encoding.train(was_training)
    return False


class Randomized:
    def __init__(self, name: str = "randomized", max_length: int = 256) -> None:
        self.name = name
        self.max_length = max_length

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        length = self.max_length
        if not (isinstance(length, int) and not isinstance(length, bool) and length >= 2):
            raise ConfigError(f"ablation.max_length={length!r} is not allowed: expected an integer >= 2")
        limit = encoding.max_positions
        if limit is not None and length > limit:
            raise ConfigError(f"ablation.max_length={length} is not allowed: encoding {type(encoding).__name__} "
                              f"represents at most {limit} positions (encoding.max_positions); allowed: "
                              f"ablation.max_length <= {limit}, or raise encoding.max_positions")
        if not reads_positions(encoding):
            raise ConfigError(f"ablation=randomized: encoding {type(encoding).__name__} reads no position ids, so "
                              f"there is nothing to randomize; allowed: table or relative encodings (sinusoidal, "
                              f"learned, rope, alibi, t5, ...)")
        return RandomizedPositions(encoding, length)
