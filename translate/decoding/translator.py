"""Text in, text out: tokenize, batch by length, search, detokenize, restore the input order."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from translate.data.tokenizer import Tokenizer
from translate.decoding.search import beam_search, greedy_search
from translate.model.transformer import Transformer


@dataclass
class DecodeSettings:
    beam_size: int = 1
    length_penalty: float = 1.0
    max_length_ratio: float = 1.5
    max_length_extra: int = 10
    batch_tokens: int = 4000

    @classmethod
    def from_config(cls, cfg) -> "DecodeSettings":
        return cls(**{k: cfg[k] for k in cls.__dataclass_fields__})


def length_batches(lengths: list[int], batch_tokens: int) -> list[list[int]]:
    """Indices sorted by length, cut so that n * longest <= batch_tokens."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches, current = [], []
    for i in order:
        if current and lengths[i] * (len(current) + 1) > batch_tokens:
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


class Translator:
    def __init__(self, model: Transformer, tokenizer: Tokenizer, settings: DecodeSettings, device="cpu") -> None:
        self.model, self.tokenizer, self.settings, self.device = model, tokenizer, settings, torch.device(device)

    def ids_to_tensor(self, rows: list[list[int]]) -> torch.Tensor:
        tok = self.tokenizer
        src = torch.full((len(rows), max(len(r) for r in rows) + 1), tok.pad_id, dtype=torch.long)
        for i, r in enumerate(rows):
            src[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            src[i, len(r)] = tok.eos_id
        return src.to(self.device)

    def search(self, src: torch.Tensor) -> list[list[int]]:
        s, tok = self.settings, self.tokenizer
        if s.beam_size == 1:
            return greedy_search(self.model, src, tok.bos_id, tok.eos_id, tok.pad_id, s.max_length_ratio,
                                 s.max_length_extra)
        return beam_search(self.model, src, s.beam_size, tok.bos_id, tok.eos_id, tok.pad_id, s.length_penalty,
                           s.max_length_ratio, s.max_length_extra)

    def translate_ids(self, src_ids: list[list[int]]) -> list[list[int]]:
        """Source id lists (no specials) -> output id lists, in the input order."""
        was_training = self.model.training
        self.model.eval()
        out: list[list[int]] = [[] for _ in src_ids]
        try:
            for batch in length_batches([len(s) + 1 for s in src_ids], self.settings.batch_tokens):
                for i, hyp in zip(batch, self.search(self.ids_to_tensor([src_ids[i] for i in batch]))):
                    out[i] = hyp
        finally:
            self.model.train(was_training)
        return out

    def translate(self, sentences: list[str]) -> list[str]:
        return self.tokenizer.decode(self.translate_ids(self.tokenizer.encode(sentences)))
