"""TensorBoard images of attention for a fixed set of probe sentences: the two sentences of the source notes and
the first `probes_per_bucket` test sentences of every length bucket (the same ones at every validation).

Per probe: cross-attention per layer (head-averaged), cross-attention of every head (layers x heads), encoder
and decoder self-attention per layer (head-averaged); tokens on the axes, the hypothesis in the title.
Tags: attention/<kind>/<probe label>, e.g. attention/cross/11-15/test42 or attention/cross_heads/fixed/0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from torch import Tensor

from translate.data.pipeline import TokenizedSplit
from translate.data.tokenizer import Tokenizer
from translate.decoding.translator import Translator
from translate.analysis.run.forced_attention import SentenceAttention, forced_attention
from translate.analysis.buckets import Bucket
from translate.analysis.run.figures import heatmap, new_figure, panel_inches, to_image
from translate.analysis.run.settings import ATTENTION_IMAGES

if TYPE_CHECKING:   # for annotations only: Matplotlib is imported where a figure is drawn (figures.new_figure)
    from matplotlib.figure import Figure

FIXED_PROBES = ("Je pars en vacances pour quelques jours.", "Je recherche un assistant.")


@dataclass(frozen=True)
class Probe:
    label: str              # "fixed/0" or "<bucket>/test<index in the split>"
    src_ids: tuple[int, ...]


def choose_probes(tokenizer: Tokenizer, split: TokenizedSplit, bucket_of: Sequence[int], buckets: Sequence[Bucket],
                  per_bucket: int) -> list[Probe]:
    """The fixed sentences, then the first `per_bucket` sentences of the split in each bucket."""
    probes = [Probe(f"fixed/{k}", tuple(ids)) for k, ids in enumerate(tokenizer.encode(list(FIXED_PROBES)))]
    for b, bucket in enumerate(buckets):
        members = [i for i, bi in enumerate(bucket_of) if bi == b][:per_bucket]
        probes += [Probe(f"{bucket.name}/test{i}", tuple(split.src[i])) for i in members]
    return probes


def layer_figure(weights: Tensor, x_labels: list[str], y_labels: list[str], title: str) -> Figure:
    """weights (L, H, Tq, Tk) -> one head-averaged panel per layer."""
    layers = weights.size(0)
    fig, axes = new_figure(1, layers, panel_inches(max(len(x_labels), len(y_labels))), title)
    for layer in range(layers):
        heatmap(axes[0, layer], weights[layer].mean(0).numpy(), x_labels, y_labels, f"layer {layer + 1}, mean of heads")
    return fig


def head_grid_figure(weights: Tensor, x_labels: list[str], y_labels: list[str], title: str) -> Figure:
    """weights (L, H, Tq, Tk) -> a layers x heads grid; tokens on the first row and column only. Each panel is
    scaled from 0 to its own maximum (no colour bars: they would double the drawing time)."""
    layers, heads = weights.shape[:2]
    fig, axes = new_figure(layers, heads, panel_inches(max(len(x_labels), len(y_labels)), 2.0, 3.5), title)
    for layer in range(layers):
        for head in range(heads):
            heatmap(axes[layer, head], weights[layer, head].numpy(), x_labels if layer == 0 else None,
                    y_labels if head == 0 else None, f"layer {layer + 1} head {head + 1}", colorbar=False)
            if layer:
                axes[layer, head].set_xticks([])
            if head:
                axes[layer, head].set_yticks([])
    return fig


def probe_figures(att: SentenceAttention, src: list[str], hyp_in: list[str], hyp_out: list[str], title: str,
                  kinds: Sequence[str]) -> dict[str, Figure]:
    """Figures of one probe, keyed by image kind (ATTENTION_IMAGES)."""
    draw = {
        "cross": lambda: layer_figure(att.cross, src, hyp_out, f"cross-attention | {title}"),
        "cross_heads": lambda: head_grid_figure(att.cross, src, hyp_out, f"cross-attention per head | {title}"),
        "encoder_self": lambda: layer_figure(att.encoder, src, src, f"encoder self-attention | {title}"),
        "decoder_self": lambda: layer_figure(att.decoder, hyp_in, hyp_in, f"decoder self-attention | {title}"),
    }
    return {kind: draw[kind]() for kind in kinds if kind in draw}


def log_attention_maps(writer, translator: Translator, probes: Sequence[Probe], kinds: Sequence[str],
                       step: int) -> int:
    """Decode the probes, draw their attention and add the images; returns the number of images added."""
    kinds = [k for k in kinds if k in ATTENTION_IMAGES]
    if writer is None or not probes or not kinds:
        return 0
    tok = translator.tokenizer
    src_ids = [list(p.src_ids) for p in probes]
    hyp_ids = translator.translate_ids(src_ids)
    sources, hyps = tok.decode(src_ids), tok.decode(hyp_ids)
    added = 0
    for i, att in forced_attention(translator.model, tok, src_ids, hyp_ids, translator.settings.batch_tokens):
        src = tok.pieces(src_ids[i]) + ["</s>"]
        hyp_in, hyp_out = ["<s>"] + tok.pieces(hyp_ids[i]), tok.pieces(hyp_ids[i]) + ["</s>"]
        title = f"{probes[i].label}: {sources[i]}\n→ {hyps[i]}"
        for kind, fig in probe_figures(att, src, hyp_in, hyp_out, title, kinds).items():
            writer.add_image(f"attention/{kind}/{probes[i].label}", to_image(fig), step, dataformats="HWC")
            added += 1
    return added

