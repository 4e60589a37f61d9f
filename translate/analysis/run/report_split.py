"""The length report of a decoded split: buckets, scores and alignment per bucket (the `by_length` entry of
metrics.json), then its table, scalars and chart; and the pictures (attention maps, encoding) of a model."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from torch.utils.tensorboard import SummaryWriter

from translate.data.config import DataConfig
from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import Translator
from translate.analysis.run.alignment import alignment_by_bucket, mean_interval, per_sentence, sentence_alignment
from translate.analysis.run.alignment_error import SentenceAer
from translate.analysis.run.attention_maps import Probe, choose_probes, log_attention_maps
from translate.analysis.run.bleu_by_length import scores_by_bucket
from translate.analysis.buckets import LENGTH_OF, Bucket, assign, make_buckets
from translate.analysis.run.encoding_pictures import log_encoding_pictures
from translate.analysis.run.outputs import write_by_length
from translate.analysis.run.settings import ReportSettings
from translate.scoring.word_order import word_choice_and_order


def split_buckets(settings: ReportSettings, split: TokenizedSplit, n: Optional[int] = None
                  ) -> tuple[list[Bucket], list[int]]:
    """The buckets (quantiles are taken over this split) and each of the first n sentences' bucket index."""
    lengths = LENGTH_OF[settings.bucket_by](split)[:n]
    buckets = make_buckets(settings.edges, settings.quantiles, lengths)
    return buckets, assign(lengths, buckets)


def by_length(settings: ReportSettings, translator: Translator, split: TokenizedSplit, hyps: list[str],
              aer: Optional[SentenceAer] = None) -> dict:
    """hyps: detokenized translations of the first len(hyps) sentences of `split`; the alignment numbers come from
    the model reading those sentences' references. aer: scores each sentence against its silver links (AER per
    bucket and per sentence, and the layer and threshold it used); None: no AER."""
    n = len(hyps)
    buckets, bucket_of = split_buckets(settings, split, n)
    refs = [p.en for p in split.pairs[:n]]
    scores = scores_by_bucket(hyps, refs, bucket_of, len(buckets), settings.bootstrap_samples,
                              settings.bootstrap_seed)
    # Alignment of the reference, not of the hypothesis: the same target for every system (translate.analysis.run.alignment)
    aligned = sentence_alignment(translator.model, translator.tokenizer, split.src[:n], split.tgt[:n],
                                 translator.settings.batch_tokens, aer_of=aer)
    alignment = alignment_by_bucket(aligned, bucket_of, len(buckets), settings.bootstrap_samples,
                                    settings.bootstrap_seed, with_aer=aer is not None)
    # word choice apart from word order, on the hypotheses (translate.scoring.word_order)
    chosen = [word_choice_and_order(h, r) for h, r in zip(hyps, refs)]
    words = [words_by_bucket(chosen, bucket_of, k, settings) for k in range(len(buckets))]
    return {"bucketed_by": settings.bucket_by, "alignment_forced_on": "reference",
            **(aer.summary() if aer is not None else {}), "buckets": [
        {"bucket": b.name, "low": b.low, "high": b.high, **scores[k], **alignment[k], **words[k]}
        for k, b in enumerate(buckets)],
        "per_sentence": per_sentence(aligned, with_aer=aer is not None)
        | {"unigram_f": [rounded(c.f) for c in chosen], "order_tau": [rounded(c.order_tau) for c in chosen]}}


def rounded(x: Optional[float]) -> Optional[float]:
    return None if x is None else round(x, 4)


def words_by_bucket(chosen: list, bucket_of: list[int], k: int, settings: ReportSettings) -> dict:
    """A bucket's mean unigram F and order τ over its sentences, each with its 95% bootstrap interval."""
    out = {}
    for name, values in (("unigram_f", [c.f for c, b in zip(chosen, bucket_of) if b == k]),
                         ("order_tau", [c.order_tau for c, b in zip(chosen, bucket_of) if b == k])):
        mean, low, high = mean_interval(values, settings.bootstrap_samples, settings.bootstrap_seed)
        out.update({name: mean, f"{name}_low": low, f"{name}_high": high})
    return out


def training_lengths(data: DataConfig) -> Optional[tuple[int, Optional[int]]]:
    """(low, high) French words of the training pairs when they were filtered by length, else None."""
    low, high = data.train_min_words, data.train_max_words
    if low is None and high is None:
        return None
    return low or 1, high


def training_lengths_note(data: DataConfig) -> str:
    """A line for the table when training pairs were filtered by length (length extrapolation runs)."""
    low, high = data.train_min_words, data.train_max_words
    if low is None and high is None:
        return ""
    return (f"Training pairs: French sentences of {low or 1}–{high if high is not None else '∞'} words "
            f"(data.train_min_words={'null' if low is None else low}, data.train_max_words={'null' if high is None else high}); other buckets show length "
            f"extrapolation.")


def report_split(settings: ReportSettings, translator: Translator, split: TokenizedSplit, hyps: list[str],
                 out_dir: Optional[Path], writer, step: int, note: str = "", test_set: str = "test",
                 file_name: str = "by_length.md", aer: Optional[SentenceAer] = None) -> dict:
    """Compute `by_length`; write the table to out_dir/file_name and scalars and the bar chart (tags prefixed with
    test_set) to writer (either may be None, e.g. on ranks other than the main one). Returns `by_length`."""
    report = by_length(settings, translator, split, hyps, aer)
    if out_dir is not None:
        write_by_length(report, out_dir, writer, step, "bar_chart" in settings.images, note, test_set, file_name)
    return report


def probes_for(settings: ReportSettings, translator: Translator, split: TokenizedSplit) -> list[Probe]:
    buckets, bucket_of = split_buckets(settings, split)
    return choose_probes(translator.tokenizer, split, bucket_of, buckets, settings.probes_per_bucket)


def log_pictures(settings: ReportSettings, translator: Translator, probes: list[Probe], writer, step: int,
                 encoding: bool) -> None:
    """Attention maps of the probes and, when `encoding`, pictures of the model's positional encoding."""
    log_attention_maps(writer, translator, probes, settings.images, step)
    if encoding and "encoding" in settings.images:
        log_encoding_pictures(writer, translator.model.encoding, settings.encoding_positions, step)


def report_checkpoint(settings: ReportSettings, translator: Translator, split: TokenizedSplit, hyps: list[str],
                      out_dir: Path, step: int, note: str = "") -> dict:
    """Everything for an existing checkpoint (translate.evaluate), into a TensorBoard folder of its own: out_dir/tb."""
    writer = SummaryWriter(str(Path(out_dir) / "tb"))
    try:
        report = report_split(settings, translator, split, hyps, out_dir, writer, step, note)
        log_pictures(settings, translator, probes_for(settings, translator, split), writer, step, encoding=True)
    finally:
        writer.close()
    return report
