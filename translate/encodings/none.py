"""No positional encoding (NoPE; Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length
Generalization in Transformers").

The encoder then sees a bag of tokens: its outputs are permutation-equivariant. The causal decoder can still infer
positions from its mask.
"""
from translate.encodings.base import PositionalEncoding


class NoEncoding(PositionalEncoding):
    """Contributes nothing to any contract."""
