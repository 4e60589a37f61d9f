"""Where a `by_length` report goes besides metrics.json: a markdown table, TensorBoard scalars and a bar chart."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from translate.analysis.run.figures import new_figure, to_image
from translate.io import atomic_write_text

if TYPE_CHECKING:   # for annotations only: Matplotlib is imported where a figure is drawn (figures.new_figure)
    from matplotlib.figure import Figure

SCALARS = ("bleu", "chrf", "length_ratio", "diagonal_share", "diagonal_share_normalised", "monotonicity",
           "attention_entropy", "aer", "token_accuracy", "unigram_f", "order_tau")
COLUMNS = (("bucket", "bucket"), ("sentences", "sentences"), ("bleu", "BLEU"), ("bleu_ci", "BLEU 95% CI"),
           ("chrf", "chrF"), ("chrf_ci", "chrF 95% CI"), ("length_ratio", "hyp/ref words"),
           ("diagonal_share", "diagonal share"), ("diagonal_share_normalised", "normalised share"),
           ("monotonicity", "Kendall τ"), ("attention_entropy", "entropy (nats)"))
# word choice and word order (translate.scoring.word_order) and the note's own measure, where the run recorded them
WORD_COLUMNS = (("token_accuracy", "token accuracy"), ("unigram_f", "unigram F"), ("order_tau", "order τ"))
AER_COLUMNS = (("aer", "AER"), ("aer_interval", "AER 95% CI"))


def _cell(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, list):
        return f"[{value[0]:.2f}, {value[1]:.2f}]"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _with_interval(row: dict) -> dict:
    low, high = row.get("aer_low"), row.get("aer_high")
    return {**row, "aer_interval": [low, high] if low is not None and high is not None else None}


def markdown_table(by_length: dict, note: str = "", test_set: str = "") -> str:
    of = f" of {test_set}" if test_set else ""
    lines = [f"# Test scores{of} by length ({by_length['bucketed_by'].replace('_', ' ')})", ""]
    if note:
        lines += [note, ""]
    with_aer = "aer_layer" in by_length
    with_words = any("unigram_f" in row for row in by_length["buckets"])   # runs before these measures lack them
    columns = COLUMNS + (AER_COLUMNS if with_aer else ()) + (WORD_COLUMNS if with_words else ())
    lines.append("| " + " | ".join(title for _, title in columns) + " |")
    lines.append("|" + "|".join("---" if key == "bucket" else "--:" for key, _ in columns) + "|")
    lines += ["| " + " | ".join(_cell(_with_interval(row).get(key)) for key, _ in columns) + " |"
              for row in by_length["buckets"]]
    lines += ["", "CI: 95% paired bootstrap over the bucket's sentences. Alignment read while forcing the reference. "
              "Diagonal share: cross-attention mass within ±1 source token of the monotone diagonal; normalised: "
              "(s − c)/(1 − c), c that of uniform attention. Kendall τ: target position against the most attended "
              "source position. Entropy: of cross-attention rows, mean over heads and layers."]
    if with_words:
        lines += ["", "Token accuracy: the share of reference tokens the model ranks first when teacher-forced on the "
                  "reference. Unigram F: of the hypothesis's words against the reference's (clipped counts, 13a "
                  "tokens, lower-cased, no punctuation): word choice. Order τ: Kendall τ of the shared words' "
                  "positions in hypothesis and reference (RIBES's word rank alignment): word order. Means over "
                  "sentences."]
    if with_aer:
        gold = by_length.get("aer_chosen_on") == "gold trial"
        links, where, there = (("the human gold Sure and Possible links", "the gold alignment's trial pairs",
                                "AER there") if gold else ("silver eflomal word links", "the valid split", "valid AER"))
        lines += ["", f"AER: alignment error rate of head-averaged cross-attention (Shift-Att reading) against {links}, "
                  f"mean over sentences (bootstrap CI over sentences); decoder layer {by_length['aer_layer']} (from 0) "
                  f"and threshold {by_length['aer_threshold']:.2f}, chosen on {where} ({there} "
                  f"{by_length['aer_valid']:.3f})."]
    return "\n".join(lines) + "\n"


def bar_chart(by_length: dict, test_set: str = "test") -> Figure:
    """BLEU and chrF per bucket with their intervals; sentence counts under the bucket names."""
    rows = by_length["buckets"]
    fig, axes = new_figure(1, 1, 5.0, f"{test_set} scores by length ({by_length['bucketed_by'].replace('_', ' ')})")
    ax, x, width = axes[0, 0], np.arange(len(rows)), 0.4
    for offset, key, label in ((-width / 2, "bleu", "BLEU"), (width / 2, "chrf", "chrF")):
        values = [r[key] or 0.0 for r in rows]
        errors = np.array([[v - r[f"{key}_ci"][0], r[f"{key}_ci"][1] - v] if r[f"{key}_ci"] else [0.0, 0.0]
                           for v, r in zip(values, rows)]).T.reshape(2, len(rows))
        ax.bar(x + offset, values, width, yerr=errors, capsize=3, label=label)
    ax.set_xticks(x, [f"{r['bucket']}\n(n={r['sentences']})" for r in rows], fontsize=8)
    ax.set_xlabel(by_length["bucketed_by"].replace("_", " "))
    ax.legend(fontsize=8)
    return fig


def write_by_length(by_length: dict, out_dir: Path, writer, step: int, draw_chart: bool, note: str = "",
                    test_set: str = "test", file_name: str = "by_length.md") -> None:
    """The table in out_dir/file_name; scalars <test_set>/<metric>_by_length/<bucket> and the image
    <test_set>/by_length/bar_chart."""
    atomic_write_text(Path(out_dir) / file_name, markdown_table(by_length, note, test_set))
    if writer is None:
        return
    for row in by_length["buckets"]:
        for key in SCALARS:
            if row.get(key) is not None:
                writer.add_scalar(f"{test_set}/{key}_by_length/{row['bucket']}", row[key], step)
    if draw_chart:
        writer.add_image(f"{test_set}/by_length/bar_chart", to_image(bar_chart(by_length, test_set)), step,
                         dataformats="HWC")
