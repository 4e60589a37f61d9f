#!/usr/bin/env bash
# Packs what a bare GPU machine lacks into one folder that travels with the working tree: the wheels of the
# Python packages its image does not have (hydra, omegaconf, antlr4, datasets and its helpers, the joblib launcher,
# nltk and scikit-learn for the length report's word order and position probe, with their helpers)
# and a copy of the corpora. Run here, once per checkout; then, on the GPU machine, start every command with
#   source scripts/gpu_env.sh
# which installs the wheels into /tmp/site and points TRANSLATE_DATA_DIR at the copy.
#
#   bash scripts/gpu_bundle.sh [BUNDLE_DIR]      (default .gpu_bundle, git-ignored through .git/info/exclude)
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${1:-.gpu_bundle}
PIP=${PIP:-.venv/bin/pip}
PY_VERSION=${GPU_PYTHON_VERSION:-3.12}   # the GPU image's Python
# Pinned to what .venv resolved here, so both machines run the same configuration code.
PACKAGES=(hydra-core==1.3.8 omegaconf==2.3.1 hydra-joblib-launcher==1.2.0 datasets==5.2.0 dill==0.4.1
          multiprocess==0.70.19 nltk==3.10.4 regex==2026.11.19 click==8.5.1 joblib==1.6.0
          scikit-learn==1.9.1 threadpoolctl==3.8.0)
# What the GPU image already holds (device KINDS.md, read 2026-11-17; seen on an H200 2026-11-26: torch 2.11.0+cu130;
# protobuf comes with tensorboard).
IMAGE_HAS=(torch sentencepiece sacrebleu tensorboard protobuf matplotlib tqdm scipy pytest pytest-xdist hypothesis)
# Left behind, with what that costs there: eflomal is a source package (no wheel to carry; without it a run needs
# pinned silver links (data/silver/) or report.alignment_error_rate=false); selenium and import-linter only serve
# the HTML-page and import-contract tests, which fail there.
NOT_CARRIED=(eflomal selenium import-linter)

mkdir -p "$BUNDLE/wheels" "$BUNDLE/data"
EXCLUDE=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$EXCLUDE")"
grep -qxF "/$BUNDLE/" "$EXCLUDE" 2>/dev/null || echo "/$BUNDLE/" >> "$EXCLUDE"

"$PIP" download -q --no-deps --only-binary=:all: --python-version "$PY_VERSION" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any \
    -d "$BUNDLE/wheels" "${PACKAGES[@]}"
# antlr4 4.9.3 (what omegaconf 2.3 needs) is published only as an sdist: build its pure-Python wheel here.
"$PIP" wheel -q --no-deps -w "$BUNDLE/wheels" antlr4-python3-runtime==4.9.3

SHARED=${TRANSLATE_SHARED_DATA:-../shared/data}
cp -r "$SHARED"/. "$BUNDLE/data/"
du -sh "$BUNDLE"
echo "carry: $BUNDLE   there: bash scripts/gpu_piece.sh SWEEP K/N ...  (or first: source scripts/gpu_env.sh $BUNDLE)"
