# The README's two commands. Both create .venv on first use and install the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/commit-digest demo

test: $(STAMP)
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-rclone.sh
	bash scripts/ensure-llama-server.sh
	bash scripts/ensure-wheelhouse.sh
	$(BIN)/python -m pytest -n 2

lint: $(STAMP)
	$(BIN)/ruff check src plugins tests benchmarks

clean:
	rm -rf site .pytest_cache
