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
# Pictures at another size go beside the README's, in a folder named after the size.
SHOTS ?= docs/screenshots$(if $(SIZE),/$(SIZE))

# make workshop REPLICAS=2 PORT=8501 HOST=0.0.0.0: replicas behind nginx (default: one per core).
REPLICAS ?=

.PHONY: run test lint unit bench clean test-tools screenshots workshop workshop-tools

# The stamp files make a second `make run` start at once, yet reinstall when a pin changes.
$(VENV)/.runtime-installed: requirements.txt
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.runtime-installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

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
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's$$missing for the browser and offline tests"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else \
		echo "note: missing Debian packages:$$missing (as root: apt-get install$$missing)."; \
		echo "      Without them the browser tests (tests/browser) or the offline tests (tests/offline) skip."; \
	fi

test: lint test-tools
	$(PY) -m pytest

screenshots: $(VENV)/.dev-installed test-tools
	$(PY) scripts/screenshots.py --out $(SHOTS) $(if $(QUERY),--query '$(QUERY)') $(if $(SIZE),--size $(SIZE))

bench: $(VENV)/.dev-installed
	for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
