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
$(LOCAL_STAMP): pyproject.toml | $(STAMP)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" $(BIN)/pip install -q -e '.[dev,local]'
	touch $@

# Exit 1 means a gate failed on the example agents: the demo still succeeded.
demo: $(LOCAL_STAMP)
	$(BIN)/toolgrade run examples/helpdesk/suite.yaml examples/helpdesk/runs \
	  --config examples/helpdesk/toolgrade.toml --out $(DEMO_OUT) || test $$? -eq 1

test: $(STAMP)
	$(BIN)/python -m pytest -m "not local_model"

test-local: $(LOCAL_STAMP)
	$(BIN)/python -m pytest -m local_model

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
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

# The local judge on every shipped set, as the shipped records were measured (log-probability
# mode, fitted cut): about 15 minutes per dimension on two cores.
calibrate: $(LOCAL_STAMP)
	for d in argument_equivalence alternate_route recovery_quality result_interpretation; do \
	  $(BIN)/toolgrade calibrate --dimension $$d --model local/qwen2.5-coder-1.5b \
	    --fit-threshold --out out/calibration/$$d.json || exit 1; done

clean:
	rm -rf $(VENV) out .mypy_cache .ruff_cache
