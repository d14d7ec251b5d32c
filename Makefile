# The two commands the README starts with: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_DB := .justicar/demo.db

.PHONY: run demo test format bench clean browser
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

## run: set up, load the demo scene into the embedded SQLite default and serve it (Ctrl-C stops);
## what was played is kept for the next run (the script's commands are not repeated)
run: $(VENV)/.installed
	@mkdir -p .justicar
	$(BIN)/justicar serve --db $(DEMO_DB) --load examples/demo.jsonl

## demo: the same, starting the demo afresh (what was played on it is deleted)
demo: $(VENV)/.installed
	@mkdir -p .justicar
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(BIN)/justicar serve --db $(DEMO_DB) --load examples/demo.jsonl

## test: set up with the test extras (and Debian's Chromium, PostgreSQL and nginx for the live tests), lint, type-check, run the whole suite
## (the JavaScript is linted and format-checked by Biome, from the test extras too)
## (spread over one pytest process per CPU: each has its own servers, ports, temporary files and Chromium)
test: $(VENV)/.installed browser postgres proxy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/biome ci --error-on-warnings clients/web/js
	$(BIN)/mypy domain projections server clients benchmarks
	$(BIN)/python -m pytest -n auto --dist worksteal

## format: the Python by ruff, the JavaScript by Biome (what `make test` checks)
format: $(VENV)/.installed
	$(BIN)/ruff format .
	$(BIN)/biome format --write clients/web/js

## bench: the benchmarks behind docs/performance.md (each figure the median and range over runs; about 10 minutes)
bench: $(VENV)/.installed
	$(BIN)/python -m benchmarks.append --runs 5
	$(BIN)/python -m benchmarks.replay --runs 3
	$(BIN)/python -m benchmarks.replay --runs 3 --ruleset bns-fight --no-explain
	$(BIN)/python -m benchmarks.replay --runs 3 --ruleset kony --no-explain
	$(BIN)/python -m benchmarks.rulesets --runs 5
	$(BIN)/python -m benchmarks.live all --runs 3
	$(BIN)/python -m benchmarks.join --runs 3
	$(BIN)/python -m benchmarks.played --runs 7 --without
	$(BIN)/python -m benchmarks.audit --runs 3
	$(BIN)/python -m benchmarks.pages --runs 3
	$(BIN)/python -m benchmarks.stall --runs 3
	$(BIN)/python -m benchmarks.stall --runs 3 --outage --phases baseline --seconds 6
	$(BIN)/python -m benchmarks.night --runs 5
	$(BIN)/python -m benchmarks.pg_append --runs 5
	$(BIN)/python -m benchmarks.processes --runs 3
	$(BIN)/python -m benchmarks.capacity --runs 3

## browser: Debian's Chromium, which the browser tests drive with Playwright (installed when missing)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's Chromium for the browser tests…"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

## postgres: Debian's PostgreSQL, for the store tests to start clusters of their own (the outage test stops and
## starts one; installed when there is no initdb; a server on 127.0.0.1:5432 or JUSTICAR_TEST_POSTGRES serves the
## rest: tests/postgres.py)
.PHONY: postgres
postgres: | $(BIN)/python
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "Installing Debian's PostgreSQL for the store tests…"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; }

## proxy: Debian's nginx, which tests/live/test_proxy.py runs (unprivileged, in a temporary directory, never as a
## service) in front of `justicar serve` processes with the configuration docs/deploy.md prints (installed when missing;
## under systemd Debian starts its own service too: README.md)
.PHONY: proxy
proxy:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
		echo "Installing Debian's nginx for the proxy test…"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null; }

clean:
	rm -rf $(VENV) .justicar .pytest_cache .mypy_cache .ruff_cache .hypothesis tests/artifacts
