#!/usr/bin/env bash
# One call on a lent GPU machine, of at most WINDOW_SECONDS (default 540): how fast is the GPU path, and does it
# still work. Stages in order, each cut to the time left, every result written under $OUT as it comes (at most 8
# files come back, so the benches' outputs are packed into $OUT/window.tgz after each stage). The timings run first
# and alone: in the first window the CPU test suite ran beside them and slowed eager steps up to 5x (docs/speed.md).
#   1. aggregate tokens/s of 1, 4, 8 and 16 model=small jobs sharing the GPU (scripts/bench_gpu_concurrency.py;
#      the jobs time their steps over one wall-clock window);
#   2. model=base throughput, eager, four encodings, each with a torch.profiler table of 3 steps (scripts/bench_gpu.py);
#   3. model=base compiled, sinusoidal (about 25 s of compiling per batch shape on an H200), profiled too;
#   4. `translate.train train=gpu model=base` end to end, eager (stage 3 compiled; compiling its 6 shapes would take
#      the 2-minute budget), without AER (eflomal is not carried: a source package);
#   5. greedy and beam-4 decoding sentences/s with that trained model (outputs of real lengths);
#   6. the CUDA-only tests (they passed on an H200), then the fast suite, in whatever time is left.
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
W=/tmp/window
pack() { tar czf "$OUT/window.tgz" -C "$W" --exclude='*.pt' --exclude='ready' . 2>/dev/null; }
mkdir -p "$W"
exec > >(tee "$OUT/window.log") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# shellcheck source=scripts/gpu_env.sh
source scripts/gpu_env.sh "${GPU_BUNDLE:-.gpu_bundle}" || { echo "error: could not install the bundle"; exit 1; }
export TRANSLATE_CACHE_DIR=/tmp/translate_cache
python3 -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name())"

echo "== 1. concurrency ($(left 140) s)"
timeout "$(left 140)" python3 scripts/bench_gpu_concurrency.py --jobs 1 4 8 16 --steps 40 --out "$W/concurrency"
pack

echo "== 2. model=base eager ($(left 80) s)"
timeout "$(left 80)" python3 scripts/bench_gpu.py --model base --batch-tokens 24000 --compile off --warmup 5 \
  --steps 20 --profile 3 --sentences 0 --out "$W/base_eager"
pack

echo "== 3. model=base compiled, sinusoidal ($(left 100) s)"
timeout "$(left 100)" python3 scripts/bench_gpu.py --model base --encodings sinusoidal --batch-tokens 24000 \
  --compile on --warmup 12 --steps 20 --profile 3 --sentences 0 --out "$W/base_compiled"
pack

echo "== 4. train=gpu model=base end to end, eager ($(left 110) s)"
timeout "$(left 110)" python3 -m translate.train train=gpu model=base train.max_steps=5000 train.max_minutes=1 \
  train.compile=false train.valid_every=1000 train.save_every=100000 report.alignment_error_rate=false \
  hydra.run.dir="$W/run_base" > "$W/train_base.log" 2>&1
echo "train exit $?"
pack

echo "== 5. decoding with the trained model ($(left 50) s)"
timeout "$(left 50)" python3 scripts/bench_gpu.py --model base --encodings --checkpoint "$W/run_base/last.pt" \
  --sentences 4000 --out "$W/decode"
pack

echo "== 6. tests ($(left 100) s)"
timeout "$(left 100)" python3 -m pytest -q -p no:cacheprovider -rs -k cuda tests/test_gpu_path.py > "$W/tests.log" 2>&1
timeout "$(left 200)" python3 -m pytest -q -p no:cacheprovider -m "not slow" -n 8 >> "$W/tests.log" 2>&1
pack
echo "== done, $(( DEADLINE - $(date +%s) )) s to spare"
