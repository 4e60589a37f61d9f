# The two commands: `make train` and `make test`. Both set up .venv themselves on a fresh clone.
PYTHON      ?= python3
VENV        ?= .venv
PY          := $(VENV)/bin/python
# torch first, on its own: without CUDA we must not let pip resolve the multi-GB CUDA build.
TORCH_SPEC  ?= torch==2.13.0
# Where no CPU wheel is on local disk, set e.g. TORCH_INDEX=--index-url=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
ARGS        ?=
NPROC       ?= 2
SWEEP       ?= encodings
STAMP       := $(VENV)/.installed

.PHONY: setup train test test-fast sweep repro train-ddp bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q $(TORCH_INDEX) "$(TORCH_SPEC)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

train: setup
	$(PY) -m translate.train $(ARGS)

test: setup
	$(PY) -m pytest -q $(ARGS)

test-fast: setup
	$(PY) -m pytest -q -m "not slow" $(ARGS)

train-ddp: setup
	$(VENV)/bin/torchrun --standalone --nproc_per_node=$(NPROC) -m translate.train $(ARGS)

bench: setup
	$(PY) scripts/bench_train.py $(ARGS)

clean:
	rm -rf $(VENV) runs outputs multirun .pytest_cache
