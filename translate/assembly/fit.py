"""Start-up checks that need the data: every sentence, and every translation decoding may produce, fits the
encoding's table (when it has one)."""
from __future__ import annotations

from typing import Optional

from translate.config.errors import ConfigError
from translate.decoding.length import max_output_tokens
from translate.decoding.settings import DecodeSettings


def check_fits(encoding, longest: int, split: str, max_positions: Optional[int] = None) -> None:
    """Stop at start-up when the encoding cannot represent the longest sentence of a split."""
    limit = encoding.max_positions if max_positions is None else max_positions
    if limit is not None and longest > limit:
        raise ConfigError(f"encoding.max_positions={limit} is shorter than the longest {split} sentence "
                          f"({longest} tokens); allowed: >= {longest}, or lower data.corpus.max_words")


def check_data_fits(encoding, splits: dict, decode: DecodeSettings) -> None:
    """Every sentence, and every translation decoding may produce, must fit the encoding's table (if it has one)."""
    limit = encoding.max_positions
    if limit is None:
        return
    for name, split in splits.items():
        src_lens, tgt_lens = split.lengths()
        if not src_lens:
            continue
        check_fits(encoding, max(max(src_lens), max(tgt_lens) + 1), name)
        longest = max_output_tokens(max(src_lens), decode.max_length_ratio, decode.max_length_extra)
        if longest > limit:
            raise ConfigError(
                f"encoding.max_positions={limit} is shorter than the longest translation decoding may produce for "
                f"the {name} split ({longest} tokens = {max(src_lens)} source tokens * decode.max_length_ratio="
                f"{decode.max_length_ratio} + decode.max_length_extra={decode.max_length_extra}); allowed: "
                f"encoding.max_positions >= {longest}, or lower decode.max_length_ratio / max_length_extra")
