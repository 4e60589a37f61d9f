"""A joint French+English SentencePiece model, trained on the train split only and cached by a hash of its inputs."""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import sentencepiece as spm

from translate.data.cleaning import Pair

log = logging.getLogger(__name__)

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
MODEL_TYPES = ("unigram", "bpe")
# trainer_spec fields that record where and with how many threads a model was trained, not how it tokenizes
MACHINE_LOCAL = ("input", "model_prefix", "num_threads")


def portable_proto(model_proto: bytes) -> bytes:
    """The model with its MACHINE_LOCAL fields cleared: two models that tokenize alike are then the same bytes
    wherever they were trained (SentencePiece records its temporary input file's path in the model)."""
    from sentencepiece import sentencepiece_model_pb2

    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(model_proto)
    for name in MACHINE_LOCAL:
        model.trainer_spec.ClearField(name)
    return model.SerializeToString(deterministic=True)


class Tokenizer:
    """Wraps a SentencePieceProcessor; ids 0..3 are pad, unk, bos, eos."""

    pad_id, unk_id, bos_id, eos_id = PAD_ID, UNK_ID, BOS_ID, EOS_ID

    def __init__(self, model_proto: bytes) -> None:
        self.model_proto = model_proto
        self.sp = spm.SentencePieceProcessor(model_proto=model_proto)

    @classmethod
    def load(cls, path: Path) -> "Tokenizer":
        return cls(Path(path).read_bytes())

    def __len__(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, texts: list[str]) -> list[list[int]]:
        return self.sp.encode(texts)

    def decode(self, ids: list[list[int]]) -> list[str]:
        return self.sp.decode(ids)

    def pieces(self, ids: list[int]) -> list[str]:
        return [self.sp.id_to_piece(i) for i in ids]

    @functools.cached_property
    def portable(self) -> bytes:
        """This model as portable_proto gives it: its identity wherever it was trained (parsed once)."""
        return portable_proto(self.model_proto)

    def tokenizes_like(self, model_proto: bytes) -> bool:
        """Whether `model_proto` (e.g. a checkpoint's) is this model, wherever each was trained."""
        return portable_proto(model_proto) == self.portable


def tokenizer_key(pairs: list[Pair], settings: dict) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for p in pairs:
        digest.update(p.fr.encode())
        digest.update(b"\t")
        digest.update(p.en.encode())
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def cached_model_path(pairs: list[Pair], cache_dir: Path, vocab_size: int = 8000, model_type: str = "unigram",
                      character_coverage: float = 1.0, max_sentences: int = 2_000_000, seed: int = 1) -> Path:
    """Where the model trained on `pairs` with these settings is cached."""
    settings = dict(vocab_size=vocab_size, model_type=model_type, character_coverage=character_coverage,
                    max_sentences=max_sentences, seed=seed, version=1)
    return Path(cache_dir) / f"spm-{model_type}-{vocab_size}-{tokenizer_key(pairs, settings)}.model"


def train_tokenizer(pairs: list[Pair], cache_dir: Path, vocab_size: int = 8000, model_type: str = "unigram",
                    character_coverage: float = 1.0, max_sentences: int = 2_000_000, seed: int = 1) -> Tokenizer:
    """Train (or reuse from `cache_dir`) a joint model on both sides of `pairs`."""
    if model_type not in MODEL_TYPES:
        raise ValueError(f"data.tokenizer.model_type={model_type!r} is not allowed; choose one of {list(MODEL_TYPES)}")
    path = cached_model_path(pairs, cache_dir, vocab_size, model_type, character_coverage, max_sentences, seed)
    if path.exists():
        log.info("reusing SentencePiece model %s", path)
        return Tokenizer.load(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        text = Path(tmp) / "train.txt"
        text.write_text("".join(f"{p.fr}\n{p.en}\n" for p in pairs), encoding="utf-8")
        spm.SentencePieceTrainer.train(
            input=str(text), model_prefix=str(Path(tmp) / "spm"), vocab_size=vocab_size, model_type=model_type,
            character_coverage=character_coverage, pad_id=PAD_ID, unk_id=UNK_ID, bos_id=BOS_ID, eos_id=EOS_ID,
            input_sentence_size=max_sentences, shuffle_input_sentence=True, num_threads=os.cpu_count() or 1,
            hard_vocab_limit=False, minloglevel=2,
        )
        portable = Path(tmp) / "portable.model"
        portable.write_bytes(portable_proto((Path(tmp) / "spm.model").read_bytes()))
        try:  # the first writer wins, atomically: parallel sweep jobs must all use one model, and multi-threaded
            os.link(portable, path)  # training is not byte-for-byte repeatable
            log.info("trained SentencePiece model %s", path)
        except FileExistsError:
            log.info("another process saved SentencePiece model %s first; using it", path)
    return Tokenizer.load(path)
