# The two set-up commands: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_WORKERS ?= 2

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Re-install whenever pyproject.toml changes.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed-run

demo: $(VENV)/.installed-run
	$(BIN)/companion demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check companion tests benchmarks firmware
	$(BIN)/ruff format --check companion tests benchmarks firmware
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) -q

bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
