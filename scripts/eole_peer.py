"""The Eole side of `scripts/bench_decode.py --against-eole`: run with the Python of a venv that has eole installed
(never the project's venv), as a subprocess of the benchmark. Imports eole only, never `translate`.

    EOLE_PYTHON scripts/eole_peer.py convert FOLDER --weights ours.pt
    EOLE_PYTHON scripts/eole_peer.py serve FOLDER --threads 1

FOLDER holds what the benchmark exported from our data: train.fr / train.en (SentencePiece pieces of our tokenizer,
space-separated) and vocab.txt (our pieces, without our four specials: Eole adds its own). `convert` writes
FOLDER/config.yaml, lets Eole build a Transformer of model=small's shape (d256, 4 heads, ff 1024, 3+3 layers, pre-LN,
interleaved sinusoidal positions, one embedding for source, target and output, biases on every projection) with one
training step on 200 pairs, and replaces every weight with ours: both decoders then run the same function, so they
write the same translations (up to float rounding) and the comparison is of the decoders alone. (Training Eole
itself on these 2 loaded cores ran at 87 target tokens/s: a few hundred steps would take over an hour.)

`serve` loads the model once, then answers one JSON request per line on stdin with one JSON line on stdout:
{"sources": [[piece, ...], ...], "beam": 4, "batch_tokens": 2000} -> {"seconds": s, "outputs": [[piece, ...], ...]},
seconds covering Eole's own batching and search only (no model loading, no file I/O), like ours.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

MODEL_DIR = "model"


def config_text(folder: Path, steps: int, batch_tokens: int, train_prefix: str) -> str:
    return f"""\
src_vocab: {folder}/vocab.txt
tgt_vocab: {folder}/vocab.txt
share_vocab: true
src_vocab_size: 8000
tgt_vocab_size: 8000
vocab_size_multiple: 1
overwrite: true
seed: 1
report_every: 25
data:
  corpus_1:
    path_src: {folder}/{train_prefix}.fr
    path_tgt: {folder}/{train_prefix}.en
    transforms: []
model:
  architecture: transformer
  hidden_size: 256
  layers: 3
  heads: 4
  transformer_ff: 1024
  share_embeddings: true
  share_decoder_embeddings: true
  add_qkvbias: true
  add_ffnbias: true
  add_final_linear_bias: true
  generator_bias: false
  layer_norm: standard
  norm_eps: 1.0e-5
  embeddings:
    word_vec_size: 256
    position_encoding_type: SinusoidalInterleaved
training:
  model_path: {folder}/{MODEL_DIR}
  train_steps: {steps}
  save_checkpoint_steps: {steps}
  valid_steps: {steps + 1}
  batch_size: {batch_tokens}
  batch_type: tokens
  normalization: tokens
  world_size: 1
  gpu_ranks: []
  optim: adam
  adam_beta2: 0.98
  learning_rate: 2.0
  decay_method: noam
  warmup_steps: {max(steps // 3, 1)}
  label_smoothing: 0.1
  dropout: [0.1]
  param_init_method: xavier_uniform
  num_workers: 0
"""


def our_weights_as_eole(ours: dict, n_layers: int = 3) -> dict:
    """Our state dict (model=small: pre-LN, tied embeddings, fused projections) under Eole's names.

    Eole's vocabulary starts <unk>, <blank> (padding), <s>, </s>; ours <pad>, <unk>, <s>, </s>; the rest is in the
    same order (vocab.txt), so the embedding rows 0 and 1 swap.
    """
    import torch

    rows = torch.arange(ours["src_embed.weight"].size(0))
    rows[0], rows[1] = 1, 0
    eole = {"src_emb.embeddings.weight": ours["src_embed.weight"][rows]}
    for side in ("encoder", "decoder"):
        eole[f"{side}.layer_norm.weight"] = ours[f"{side}_norm.weight"]
        eole[f"{side}.layer_norm.bias"] = ours[f"{side}_norm.bias"]
    norms = {"encoder": {"res_attn": "input_layernorm", "res_ff": "post_attention_layernorm"},
             "decoder": {"res_self": "input_layernorm", "res_cross": "precontext_layernorm",
                         "res_ff": "post_attention_layernorm"}}
    for side, names in norms.items():
        for i in range(n_layers):
            a, b = f"{side}_layers.{i}", f"{side}.transformer_layers.{i}"
            for part in ("weight", "bias"):
                for ours_norm, eole_norm in names.items():
                    eole[f"{b}.{eole_norm}.{part}"] = ours[f"{a}.{ours_norm}.norm.{part}"]
                eole[f"{b}.mlp.gate_up_proj.{part}"] = ours[f"{a}.ff.0.{part}"]
                eole[f"{b}.mlp.down_proj.{part}"] = ours[f"{a}.ff.3.{part}"]
                q, k, v = ours[f"{a}.self_attn.qkv_proj.{part}"].chunk(3)
                eole.update({f"{b}.self_attn.linear_query.{part}": q, f"{b}.self_attn.linear_keys.{part}": k,
                             f"{b}.self_attn.linear_values.{part}": v,
                             f"{b}.self_attn.final_linear.{part}": ours[f"{a}.self_attn.out_proj.{part}"]})
                if side == "decoder":
                    k, v = ours[f"{a}.cross_attn.kv_proj.{part}"].chunk(2)
                    eole.update({f"{b}.context_attn.linear_query.{part}": ours[f"{a}.cross_attn.q_proj.{part}"],
                                 f"{b}.context_attn.linear_keys.{part}": k, f"{b}.context_attn.linear_values.{part}": v,
                                 f"{b}.context_attn.final_linear.{part}": ours[f"{a}.cross_attn.out_proj.{part}"]})
    return {name: t.contiguous() for name, t in eole.items()}


def convert(folder: Path, weights: Path) -> None:
    """An Eole model holding our trained weights: Eole writes its own files after one step on 200 pairs (the
    skeleton: config, vocabulary, names), then every weight of the skeleton is replaced by ours."""
    import torch
    from safetensors.torch import load_file, save_file

    for side in ("fr", "en"):
        lines = (folder / f"train.{side}").read_text().splitlines(keepends=True)[:200]
        (folder / f"skeleton.{side}").write_text("".join(lines))
    (folder / "config.yaml").write_text(config_text(folder, 1, 500, train_prefix="skeleton"))
    eole = Path(sys.executable).with_name("eole")
    subprocess.run([str(eole), "train", "-config", str(folder / "config.yaml")], check=True)
    target = trained_model(folder) / "model.00.safetensors"
    skeleton = load_file(str(target))
    converted = our_weights_as_eole(torch.load(weights, weights_only=True))
    missing = [name for name in skeleton if name not in converted and not name.endswith(("pe.pe", "layer_scalar"))]
    if missing:
        raise SystemExit(f"no weight of ours for Eole's {missing}")
    skeleton.update(converted)
    save_file(skeleton, str(target))
    (trained_model(folder) / "optimizer.pt").unlink(missing_ok=True)


def trained_model(folder: Path) -> Path:
    """The last step's folder that Eole wrote (model/step_N), or model/ itself."""
    steps = sorted((folder / MODEL_DIR).glob("step_*"), key=lambda p: int(p.name.split("_")[1]))
    return steps[-1] if steps else folder / MODEL_DIR


def serve(folder: Path, threads: int) -> None:
    import torch
    from eole.config.run import PredictConfig
    from eole.inference_engine import InferenceEnginePY

    torch.set_num_threads(threads)
    config = PredictConfig(model_path=str(trained_model(folder)), src="dummy", batch_type="tokens", batch_size=2000,
                           beam_size=1, world_size=1, gpu_ranks=[], seed=1, max_length_ratio=1.5,
                           length_penalty="wu", alpha=1.0, n_best=1, report_time=False)
    engine = InferenceEnginePY(config)
    print(json.dumps({"ready": True, "model": str(trained_model(folder)), "threads": torch.get_num_threads()}),
          flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        engine.predictor.batch_size = request["batch_tokens"]
        engine.config.__dict__["batch_size"] = request["batch_tokens"]
        sources = [" ".join(pieces) for pieces in request["sources"]]
        started = time.perf_counter()
        _, _, preds = engine.infer_list(sources, settings={"beam_size": request["beam"]})
        seconds = time.perf_counter() - started
        outputs = [p[0].split() for p in preds]
        print(json.dumps({"seconds": seconds, "outputs": outputs}), flush=True)
    engine.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["convert", "serve"])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--weights", type=Path, help="convert: our trained state dict (model=small)")
    args = parser.parse_args()
    if args.command == "convert":
        convert(args.folder.resolve(), args.weights.resolve())
    else:
        serve(args.folder.resolve(), args.threads)


if __name__ == "__main__":
    main()
