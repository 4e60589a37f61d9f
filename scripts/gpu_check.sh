#!/usr/bin/env bash
# One call on a lent GPU machine, of at most WINDOW_SECONDS (default 540): how fast is the GPU path, and does it
# still work. Stages in order, each cut to the time left, every result written under $OUT as it comes (at most 8
# files come back). The timings run first and alone: in the first window the CPU test suite ran beside them and
# slowed eager steps up to 5x (docs/speed.md).
#   1. aggregate tokens/s of 1, 4, 8 and 16 model=small jobs sharing the GPU (scripts/bench_gpu_concurrency.py);
#   2. model=base throughput, eager, four encodings (scripts/bench_gpu.py);
#   3. model=base compiled, sinusoidal (about 25 s of compiling per batch shape on an H200);
#   4. `translate.train train=gpu model=base` end to end, eager (stage 3 compiled; compiling its 6 shapes would take
#      the 2-minute budget), without AER (eflomal is not carried: a source package);
#   5. greedy and beam-4 decoding sentences/s with that trained model (outputs of real lengths);
#   6. the CUDA-only tests, then the fast suite.
#   there:  bash scripts/gpu_check.sh        (carry .gpu_bundle from scripts/gpu_bundle.sh)
# The call sends the tracked tree, which the committed run folders take over its 64 MiB; leave them out of the index
# for the call and put them back after it:
#   git rm -r -q --cached docs/results/runs && echo /docs/results/runs/ >> .git/info/exclude     (before)
#   git reset -q docs/results/runs && sed -i '\#^/docs/results/runs/$#d' .git/info/exclude         (after)
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?OUT is not set: the folder whose files come back from the GPU machine}"
DEADLINE=$(( $(date +%s) + ${WINDOW_SECONDS:-540} ))
left() { local s=$(( DEADLINE - $(date +%s) - 10 )); [ "$s" -lt "$1" ] && echo "$s" || echo "$1"; }
exec > >(tee "$OUT/window.log") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# shellcheck source=scripts/gpu_env.sh
source scripts/gpu_env.sh "${GPU_BUNDLE:-.gpu_bundle}" || { echo "error: could not install the bundle"; exit 1; }
export TRANSLATE_CACHE_DIR=/tmp/translate_cache
python3 -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name())"

echo "== 1. concurrency ($(left 120) s)"
timeout "$(left 120)" python3 scripts/bench_gpu_concurrency.py --jobs 1 4 8 16 --steps 60 --out /tmp/concurrency
cp /tmp/concurrency/bench_gpu_concurrency.json "$OUT/" 2>/dev/null

echo "== 2. model=base eager ($(left 70) s)"
timeout "$(left 70)" python3 scripts/bench_gpu.py --model base --batch-tokens 24000 --compile off --warmup 5 \
  --steps 20 --sentences 0 --out /tmp/bench_base_eager
cp /tmp/bench_base_eager/bench_gpu.json "$OUT/bench_base_eager.json" 2>/dev/null

echo "== 3. model=base compiled, sinusoidal ($(left 100) s)"
timeout "$(left 100)" python3 scripts/bench_gpu.py --model base --encodings sinusoidal --batch-tokens 24000 \
  --compile on --warmup 12 --steps 20 --sentences 0 --out /tmp/bench_base_compiled
cp /tmp/bench_base_compiled/bench_gpu.json "$OUT/bench_base_compiled.json" 2>/dev/null

echo "== 4. train=gpu model=base end to end, eager ($(left 150) s)"
timeout "$(left 150)" python3 -m translate.train train=gpu model=base train.max_steps=5000 train.max_minutes=2 \
  train.compile=false train.valid_every=1000 train.save_every=100000 report.alignment_error_rate=false hydra.run.dir=/tmp/run_base \
  > /tmp/train_base.log 2>&1
echo "train exit $?"
tar czf "$OUT/train_base.tgz" -C /tmp --exclude='*.pt' run_base train_base.log

echo "== 5. decoding with the trained model ($(left 60) s)"
timeout "$(left 60)" python3 scripts/bench_gpu.py --model base --encodings --checkpoint /tmp/run_base/last.pt \
  --sentences 8000 --out /tmp/bench_decode
cp /tmp/bench_decode/bench_gpu.json "$OUT/bench_decode.json" 2>/dev/null

echo "== 6. tests ($(left 120) s)"
timeout "$(left 120)" python3 -m pytest -q -p no:cacheprovider -rs -k cuda tests/test_gpu_path.py \
  > "$OUT/tests.log" 2>&1
timeout "$(left 200)" python3 -m pytest -q -p no:cacheprovider -m "not slow" -n 8 >> "$OUT/tests.log" 2>&1
echo "== done, $(( DEADLINE - $(date +%s) )) s to spare"
