# Sourced on a bare GPU machine in the repository root: installs the bundle of scripts/gpu_bundle.sh without
# touching the image's own packages (torch, numpy, pyarrow stay as they are) and points the corpus search at
# the copied corpora.   source scripts/gpu_env.sh [BUNDLE_DIR]
BUNDLE=${1:-.gpu_bundle}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$BUNDLE"/wheels/*.whl || return 1
export PYTHONPATH="$PWD:/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
export TRANSLATE_DATA_DIR="$PWD/$BUNDLE/data"
export PYTHONUNBUFFERED=1
