# Two entry points, as README.md says: `make reproduce` and `make test`.
# Everything is installed into .venv (Python) and target/ (Rust) from the package registries.

VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.westwood-built
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock
PY_SOURCES   := $(shell find python/westwood -name '*.py') pyproject.toml

.PHONY: build reproduce test test-rust test-python bench clean

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet 'maturin>=1.5,<2' numpy pandas matplotlib pytest

$(STAMP): $(VENV)/bin/python $(RUST_SOURCES) $(PY_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(PY) -m maturin develop --release --quiet
	touch $(STAMP)

build: $(STAMP)

reproduce: build
	$(VENV)/bin/westwood reproduce --quick --out results

test-rust:
	cargo test -p westwood-algorithms -p westwood-simulator

test-python: build
	$(VENV)/bin/pytest -q python/tests

test: test-rust test-python

bench: build
	$(VENV)/bin/westwood bench

clean:
	rm -rf $(VENV) target results
