"""What a model knows of position: a linear probe per layer predicting each token's position in its sentence from the
frozen hidden state (the layer's output; "embedding" is the token embedding alone, before any position enters,
which says how much a token's identity tells of its place: "." ends, capitals start).

The model reads the first `report.position_probe` valid sentences of every length (the valid split and the reserved
long valid set in turn: translate/data/pipeline.py, probe_pairs), the reference forced through the decoder; each token's state is one example, its position (from 0, positions from MAX_POSITION on in one class) the
label. A multinomial logistic regression (scikit-learn) is fitted on the tokens of the first TRAIN_SHARE of the
sentences and scored on the tokens of the rest, per length bucket of the scored sentences (French words): accuracy
with a 95% bootstrap interval over sentences, beside the accuracy of always guessing the most common position of
that bucket. A no-PE encoder is permutation-equivariant: two equal tokens of one sentence get equal states, so its
probe can do no better than a token's identity and the sentence it sits in allow; a causal decoder without PE can
still count.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

import numpy as np
import torch

from translate.analysis.run.alignment import mean_interval
from translate.data.batching import collate
from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import length_batches

MAX_POSITION = 20      # positions 20 and later are one class
TRAIN_SHARE = 0.6      # of the probed sentences, in order: the rest are scored
BUCKETS = ((1, 10), (11, 17), (18, None))   # French words of the scored sentences


@torch.no_grad()
def layer_states(model, tokenizer, split: TokenizedSplit, batch_tokens: int
                 ) -> dict[str, list[np.ndarray]]:
    """{"encoder embedding", "encoder 1", ..., "decoder embedding", "decoder 1", ...: one (T, d) array per sentence},
    T = source + eos on the encoder side, bos + reference on the decoder side."""
    captured: dict[str, torch.Tensor] = {}
    hooks = []

    def keep(name):
        def hook(module, args, output):
            captured[name] = (output[0] if isinstance(output, tuple) else output).float().cpu()
        return hook

    for k, layer in enumerate(model.encoder_layers):
        hooks.append(layer.register_forward_hook(keep(f"encoder {k + 1}")))
    for k, layer in enumerate(model.decoder_layers):
        hooks.append(layer.register_forward_hook(keep(f"decoder {k + 1}")))
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    out: dict[str, list[Optional[np.ndarray]]] = {}
    lengths = [max(len(s) + 1, len(t) + 1) for s, t in zip(split.src, split.tgt)]
    try:
        for indices in length_batches(lengths, batch_tokens):
            batch = collate(split.src, split.tgt, indices, tokenizer.pad_id, tokenizer.bos_id, tokenizer.eos_id)
            src, tgt_in = batch.src.to(device), batch.tgt_in.to(device)
            # the token embeddings alone (embedding tables may be one tied module: read them, not hooked)
            captured["encoder embedding"] = model.src_embed(src).float().cpu()
            captured["decoder embedding"] = model.tgt_embed(tgt_in).float().cpu()
            model.decode(tgt_in, model.encode(src))
            for name, states in captured.items():                       # (B, T, d)
                kept = out.setdefault(name, [None] * len(split))
                for row, i in enumerate(indices):
                    t = len(split.src[i]) + 1 if name.startswith("encoder") else len(split.tgt[i]) + 1
                    kept[i] = states[row, :t].numpy()
    finally:
        for hook in hooks:
            hook.remove()
        model.train(was_training)
    return out


def bucket_name(low: int, high: Optional[int]) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


def probe_layer(states: Sequence[np.ndarray], words: Sequence[int], samples: int, seed: int) -> dict:
    """Fit on the first TRAIN_SHARE of the sentences, score the rest: accuracy per bucket with its interval and the
    majority-class accuracy of the bucket."""
    split = max(1, int(len(states) * TRAIN_SHARE))
    features = np.concatenate(states[:split])
    labels = np.concatenate([np.minimum(np.arange(len(s)), MAX_POSITION) for s in states[:split]])
    # here, not above: scikit-learn takes seconds to import, and the train command imports this module to start
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(features)
    probe = LogisticRegression(max_iter=300).fit(scaler.transform(features), labels)
    out = {}
    for low, high in BUCKETS:
        chosen = [k for k in range(split, len(states)) if low <= words[k] and (high is None or words[k] <= high)]
        if not chosen:
            out[bucket_name(low, high)] = {"sentences": 0, "accuracy": None, "accuracy_low": None,
                                           "accuracy_high": None, "majority": None}
            continue
        per_sentence, positions = [], Counter()
        for k in chosen:
            truth = np.minimum(np.arange(len(states[k])), MAX_POSITION)
            per_sentence.append(float((probe.predict(scaler.transform(states[k])) == truth).mean()))
            positions.update(truth.tolist())
        accuracy, low_, high_ = mean_interval(per_sentence, samples, seed)
        out[bucket_name(low, high)] = {"sentences": len(chosen), "accuracy": accuracy, "accuracy_low": low_,
                                       "accuracy_high": high_,
                                       "majority": round(positions.most_common(1)[0][1] / sum(positions.values()), 3)}
    return out


def position_probe(model, tokenizer, split: TokenizedSplit, sentences: int, batch_tokens: int, samples: int,
                   seed: int) -> dict:
    """{"sentences", "max_position", "trained_on", "layers": {name: {bucket: {...}}}} for metrics.json."""
    chosen = TokenizedSplit(split.pairs[:sentences], split.src[:sentences], split.tgt[:sentences])
    words = [len(p.fr.split()) for p in chosen.pairs]
    states = layer_states(model, tokenizer, chosen, batch_tokens)
    return {"sentences": len(chosen), "max_position": MAX_POSITION,
            "trained_on": max(1, int(len(chosen) * TRAIN_SHARE)),
            "layers": {name: probe_layer(values, words, samples, seed) for name, values in states.items()}}


def probe_table(result: dict) -> str:
    """position_probe.md: accuracy per layer (rows) and bucket (columns), the majority guess of each bucket below."""
    layers = result["layers"]
    buckets = list(next(iter(layers.values())))
    lines = [f"# Position probe: {result['sentences']} valid sentences, fitted on the first {result['trained_on']}", "",
             "| layer | " + " | ".join(f"{b} words (n={next(iter(layers.values()))[b]['sentences']})" for b in buckets)
             + " |", "|---|" + "--:|" * len(buckets)]
    for name, row in layers.items():
        cells = [f"{c['accuracy']:.3f} [{c['accuracy_low']:.3f}, {c['accuracy_high']:.3f}]"
                 if c["accuracy"] is not None and c["accuracy_low"] is not None else
                 (f"{c['accuracy']:.3f}" if c["accuracy"] is not None else "–") for c in row.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    majority = [f"{c['majority']:.3f}" if c["majority"] is not None else "–" for c in next(iter(layers.values())).values()]
    lines.append("| always the most common position | " + " | ".join(majority) + " |")
    lines += ["", f"Accuracy of a linear probe predicting each token's position (from 0; {result['max_position']} and "
              "later in one class) from the layer's output, on the tokens of the sentences it was not fitted on; 95% "
              "bootstrap interval over sentences. \"embedding\": the token embedding alone, before any position."]
    return "\n".join(lines) + "\n"
