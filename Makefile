# The two set-up commands of the README. Each creates or updates .venv and installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install clean chromium

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/tilecam verify ../shared/data/gcg/liwords/vs_josh.gcg

# Debian's chromium for the overlay's browser test (driven by playwright; no browser download).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

chromium: $(CHROMIUM)

test: install $(CHROMIUM)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
