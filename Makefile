# Two commands for a new user: `make run` and `make test`. Everything else here serves them.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# 127.0.0.1: this machine only. A workshop whose participants connect over the room's network:
# make run HOST=0.0.0.0
HOST ?= 127.0.0.1
# Debian's Chromium drives the browser tests, the screenshots and the latency bench.
CHROMIUM := /usr/bin/chromium
# make screenshots QUERY='alpha=0.9&c=50' SHOTS=docs/screenshots SIZE=1024x768
QUERY ?=
SIZE ?=
# Pictures at another size go beside docs/pages.md's, in a folder named after the size.
SHOTS ?= docs/screenshots$(if $(SIZE),/$(SIZE))

# make workshop REPLICAS=2 PORT=8501 HOST=0.0.0.0: replicas behind nginx (default: one per core).
REPLICAS ?=

.PHONY: run test lint lock unit bench clean test-tools screenshots workshop workshop-tools

# The stamp files make a second `make run` start at once, yet reinstall when a pin changes.
# They install from the lock files, every package at its version and hash (make lock writes them).
$(VENV)/.runtime-installed: requirements.lock
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements.lock
	touch $@

$(VENV)/.dev-installed: $(VENV)/.runtime-installed requirements-dev.lock
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	touch $@

# make lock: requirements.lock and requirements-dev.lock from requirements*.txt, for Python 3.11 on
# Linux, every transitive package pinned with its hashes, by a pinned uv in a venv of its own:
#   uv pip compile --no-config requirements.txt --generate-hashes --python-version 3.11 \
#     --python-platform linux --custom-compile-command "make lock" -o requirements.lock
#   uv pip compile --no-config requirements-dev.txt -c requirements.lock --generate-hashes \
#     --python-version 3.11 --python-platform linux --custom-compile-command "make lock" -o requirements-dev.lock
# The dev lock is constrained by the runtime one, so make run and make test run the same app.
# Versions already locked are kept; make lock LOCK_FLAGS=--upgrade takes the newest allowed.
UV_VERSION := 0.13.9
LOCK_TOOLS := .lock-tools
LOCK_FLAGS ?=
UV_COMPILE = $(LOCK_TOOLS)/bin/uv pip compile --no-config --quiet $(LOCK_FLAGS) --generate-hashes \
	--python-version 3.11 --python-platform linux --custom-compile-command "make lock"

lock:
	test -x $(LOCK_TOOLS)/bin/pip || $(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/pip install --quiet uv==$(UV_VERSION)
	$(UV_COMPILE) requirements.txt -o requirements.lock
	$(UV_COMPILE) requirements-dev.txt -c requirements.lock -o requirements-dev.lock

run: $(VENV)/.runtime-installed
	$(PY) -m dashboard.serve --server.address $(HOST) --server.port $(PORT)

# Installs Debian's nginx when it is missing and we are root, as test-tools does chromium.
workshop-tools:
	@if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's nginx for make workshop"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nginx; \
	else \
		echo "make workshop needs nginx (as root: apt-get install nginx)"; exit 1; \
	fi

workshop: $(VENV)/.runtime-installed workshop-tools
	$(PY) scripts/workshop.py --host $(HOST) --port $(PORT) $(if $(REPLICAS),--replicas $(REPLICAS))

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# Installs what the browser and offline tests need from Debian when it is missing and we are
# root (CI, a fresh container): chromium, and iproute2 for a network namespace without internet.
# Otherwise says so, and those tests skip (or fail under CI=true).
test-tools:
	@missing=""; \
	[ -x $(CHROMIUM) ] || missing=" chromium"; \
	command -v ip >/dev/null || missing="$$missing iproute2"; \
	{ command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } || missing="$$missing nginx"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's$$missing for the browser, offline and workshop tests"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else \
		echo "note: missing Debian packages:$$missing (as root: apt-get install$$missing)."; \
		echo "      Without them the browser, offline or workshop tests skip."; \
	fi

# Two processes, a test file each at a time (pytest-xdist): the browser tests spend half their
# time waiting on the server and the browser. make test WORKERS=1 runs them in one.
WORKERS ?= 2

test: lint test-tools
	$(PY) -m pytest $(if $(filter-out 1,$(WORKERS)),-n $(WORKERS) --dist loadfile)

screenshots: $(VENV)/.dev-installed test-tools
	$(PY) scripts/screenshots.py --out $(SHOTS) $(if $(QUERY),--query '$(QUERY)') $(if $(SIZE),--size $(SIZE))

bench: $(VENV)/.dev-installed
	for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) $(LOCK_TOOLS) .pytest_cache .ruff_cache .hypothesis
