# bitsite: `make run` serves the site, `make test` runs every test.
# Both create .venv and install the pinned requirements first.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed
BENCH := $(VENV)/.bench-installed
TOOLS := .venv-tools
HOST ?= 127.0.0.1
PORT ?= 8000
N ?= 2
ARGS ?=
# Test processes (pytest-xdist): each has its own test database, Redis database and
# servers (tests/settings.py, tests/conftest.py). JOBS=0 runs the suite in one process.
JOBS ?= 2
# xdist's default split (load), which hands each process its tests in the collection's
# order: the browser tests come last (tests/conftest.py), after every asyncio test, as
# Playwright's sync API leaves an event loop in the process. Work stealing (worksteal) was
# 4% faster (6:06-6:14 against 6:30, 7 December) but hands a process that has started its
# browser tests earlier tests of the other's, asyncio ones among them, which then fail
# ("Runner.run() cannot be called from a running event loop": CI's hooks-off run).
DIST = --dist load

# The embedded default for `make run`: debug off, plain HTTP on localhost,
# SQLite and the in-process channel layer. A secret key is made once and kept
# in .secret_key (git-ignored).
RUN_ENV = DJANGO_DEBUG=0 DJANGO_SECURE_SSL=0 \
	DJANGO_ALLOWED_HOSTS=$${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost} \
	DJANGO_SECRET_KEY=$${DJANGO_SECRET_KEY:-$$(cat .secret_key)}
# Tests run with debug off and a throwaway key; DATABASE_URL and REDIS_URL
# pass through (unset: SQLite and the in-process layer). Bytecode is cached even where
# the shell sets PYTHONDONTWRITEBYTECODE: every test process and every server it starts
# would otherwise compile the project again (pytest's rewritten test modules: 6 s a process).
TEST_ENV = PYTHONDONTWRITEBYTECODE= DJANGO_DEBUG=0 DJANGO_SECURE_SSL=0 DJANGO_SECRET_KEY=test-only-not-secret-bitsite \
	DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost,testserver DJANGO_STATIC_ROOT=$(CURDIR)/.test-static

.PHONY: run test test-fast lint bench bench-ci api-schema scale setup clean superuser requirements

run: $(RUNTIME) .secret_key
	$(RUN_ENV) $(BIN)/python manage.py migrate --noinput
	$(RUN_ENV) $(BIN)/python manage.py collectstatic --noinput -v 0
	@echo "bitsite: http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	$(RUN_ENV) exec $(BIN)/daphne -e bitsite:port=$(PORT):interface=$(HOST) bitsite.asgi:application

test: $(DEV)
	$(TEST_ENV) $(BIN)/python -m pytest -n $(JOBS) $(DIST) $(ARGS)

# Everything but the browser tests and those that need PostgreSQL and Redis.
test-fast: $(DEV)
	$(TEST_ENV) $(BIN)/python -m pytest -n $(JOBS) $(DIST) -m "not browser and not services" $(ARGS)

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Several daphne processes on ports PORT.. PORT+N-1, sharing PostgreSQL and Redis.
scale: $(RUNTIME) .secret_key
	$(RUN_ENV) N=$(N) PORT=$(PORT) HOST=$(HOST) BIN=$(BIN) scripts/scale.sh

bench: $(BENCH) .secret_key
	$(BIN)/python -m benchmarks.run $(ARGS)

bench-ci: $(BENCH) .secret_key
	$(BIN)/python -m benchmarks.run --tiny $(ARGS)

# The API's OpenAPI schema as checked in (tests/api/test_schema.py compares the served one).
api-schema: $(RUNTIME)
	$(TEST_ENV) $(BIN)/python manage.py api_schema > api/openapi.json

superuser: $(RUNTIME) .secret_key
	$(RUN_ENV) $(BIN)/python manage.py createsuperuser

setup: $(DEV)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The requirements are compiled (pinned, with hashes) from requirements*.in by
# `make requirements`; each .txt is complete: runtime < dev (tests) < bench.
$(RUNTIME): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.txt
	touch $@

$(DEV): requirements-dev.txt $(RUNTIME)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.txt
	touch $@

$(BENCH): requirements-bench.txt $(DEV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-bench.txt
	touch $@

# Compile requirements*.txt from requirements*.in (pip-tools in a venv of its own).
# Pins already in a .txt are kept; `make requirements ARGS=--upgrade` moves them.
PIP_COMPILE = $(TOOLS)/bin/pip-compile --quiet --generate-hashes --allow-unsafe \
	--strip-extras --no-emit-index-url --no-emit-find-links $(ARGS)
requirements:
	test -x $(TOOLS)/bin/pip-compile || ($(PYTHON) -m venv $(TOOLS) && $(TOOLS)/bin/pip install --quiet pip-tools==7.6.2)
	$(PIP_COMPILE) -o requirements.txt requirements.in
	$(PIP_COMPILE) -o requirements-dev.txt requirements-dev.in
	$(PIP_COMPILE) -o requirements-bench.txt requirements-bench.in

.secret_key:
	@$(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@

clean:
	rm -rf $(VENV) $(TOOLS) staticfiles .pytest_cache .ruff_cache test-db*.sqlite3*
