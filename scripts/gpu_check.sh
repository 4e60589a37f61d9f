#!/usr/bin/env bash
# One call on a lent GPU machine, of at most WINDOW_SECONDS (default 540): how fast is the GPU path, and does it
# still work. Stages in order, each cut to the time left, every result written under $OUT as it comes (at most 8
# files come back, so the benches' outputs are packed into $OUT/window.tgz after each stage). The timings run first
# and alone: in the first window the CPU test suite ran beside them and slowed eager steps up to 5x (docs/speed.md).
#   1. model=base throughput, eager, four encodings, each with a torch.profiler table of 3 steps (scripts/bench_gpu.py);
#   2. the CUDA-only tests (the first two passed on an H200; the third checks that no cuDNN attention runs);
#   3. `translate.train train=gpu model=base` end to end, eager (compiling its 6 shapes would take its budget),
#      without AER (eflomal is not carried: a source package);
#   4. greedy and beam-4 decoding sentences/s with that trained model (outputs of real lengths), at the
#      configured 4k source tokens a batch and larger (fewer, fuller decoding steps);
#   5. aggregate tokens/s of 1, 8 and 16 model=small jobs sharing the GPU (scripts/bench_gpu_concurrency.py;
#      the jobs time their steps over one wall-clock window; 4 jobs were measured in an earlier window);
#   6. model=base compiled, sinusoidal (about 25 s of compiling per batch shape on an H200), profiled too;
#   7. the fast suite, in whatever time is left.
# The stages that earlier windows never reached come before the ones they already measured once.
# Each stage writes its output to its own log (tails echoed): a process a stage leaves behind (inductor's compile
# workers) then holds a file, not the call's output, which would keep the call open to its limit.
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
mkdir -p "$W"
pack() { tar czf "$OUT/window.tgz" -C "$W" --exclude='*.pt' --exclude='ready' . 2>/dev/null; }
stage() {  # stage NAME SECONDS COMMAND...: at most SECONDS (cut to the window), output in $W/NAME.log
  local name=$1 seconds
  seconds=$(left "$2")
  shift 2
  echo "== $name ($seconds s)"
  if [ "$seconds" -gt 5 ]; then
    timeout --kill-after=5 "$seconds" "$@" > "$W/$name.log" 2>&1 < /dev/null
    echo "exit $?"
    tail -n 12 "$W/$name.log"
  fi
  pack
}
exec > >(tee "$OUT/window.log") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# shellcheck source=scripts/gpu_env.sh
source scripts/gpu_env.sh "${GPU_BUNDLE:-.gpu_bundle}" || { echo "error: could not install the bundle"; exit 1; }
export TRANSLATE_CACHE_DIR=/tmp/translate_cache
python3 -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name())"

stage base_eager 75 python3 scripts/bench_gpu.py --model base --batch-tokens 24000 --compile off --warmup 5 \
  --steps 20 --profile 3 --sentences 0 --out "$W/base_eager"
stage cuda_tests 100 python3 -m pytest -q -p no:cacheprovider -rs -k cuda tests/test_gpu_path.py
stage train_base 110 python3 -m translate.train train=gpu model=base train.max_steps=5000 train.max_minutes=0.25 \
  train.compile=false train.valid_every=1000 train.save_every=100000 report.alignment_error_rate=false \
  hydra.run.dir="$W/run_base"
stage decode 60 python3 scripts/bench_gpu.py --model base --encodings --checkpoint "$W/run_base/last.pt" \
  --sentences 2000 --decode-batch-tokens 4000 16000 64000 --out "$W/decode"
stage concurrency 150 python3 scripts/bench_gpu_concurrency.py --jobs 1 8 16 --steps 20 --out "$W/concurrency"
stage base_compiled 110 python3 scripts/bench_gpu.py --model base --encodings sinusoidal --batch-tokens 24000 \
  --compile on --warmup 12 --steps 20 --profile 3 --sentences 0 --out "$W/base_compiled"
stage fast_suite 200 python3 -m pytest -q -p no:cacheprovider -m "not slow" -n 8
echo "== done, $(( DEADLINE - $(date +%s) )) s to spare"
