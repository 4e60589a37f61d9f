"""Universal relative positional encoding (Luo et al. 2022, "Your Transformer May Not be as Powerful as You Expect",
NeurIPS).

    Attn(X) = ( softmax(Q Kᵀ / sqrt(Dh) + B) ⊙ C ) V,     C_ij = c_h[j - i]   (a Toeplitz matrix per head)

A relative bias alone cannot make attention universal; multiplying the probabilities by a learned Toeplitz matrix
can. B is the T5 bias (t5.py, whose keys this encoding takes too), as in the paper's experiments. c_h has the
2N - 1 entries of an N x N Toeplitz matrix (N = `max_length`), initialised to ones so training starts from plain
T5 (the paper gives no other initialisation; public implementations of its Toeplitz term start at ones too); distances beyond N - 1 share the border entry, so longer inputs still decode. Rows of C ⊙ P need not sum to 1:
that is the point. Needs the probabilities, so attention takes its explicit path.

`toeplitz: exact` (the paper, default) has one entry per offset as above; `bucketed` shares entries within the
T5 buckets of the offset (log-spaced beyond num_buckets / 4, the same `num_buckets` and `max_distance` as the bias;
causal buckets in decoder self-attention), C_ij = c_h[bucket(j - i)]: num_buckets entries per head instead of 2N - 1.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import check, offsets, per_head
from translate.encodings.t5 import T5


class URPE(T5):
    TOEPLITZ = ("exact", "bucketed")

    def __init__(self, d_model: int, n_heads: int, max_length: int = 512, toeplitz: str = "exact", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(max_length, int) and max_length >= 2, "max_length", max_length, "an integer >= 2")
        check(toeplitz in self.TOEPLITZ, "toeplitz", toeplitz,
              f"one of {list(self.TOEPLITZ)} (exact: one entry per offset; bucketed: T5's log buckets)")
        self.max_length, self.bucketed = max_length, toeplitz == "bucketed"
        rows = self.num_buckets if self.bucketed else 2 * max_length - 1  # exact: row N - 1 + (j - i)
        self.toeplitz = nn.ParameterDict({kind: nn.Parameter(torch.ones(rows, n_heads)) for kind in self.kinds})

    def toeplitz_matrix(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> Tensor:
        """(..., H, Tq, Tk): C_ij = c_h[clip(j - i)], or c_h[bucket(j - i)]."""
        if self.bucketed:
            return per_head(self.toeplitz[kind][self.buckets(kind, q_positions, k_positions)])
        n = self.max_length - 1
        rows = offsets(q_positions, k_positions).clamp(-n, n) + n
        return per_head(self.toeplitz[kind][rows])

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        bias = super().terms(kind, q_positions, k_positions).bias
        c = self.toeplitz_matrix(kind, q_positions, k_positions)
        return AttentionTerms(bias=bias, reweight=lambda probs: probs * c.to(probs.dtype))
