# Two commands for a new user: `make run` and `make test`. Everything else here serves them.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# Debian's Chromium drives the browser tests, the screenshots and the latency bench.
CHROMIUM := /usr/bin/chromium
# make screenshots QUERY='alpha=0.9&c=50' SHOTS=docs/screenshots SIZE=1024x768
QUERY ?=
SIZE ?=
# Pictures at another size go beside the README's, in a folder named after the size.
SHOTS ?= docs/screenshots$(if $(SIZE),/$(SIZE))

.PHONY: run test lint unit bench clean chromium screenshots

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
	$(PY) -m streamlit run app.py --server.port $(PORT)

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# Installs Debian's chromium when it is missing and we are root (CI, a fresh container);
# otherwise says so, and the browser tests skip (or fail under CI=true).
chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's chromium for the browser tests"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else \
		echo "note: $(CHROMIUM) is missing; install the Debian package chromium (as root: apt-get install chromium)."; \
		echo "      Without it the browser tests in tests/browser skip."; \
	fi

test: lint chromium
	$(PY) -m pytest

screenshots: $(VENV)/.dev-installed chromium
	$(PY) scripts/screenshots.py --out $(SHOTS) $(if $(QUERY),--query '$(QUERY)') $(if $(SIZE),--size $(SIZE))

bench: $(VENV)/.dev-installed
	for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
