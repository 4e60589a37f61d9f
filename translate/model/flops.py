"""The useful work of one training step: matmul FLOPs of the real (non-pad) tokens, for throughput and MFU figures
(scripts/bench_train.py, scripts/bench_gpu.py)."""
from __future__ import annotations

from translate.model.config import ModelConfig


def train_flops(m: ModelConfig, vocab: int, src_lens: list[int], tgt_lens: list[int]) -> float:
    """Forward + backward matmul FLOPs of one batch, real tokens only. src_lens / tgt_lens per sentence (with
    eos / bos); attention scores counted in full, causal ones too."""
    d, f = m.d_model, m.d_ff
    s, t = sum(src_lens), sum(tgt_lens)
    ss = sum(x * x for x in src_lens)
    tt = sum(x * x for x in tgt_lens)
    st = sum(a * b for a, b in zip(src_lens, tgt_lens))
    encoder = m.n_encoder_layers * (2 * s * (4 * d * d + 2 * d * f) + 4 * ss * d)
    decoder = m.n_decoder_layers * (2 * t * (4 * d * d + 2 * d * d + 2 * d * f) + 2 * s * 2 * d * d
                                    + 4 * tt * d + 4 * st * d)
    output = 2 * t * d * vocab
    return 3.0 * (encoder + decoder + output)  # backward: twice the forward's matmuls
