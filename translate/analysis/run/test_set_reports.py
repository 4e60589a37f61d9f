"""Translate and score every test set of `eval.test_sets`, each with its full length report, and lay out
metrics.json:

    {<the primary (first) test set's scores: bleu, chrf, sentences, signatures, by_length>,
     "split": <its corpus split, or its name>, "test_set": <its name>,
     "test_sets": {<name>: {<the same scores>, "source": "split test" | "files A, B" | "long_concat of ...",
                            "long_lengths": <built to hold long sentences: long_test, long_valid, long_concat>}}}

Files: <name>.hyp.txt per test set (the primary also as <split>.hyp.txt), by_length.md for the primary and
by_length.<name>.md for the others. TensorBoard: <name>/bleu, <name>/chrf, <name>/<metric>_by_length/<bucket>,
<name>/by_length/bar_chart, and by_length/bleu_curve (every test set in one figure).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from translate.data.pipeline import TokenizedSplit
from translate.data.test_sets import TestSetSpec
from translate.decoding.translator import Translator
from translate.scoring.splits import score_split
from translate.analysis.run.alignment_error import SentenceAer, SilverReference, choose_on_valid, gold_reading
from translate.analysis.run.figures import to_image
from translate.analysis.run.length_curve import bleu_curve
from translate.analysis.run.report_split import report_split
from translate.analysis.run.settings import ReportSettings
from translate.io import atomic_write_text


def score_test_sets(settings: ReportSettings, translator: Translator, specs: list[TestSetSpec],
                    test_sets: dict[str, TokenizedSplit], out_dir: Optional[Path], writer, step: int,
                    trained: Optional[tuple[int, Optional[int]]] = None, note: str = "",
                    silver: Optional[SilverReference] = None) -> dict:
    """Scores of every test set (the metrics.json layout above, without run details). Files go to out_dir and
    scalars and figures to writer; either may be None (ranks other than the main one). silver: the links for AER
    (alignment_error.silver_reference); its layer and threshold are chosen once, on the valid split."""
    per_set, all_hyps = {}, {}
    choice = choose_on_valid(translator, silver) if silver is not None else None
    for k, spec in enumerate(specs):
        split = test_sets[spec.name]
        metrics, hyps = score_split(translator, split)
        file_name = "by_length.md" if k == 0 else f"by_length.{spec.name}.md"
        aer = (gold_reading(translator, spec, split) if spec.kind.gold_links and settings.aer_wanted else
               SentenceAer(choice, translator.tokenizer, split, silver.test_links[spec.name]) if choice else None)
        metrics["by_length"] = report_split(settings, translator, split, hyps, out_dir, writer, step, note,
                                            spec.name, file_name, aer)
        metrics["source"] = spec.source
        if split.lines is not None:  # a pair of files: its lines, and those not scored
            metrics["lines"] = split.lines.summary()
            hyps = split.lines.spread(hyps)  # line i of the hypotheses for line i of the input
        metrics["long_lengths"] = spec.long_lengths  # built to hold long sentences (the sweep's length curve reads it)
        per_set[spec.name], all_hyps[spec.name] = metrics, hyps
        if writer is not None and out_dir is not None:
            writer.add_scalar(f"{spec.name}/bleu", metrics["bleu"], step)
            writer.add_scalar(f"{spec.name}/chrf", metrics["chrf"], step)
    primary = specs[0]
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, hyps in all_hyps.items():
            atomic_write_text(out_dir / f"{name}.hyp.txt", "".join(h + "\n" for h in hyps))
        if primary.split and primary.split != primary.name:  # the sweep report reads <split>.hyp.txt
            atomic_write_text(out_dir / f"{primary.split}.hyp.txt", "".join(h + "\n" for h in all_hyps[primary.name]))
        if writer is not None and "bleu_curve" in settings.images:
            curve = bleu_curve({name: m["by_length"] for name, m in per_set.items()}, trained)
            writer.add_image("by_length/bleu_curve", to_image(curve), step, dataformats="HWC")
    top = {k: v for k, v in per_set[primary.name].items() if k not in ("source", "long_lengths")}
    return {**top, "split": primary.split or primary.name, "test_set": primary.name, "test_sets": per_set}
