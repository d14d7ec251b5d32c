# The two commands the README starts with: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_DB := .justicar/demo.db

.PHONY: run test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

## run: set up, load the demo scene into the embedded SQLite default and serve it (Ctrl-C stops)
run: $(VENV)/.installed
	@mkdir -p .justicar
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(BIN)/justicar serve --db $(DEMO_DB) --load examples/demo.jsonl

## test: set up with the test extras, lint, type-check, run the whole suite
test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy domain projections server clients benchmarks
	$(BIN)/python -m pytest

## bench: the benchmarks behind docs/performance.md
bench: $(VENV)/.installed
	$(BIN)/python -m benchmarks.append
	$(BIN)/python -m benchmarks.replay
	$(BIN)/python -m benchmarks.live all
	$(BIN)/python -m benchmarks.audit

clean:
	rm -rf $(VENV) .justicar .pytest_cache .mypy_cache .ruff_cache .hypothesis
