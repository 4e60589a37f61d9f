#!/usr/bin/env bash
# One call on a lent GPU machine: train one piece of a sweep, then pack its finished jobs' small files (no
# checkpoints) into ONE archive under $OUT. The device brings back at most 8 files, at most 2 folders down, and a
# collected job folder alone holds ~15 files 3 folders down (tb/, .hydra/): copying job folders into $OUT loses them.
#
#   there:  bash scripts/gpu_piece.sh SWEEP PIECE [OVERRIDE ...]
#           e.g. bash scripts/gpu_piece.sh seed_repro 3/42 train.max_steps=2000
#   here:   mkdir -p docs/results/runs/seed_repro && tar xzf FILES_AT/seed_repro.3of42.tgz -C docs/results/runs/seed_repro
#
# Pieces unpacked into one folder add up (a job already there is replaced by the newer copy). The training gets
# PIECE_MINUTES of wall time (default 8, inside the call's 10-minute limit), so the archive is always written: a
# job still training then is stopped (SIGTERM: it saves and exits), left out, and named. The exit status is the
# training's (124: stopped by the guard). GPU_BUNDLE (default .gpu_bundle, from scripts/gpu_bundle.sh) is installed
# first where it exists; PYTHON (default python3) runs the code; SWEEP_DIR defaults to sweeps/SWEEP. AT_TEST (e.g.
# zero_dims for seed_repro; overrides may follow: "zero_dims ablation.from=48"; several controls are separated by
# ";") names an ablation applied at test time
# to the piece's sinusoidal jobs after training (translate.study ablate-at-test): it needs their checkpoints, which never
# leave the machine.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: bash scripts/gpu_piece.sh SWEEP PIECE [OVERRIDE ...]   (PIECE: K/N, e.g. 3/42)" >&2
  exit 2
fi
SWEEP=$1 PIECE=$2
shift 2
: "${OUT:?OUT is not set: the folder whose files come back from the GPU machine}"
PYTHON=${PYTHON:-python3}
BUNDLE=${GPU_BUNDLE:-.gpu_bundle}
SWEEP_DIR=${SWEEP_DIR:-sweeps/$SWEEP}
MINUTES=${PIECE_MINUTES:-8}
if [ -d "$BUNDLE" ]; then
  # shellcheck source=scripts/gpu_env.sh
  source scripts/gpu_env.sh "$BUNDLE" || { echo "error: could not install $BUNDLE" >&2; exit 1; }
fi

# timeout runs the training in a process group of its own and signals the whole group: the joblib workers too.
timeout --signal=TERM --kill-after=30 "${MINUTES}m" \
  "$PYTHON" -m translate.train "+sweep=[$SWEEP]" "piece=$PIECE" "hydra.sweep.dir=$SWEEP_DIR" "$@"
status=$?
[ "$status" -eq 124 ] && echo "gpu_piece: stopped after $MINUTES minutes; unfinished jobs are left out" >&2
IFS=';' read -ra controls <<< "${AT_TEST:-}"
for control in "${controls[@]}"; do
  # shellcheck disable=SC2086  # each control is the ablation, then its overrides, split on spaces
  "$PYTHON" -m translate.study ablate-at-test "$SWEEP_DIR" --ablation $control \
    || echo "gpu_piece: no $control at test time for this piece (see above)" >&2
done

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
"$PYTHON" -m translate.study collect "$SWEEP_DIR" "$STAGE/runs" || exit 1
ARCHIVE="$OUT/$SWEEP.${PIECE/\//of}.tgz"
tar czf "$ARCHIVE" -C "$STAGE/runs" .
echo "gpu_piece: $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1)); unpack: tar xzf $(basename "$ARCHIVE") -C <runs folder>"
exit "$status"
