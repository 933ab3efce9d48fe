# The two set-up commands of the README. Each creates or updates .venv and installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install clean chromium train fonts postgresql real-letters

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The text recogniser's model (vision/recognizer.py, models/README.md) ships in the rapidocr_onnxruntime
# wheel, installed without its dependencies: it requires opencv-python (the GUI build), which must not sit
# beside opencv-python-headless (two packages, one cv2). Only its ONNX file is used; nothing is downloaded
# at run time. The rapidocr 3.10 wheel, likewise without its dependencies, brings PP-OCRv6 small, which
# [rack_read] recogniser = "v6" or "both" reads racks with (docs/racks.md); v4 alone without it.
$(STAMP): pyproject.toml Makefile | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps rapidocr_onnxruntime==1.4.4 rapidocr==3.10.0
	touch $(STAMP)

# Free fonts for the synthetic renderer, from Debian (no font downloads at run time).
FONT_PKGS := fonts-dejavu-core fonts-liberation fonts-freefont-ttf fonts-texgyre fonts-urw-base35 fonts-open-sans fonts-roboto-unhinted fonts-lato fonts-cantarell fonts-comfortaa fonts-quicksand fonts-crosextra-carlito fonts-crosextra-caladea fonts-linuxlibertine fonts-league-spartan fonts-oxygen fonts-cabin fonts-hack fonts-inter
fonts:
	@missing=$$(for p in $(FONT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "warning: fonts missing ($$missing); run: sudo apt-get install $$missing"; fi; \
	fi

install: $(STAMP) fonts

# The station (`tilecam demo`: tilecam run's record, serve and preview) on the demo's rendered video of
# a real game, cached in ~/.cache/tilecam (made on the first run); it plays at table 1, a turn every
# 12 s with the clocks running, one game after another into demo.sqlite3 beside the video, and prints
# /overlay/table/1 and the operator token. `make run PORT=8001` when 8000 is taken.
PORT ?= 8000
run: install
	$(BIN)/tilecam demo --port $(PORT)

# Debian's chromium for the overlay's browser test (driven by playwright; no browser download).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

# poppler's pdftotext and pdftoppm read back the recount's print to PDF (tests/api/static/test_recount_print_browser.py).
PDFTOTEXT := /usr/bin/pdftotext
$(PDFTOTEXT):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y poppler-utils

chromium: $(CHROMIUM) $(PDFTOTEXT)

# Debian's PostgreSQL for the central store's tests: tests/pgserver.py runs a throwaway server of its own
# from these binaries (initdb, pg_ctl), on a free port; the tests fail without them.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
	  else echo "error: PostgreSQL is missing; run: sudo apt-get install postgresql" >&2; exit 1; fi; \
	fi

test: install chromium postgresql
	$(BIN)/python -m pytest

# Every real frame of every language against the committed baseline of squares read right (issue 44):
# run before every vision commit; exits 1 naming each square lost (docs/vision.md).
real-letters: install
	nice $(BIN)/python tests/bench/bench_real_letters.py

# Retrain the tile classifier (CPU, about 50 minutes on 2 cores: 15 rendering, 35 training): models/tiles.onnx + tiles.card.json.
train: install
	$(BIN)/pip install --quiet -e '.[train]'
	$(BIN)/python -m tilecam.models.train --out models/tiles.onnx

clean:
	rm -rf $(VENV)
