# Two set-up commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev
LOCAL_STAMP := $(VENV)/.installed-local
DEMO_OUT ?= out/demo

.PHONY: demo test test-local lint typecheck bench bench-peers calibrate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# The embedded default judge: llama-cpp-python builds from source (a few minutes, once).
# Portable flags: AVX2/FMA/F16C are the floor every x86-64 machine we support has; nothing
# newer (AVX-512, AVX-VNNI, AMX) is compiled in, because a native build picks AMX kernels that
# die with SIGILL on some AMX-flagged VMs, and llama-cpp-python 0.3.36 cannot load the
# run-time-selected variants of GGML_CPU_ALL_VARIANTS (it exposes no ggml_backend_load_all).
LLAMA_VERSION := $(shell grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
  -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=OFF -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF \
  -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF \
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
RUNTIME_STAMP := $(VENV)/.installed-llama-portable

# --no-cache-dir: pip's wheel cache is keyed on the sdist, not on CMAKE_ARGS, so a machine that
# once built a native wheel would get it back; --force-reinstall replaces such a wheel.
$(RUNTIME_STAMP): | $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q --no-cache-dir --force-reinstall \
	  --no-deps '$(LLAMA_VERSION)'
	touch $@

$(LOCAL_STAMP): pyproject.toml $(RUNTIME_STAMP) | $(STAMP)
	$(BIN)/pip install -q -e '.[dev,local]'
	touch $@

# Exit 1 means a gate failed on the example agents: the demo still succeeded.
demo: $(LOCAL_STAMP)
	$(BIN)/toolgrade run examples/helpdesk/suite.yaml examples/helpdesk/runs \
	  --config examples/helpdesk/toolgrade.toml --out $(DEMO_OUT) || test $$? -eq 1

test: $(STAMP)
	$(BIN)/python -m pytest -m "not local_model"

test-local: $(LOCAL_STAMP)
	$(BIN)/python -m pytest -m local_model

# ruff (style, complexity) and the import contracts of pyproject.toml (layers, no cycles,
# litellm only in judging/); `make typecheck` is mypy strict on src/. `.ci/run` runs both.
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy src

# Benchmarks run in their own virtualenv (.venv-bench): toolgrade editable plus the pinned peers.
BENCH_VENV  := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed-bench

$(BENCH_STAMP): pyproject.toml benchmarks/requirements-peers.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q --upgrade pip
	$(BENCH_VENV)/bin/pip install -q -e . -r benchmarks/requirements-peers.txt
	touch $@

# One table: checks at 1k/10k/100k runs, peers at 1k/10k, judge economy, start-up and
# `run --jobs 1,2` at 100k (see benchmarks/README.md).
bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python benchmarks/run_all.py $(BENCH_ARGS)

bench-peers: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python benchmarks/run_all.py --sizes "" --peer-sizes 1000,10000 --jobs-sizes "" $(BENCH_ARGS)

# Re-measure and ship the local judge's records: every shipped set, log-probability mode,
# 5-fold cross-validation; argument_equivalence fits its P(pass) cut, the other three fit the
# combination of P(pass) with their deterministic signals (--fit); each also fits its abstention
# band to a cross-validated decided kappa of TARGET_KAPPA (lower 95% bound). The signals judge
# (no model) is then fitted on those three sets; where the model's record shows it adds under
# 0.05 ranking AUC over the signals alone, `run` judges by the signals by default. Each record
# replaces the shipped one, and docs/calibration.md's table is regenerated from them. The verdicts are
# cached in out/calibration/cache, so an interrupted re-fit resumes where it stopped (delimiters
# are derived from the content, so a cached verdict is the one a fresh call gives). Time: about
# 4-5 minutes per dimension on an idle 2-core machine (80-100 items); on a shared one, one item
# took 60-100 s at load 8-12 (5 December 2026).
TARGET_KAPPA ?= 0.8
calibrate: $(LOCAL_STAMP)
	for d in argument_equivalence alternate_route recovery_quality result_interpretation; do \
	  fit=--fit; [ $$d = argument_equivalence ] && fit=--fit-threshold; \
	  start=$$(date +%s); \
	  $(BIN)/toolgrade calibrate --dimension $$d --model local/qwen2.5-coder-1.5b \
	    $$fit --target-kappa $(TARGET_KAPPA) --cache-dir out/calibration/cache \
	    --out out/calibration/$$d.json || exit 1; \
	  echo "$$d: $$(( $$(date +%s) - start )) s"; \
	  cp out/calibration/$$d.json \
	    src/toolgrade/calibration_records/$${d}__local_qwen2.5-coder-1.5b.json || exit 1; done
	for d in alternate_route recovery_quality result_interpretation; do \
	  $(BIN)/toolgrade calibrate --dimension $$d --model signals --fit --no-cache \
	    --target-kappa $(TARGET_KAPPA) --out out/calibration/$${d}__signals.json || exit 1; \
	  cp out/calibration/$${d}__signals.json \
	    src/toolgrade/calibration_records/$${d}__signals.json || exit 1; done
	$(BIN)/python scripts/records_table.py

clean:
	rm -rf $(VENV) out .mypy_cache .ruff_cache
