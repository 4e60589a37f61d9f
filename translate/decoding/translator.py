"""Text in, text out: tokenize, batch by length, search, detokenize, restore the input order."""
from __future__ import annotations

import torch

from translate.data.tokenizer import Tokenizer
from translate.decoding.search import search
from translate.decoding.settings import DecodeSettings, SpecialIds  # DecodeSettings: also imported from here
from translate.model.transformer import Transformer


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
        return search(self.model, src, specials=SpecialIds.of(self.tokenizer), settings=self.settings)

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
