"""Does `train.compile=true` work for every encoding? One training step of model=tiny per encoding, compiled and
eager from the same weights on the same batch: compiled graphs, fallback, seconds, and the loss difference.

    python scripts/compile_encodings.py                       # aot_eager: tracing + autograd, no C++ (~10 s each)
    python scripts/compile_encodings.py --backend inductor    # the real thing (~45 s a graph on 2 CPU cores)
"""
from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

import torch

from translate.assembly.settings import data_settings, validate_config
from translate.assembly.compose import compose

ROOT = Path(__file__).resolve().parents[1]

TINY = ["+debug=tiny", "model.dropout=0.0", "train.max_tokens=600", "train.device=cpu", "train.precision=fp32"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("encodings", nargs="*", help="default: every file in conf/encoding")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    torch.set_num_threads(1)
    from translate.data.pipeline import prepare_data
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    encodings = args.encodings or sorted(p.stem for p in (ROOT / "conf" / "encoding").glob("*.yaml"))
    data = prepare_data(data_settings(compose(*TINY)))
    print(f"{'encoding':18s} {'graphs':>6s} {'fallback':>8s} {'compile s':>9s} {'|loss diff| / loss':>18s}", flush=True)
    for encoding in encodings:
        torch._dynamo.reset()
        trainers = [build_trainer(validate_config(compose(*TINY, f"encoding={encoding}", "train.pad_shapes=true",
                                    f"train.compile={str(on).lower()}", f"train.compile_backend={args.backend}")),
                            data, make_runtime("cpu", "fp32"), Path(tempfile.mkdtemp(prefix="compile_enc_")))
                    for on in (False, True)]
        indices = trainers[0].epoch_batches(0)[0]
        eager, compiled = (t.train_step(indices) for t in trainers)
        c = trainers[1].compiled
        diff = abs(float(compiled.loss) - float(eager.loss)) / abs(float(eager.loss))
        print(f"{encoding:18s} {c.graphs:6d} {'yes' if c.failed else 'no':>8s} {c.seconds:9.1f} {diff:18.2e}",
              flush=True)


if __name__ == "__main__":
    main()
