"""Translate a split, score it with sacreBLEU, write the hypotheses and metrics.json (atomically)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import Translator
from translate.scoring.metrics import corpus_scores
from translate.io import atomic_write_text


def translate_split(translator: Translator, split: TokenizedSplit, limit: Optional[int] = None) -> list[str]:
    src = split.src[:limit] if limit else split.src
    return translator.tokenizer.decode(translator.translate_ids(src))


def score_split(translator: Translator, split: TokenizedSplit, limit: Optional[int] = None) -> tuple[dict, list[str]]:
    hyps = translate_split(translator, split, limit)
    refs = [p.en for p in split.pairs[: len(hyps)]]
    return corpus_scores(hyps, refs), hyps


def write_results(out_dir: Path, name: str, metrics: dict, hypotheses: list[str]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_dir / f"{name}.hyp.txt", "".join(h + "\n" for h in hypotheses))
    atomic_write_text(out_dir / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
