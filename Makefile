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
comma       := ,
SWEEP_DIR   ?= sweeps/$(subst $(comma),+,$(SWEEP))
JOBS        ?=
# pytest processes (pytest-xdist): the tests run torch on one thread each, so one per core of the 2-core machines we
# test on (more where there are more: TEST_WORKERS=8); a file's tests stay on one worker, and the files go out longest
# first (tests/durations.json, measured again by make test-durations).
TEST_WORKERS ?= 2
PYTEST      := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
STAMP       := $(VENV)/.installed

.PHONY: setup train test test-fast test-durations sweep repro repro-halves repro-600 pilots-then-sweep collect-repro extrapolation-published encodings-page longer-inputs browser train-ddp bench bench-decode bench-quality bench-gpu clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q $(TORCH_INDEX) "$(TORCH_SPEC)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

train: setup
	$(PY) -m translate.train $(ARGS)

test: setup browser
	$(PYTEST) $(ARGS)

test-fast: setup
	$(PYTEST) -m "not slow" $(ARGS)

test-durations: setup browser
	$(PYTEST) --store-durations $(ARGS)

# Headless Chromium for the TensorBoard browser test: Debian packages, installed only when missing (root or sudo).
browser:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }

# `make sweep SWEEP=encodings` (several: SWEEP=encodings,seeds; JOBS=n jobs at once): every job of conf/sweep/<name>
# in SWEEP_DIR, one folder per job; a rerun continues unfinished jobs from their last.pt. Then SWEEP_DIR/report/.
sweep: setup
	$(PY) -m translate.train '+sweep=[$(SWEEP)]' hydra.sweep.dir=$(SWEEP_DIR) \
	  $(if $(JOBS),hydra.launcher.n_jobs=$(JOBS)) $(ARGS); status=$$?; \
	  $(PY) -m translate.report $(SWEEP_DIR); exit $$status

# The runs that decide the source notes' three claims on 2 CPU cores (nohup make repro > repro.log 2>&1 &), in pieces
# that add up across interruptions (run it again to continue): for each comparison its pilots (seed 1, until valid
# BLEU stops improving), then every job to the largest plateau step, each tested at that step; then the jobs' small
# files in docs/results/runs/claims_cpu/ and docs/results.md. Claims (b), (c): conf/sweep/claims_cpu.yaml (model=small);
# claim (a): conf/sweep/claim_a_cpu.yaml (model=base_cpu), its positive control and the test-time controls.
REPRO_RUNS  := docs/results/runs/claims_cpu
repro: setup
	$(MAKE) pilots-then-sweep PILOTS=claims_cpu_pilot COMPARISON=claims_cpu
	$(MAKE) pilots-then-sweep PILOTS=claim_a_cpu_pilot COMPARISON=claim_a_cpu
	budget=$$($(PY) -m translate.study pilots sweeps/claim_a_cpu_pilot sweeps/claim_a_cpu | \
	  sed -n 's/.*"budget_steps": \([0-9]*\).*/\1/p'); \
	  $(MAKE) sweep SWEEP=claim_a_cpu SWEEP_DIR=sweeps/claim_a_cpu \
	  ARGS="+sweep/pe=sinusoidal_zero_low_dims seed=1 train.max_steps=$$budget"
	$(MAKE) collect-repro
	$(PY) -m translate.study results $(REPRO_RUNS) --out docs/results.md --readme README.md \
	  --pilots docs/results/runs/claims_cpu_pilot docs/results/runs/claim_a_cpu_pilot docs/results/runs/claim_b_within_cpu_pilot \
	  docs/results/runs/claim_a_long_cpu_pilot docs/results/runs/claim_a_long_cpu_pilot_dropout --plan docs/preregistration.md \
	  --silver-check docs/results/silver_against_gold.json

# The claims' new halves (docs/preregistration.md), resumable (run it again to continue): (b) within one model
# (conf/sweep/claim_b_within_cpu.yaml) and (a) on long sentences (conf/sweep/claim_a_long_cpu.yaml), each its pilots
# first, then its eight seeds to the pilots' budget, two one-thread jobs at a time (JOBS=1: one), each sinusoidal job
# of (a) scoring its test-time controls at its end (eval.at_test); then every finished job's small files into
# docs/results/runs/, beside the committed claim runs: one results page reads them all.
# (a) long's pilots in the plan's order: sinusoidal at dropout 0.1, then at 0.3 (its first pilots overfit before their
# BLEU plateau); the dropout whose pilot scores higher is kept (translate.study dropout), the zeroed-dims pilot runs
# at it, and the comparison trains at it to the budget of that dropout's pilots.
HALVES_RUNS := docs/results/runs/claims_cpu
A_LONG_PILOTS := claim_a_long_cpu_pilot claim_a_long_cpu_pilot_dropout
repro-halves: setup
	$(MAKE) pilots-then-sweep PILOTS=claim_b_within_cpu_pilot COMPARISON=claim_b_within_cpu REPRO_RUNS=$(HALVES_RUNS)
	for pilots in $(A_LONG_PILOTS); do \
	  $(PY) -m translate.study restore docs/results/runs/$$pilots sweeps/$$pilots && \
	  $(MAKE) sweep SWEEP=$$pilots SWEEP_DIR=sweeps/$$pilots ARGS=piece=1/2 || exit 1; done
	choice=$$($(PY) -m translate.study dropout $(addprefix sweeps/,$(A_LONG_PILOTS)) | tail -n 1) && \
	  dropout=$$(echo "$$choice" | sed -n 's/.*"model.dropout": \([0-9.]*\).*/\1/p') && \
	  kept=$$(echo "$$choice" | sed -n 's/.*"pilots": "sweeps\/\([a-z_]*\)".*/\1/p') && \
	  test -n "$$dropout" -a -n "$$kept" && \
	  $(MAKE) sweep SWEEP=$$kept SWEEP_DIR=sweeps/$$kept ARGS=piece=2/2 && \
	  $(PY) -m translate.study restore $(HALVES_RUNS)/claim_a_long_cpu sweeps/claim_a_long_cpu && \
	  budget=$$($(PY) -m translate.study pilots sweeps/$$kept sweeps/claim_a_long_cpu | \
	    sed -n 's/.*"budget_steps": \([0-9]*\).*/\1/p') && test -n "$$budget" && \
	  $(MAKE) sweep SWEEP=claim_a_long_cpu SWEEP_DIR=sweeps/claim_a_long_cpu \
	    ARGS="train.max_steps=$$budget model.dropout=$$dropout"
	for sweep in claim_b_within_cpu_pilot $(A_LONG_PILOTS); do test ! -d sweeps/$$sweep || \
	  $(PY) -m translate.study collect sweeps/$$sweep docs/results/runs/$$sweep || exit 1; done
	for sweep in claim_b_within_cpu claim_a_long_cpu; do test ! -d sweeps/$$sweep || \
	  $(PY) -m translate.study collect sweeps/$$sweep $(HALVES_RUNS)/$$sweep || exit 1; done

# One comparison: its pilots (conf/sweep/$(PILOTS).yaml), then its jobs to their budget (conf/sweep/$(COMPARISON).yaml).
# The jobs already committed (docs/results/runs/) are restored into the sweep folders first, so that a fresh checkout
# trains only what is missing: checkpoints are never committed, so what a session leaves unfinished starts again.
pilots-then-sweep: setup
	$(PY) -m translate.study restore docs/results/runs/$(PILOTS) sweeps/$(PILOTS)
	$(PY) -m translate.study restore $(REPRO_RUNS)/$(COMPARISON) sweeps/$(COMPARISON)
	$(MAKE) sweep SWEEP=$(PILOTS) SWEEP_DIR=sweeps/$(PILOTS)
	budget=$$($(PY) -m translate.study pilots sweeps/$(PILOTS) sweeps/$(COMPARISON) | \
	  sed -n 's/.*"budget_steps": \([0-9]*\).*/\1/p'); test -n "$$budget" && \
	  $(MAKE) sweep SWEEP=$(COMPARISON) SWEEP_DIR=sweeps/$(COMPARISON) ARGS="train.max_steps=$$budget"

# The finished jobs of the repro sweeps present here, collected into docs/results/runs/ (small files only) to be
# committed before the session or machine ends: the pilots, claims_cpu, claim_a_cpu. First claim (a)'s test-time
# controls of every finished sinusoidal job whose checkpoint is still here (they need it; restored jobs have none and
# are named). Pages are not rewritten.
collect-repro: setup
	test ! -d sweeps/claim_a_cpu || { \
	  $(PY) -m translate.study ablate-at-test sweeps/claim_a_cpu --ablation zero_dims; \
	  $(PY) -m translate.study ablate-at-test sweeps/claim_a_cpu --ablation zero_dims ablation.name=zero_dims_mean \
	    ablation.fill=mean; true; }
	for sweep in claims_cpu_pilot claim_a_cpu_pilot; do test ! -d sweeps/$$sweep || \
	  $(PY) -m translate.study collect sweeps/$$sweep docs/results/runs/$$sweep || exit 1; done
	for sweep in claims_cpu claim_a_cpu; do test ! -d sweeps/$$sweep || \
	  $(PY) -m translate.study collect sweeps/$$sweep $(REPRO_RUNS)/$$sweep || exit 1; done

# Length extrapolation against published results (conf/sweep/extrapolation_published_cpu.yaml): learned, t5, shaw,
# rope and alibi trained like claims_cpu's short group, to claims_cpu's budget (its committed pilots), seeds 1-3;
# then docs/encodings_results.md gains its section. Jobs committed before are restored first, as in make repro.
PUBLISHED_RUNS := docs/results/runs/extrapolation_published_cpu
extrapolation-published: setup
	$(PY) -m translate.study restore $(PUBLISHED_RUNS) sweeps/extrapolation_published_cpu
	budget=$$($(PY) -m translate.study pilots docs/results/runs/claims_cpu_pilot --budget-only | \
	  sed -n 's/.*"budget_steps": \([0-9]*\).*/\1/p'); test -n "$$budget" && \
	  $(MAKE) sweep SWEEP=extrapolation_published_cpu SWEEP_DIR=sweeps/extrapolation_published_cpu \
	  ARGS="train.max_steps=$$budget"
	$(PY) -m translate.study collect sweeps/extrapolation_published_cpu $(PUBLISHED_RUNS)
	$(PY) -m translate.study collect $(REPRO_RUNS)/claims_cpu $(PUBLISHED_RUNS) --only '*_words1-9_*'
	$(PY) -m translate.study encodings $(ENCODINGS_RUNS) --out docs/encodings_results.md --readme README.md \
	  --extrapolation $(EXTRAPOLATION_RUNS) --published $(PUBLISHED_RUNS)

# The earlier experiment (one seed, 600 steps, tested at the best valid step, model=base_cpu): sweep seed_repro_cpu,
# its runs in docs/results/runs/seed_repro_cpu/, its page docs/results_600_steps.md (kept to show what one seed of an
# unconverged model said; docs/results.md supersedes it).
repro-600: setup
	$(MAKE) sweep SWEEP=seed_repro_cpu SWEEP_DIR=sweeps/seed_repro_cpu
	$(PY) -m translate.study collect sweeps/seed_repro_cpu docs/results/runs/seed_repro_cpu
	$(PY) -m translate.study results docs/results/runs/seed_repro_cpu --out docs/results_600_steps.md

# docs/encodings_results.md from sweeps/encodings and sweeps/length_extrapolation: each sweep's finished jobs' small
# files (no checkpoints) are copied into its runs folder first (pieces and later runs add up; a sweep not run here
# keeps the runs already committed), and the page is written from the runs folders.
ENCODINGS_RUNS     ?= docs/results/runs/encodings_cpu
EXTRAPOLATION_RUNS ?= docs/results/runs/length_extrapolation_cpu
encodings-page: setup
	test ! -d sweeps/encodings || $(PY) -m translate.study collect sweeps/encodings $(ENCODINGS_RUNS)
	test ! -d sweeps/length_extrapolation || \
	  $(PY) -m translate.study collect sweeps/length_extrapolation $(EXTRAPOLATION_RUNS)
	test ! -d sweeps/length_extrapolation_longer || \
	  $(PY) -m translate.study collect sweeps/length_extrapolation_longer $(LONGER_RUNS)
	$(PY) -m translate.study encodings $(ENCODINGS_RUNS) --out docs/encodings_results.md --readme README.md \
	  $$(test ! -d $(EXTRAPOLATION_RUNS) || echo --extrapolation $(EXTRAPOLATION_RUNS)) \
	  $$(test ! -d $(PUBLISHED_RUNS) || echo --published $(PUBLISHED_RUNS)) \
	  $$(test ! -d $(LONGER_RUNS) || echo --longer-inputs $(LONGER_RUNS))

# The encodings researchers try for longer inputs, one seed each, trained as the length_extrapolation jobs (pairs
# of at most 10 French words, 600 steps, one thread a job, one job at a time): sinusoidal PE and RoPE retrained
# beside CoPE, randomized positions on sinusoidal PE and ALiBi on 4 of 8 heads; then RoPE's three test-time scalings
# scored on the RoPE job (no training). Resumable; the small files go to $(LONGER_RUNS), the page's section reads
# them (make encodings-page).
LONGER_RUNS ?= docs/results/runs/length_extrapolation_longer_cpu
LONGER      := +sweep=length_extrapolation hydra.sweep.dir=sweeps/length_extrapolation_longer \
               hydra.launcher.n_jobs=1 train.num_threads=1
longer-inputs: setup
	$(PY) -m translate.study restore $(LONGER_RUNS) sweeps/length_extrapolation_longer
	$(PY) -m translate.train $(LONGER) encoding=sinusoidal,rope,cope
	$(PY) -m translate.train $(LONGER) encoding=sinusoidal ablation=randomized
	$(PY) -m translate.train $(LONGER) encoding=alibi encoding.biased_heads=4 encoding.name=alibi_4_heads
	for scaling in interpolation ntk yarn; do out=sweeps/length_extrapolation_longer/rope_$${scaling}_at_test_none_seed1; \
	  test -f $$out/metrics.json || $(PY) -m translate.evaluate \
	  checkpoint=sweeps/length_extrapolation_longer/rope_none_seed1/last.pt encoding.scaling=$$scaling \
	  output_dir=$$out || exit 1; done
	$(PY) -m translate.study collect sweeps/length_extrapolation_longer $(LONGER_RUNS)

train-ddp: setup
	$(VENV)/bin/torchrun --standalone --nproc_per_node=$(NPROC) -m translate.train $(ARGS)

# Speed benchmarks (docs/speed.md): ratios measured in one run. MINUTES: the quality benchmark's budget.
MINUTES     ?= 20

bench: setup
	$(PY) scripts/bench_train.py $(ARGS)

bench-decode: setup
	$(PY) scripts/bench_decode.py $(ARGS)

bench-quality: setup
	$(PY) scripts/bench_quality.py $(MINUTES) $(ARGS)

clean:
	rm -rf $(VENV) runs outputs multirun .pytest_cache

# One GPU (docs/speed.md, GPU section): writes bench_gpu/bench_gpu.json and bench_gpu/bench_gpu.md.
bench-gpu: setup
	$(PY) scripts/bench_gpu.py $(ARGS)
