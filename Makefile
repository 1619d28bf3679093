# Two entry points, as README.md says: `make reproduce` and `make test`.
# Everything is installed into .venv (Python) and target/ (Rust) from the package registries.

VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.westwood-built
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock $(wildcard kernel/*)
PY_SOURCES   := $(shell find python/westwood -name '*.py') pyproject.toml

# System packages: clang/llvm/bpftool/libbpf to build the eBPF program, libelf/zlib/pkg-config for
# the vendored libbpf, iperf3 and iproute2 for the Linux tests, tcpdump and tshark for the
# captures (`westwood measure --pcap`; the tests read every capture with both), Chromium for the
# test that lays the HTML report out in a browser, ns-3 (libns3-dev, cmake, g++) for the ns-3
# module in ns3/westwood. Installed when missing (as root); tshark's "should non-superusers
# capture" question is answered no beforehand.
APT_PACKAGES := clang llvm libbpf-dev bpftool iperf3 iproute2 libelf-dev zlib1g-dev pkg-config tcpdump tshark chromium libns3-dev cmake g++

.PHONY: deps linux build ns3 wheel reproduce test test-rust test-python test-ns3 lint bench clean

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing system packages:" $$missing; \
	    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing system packages:" $$missing "- run: sudo apt-get install" $$missing; exit 1; \
	  fi; \
	fi

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet 'maturin>=1.5,<2' numpy pandas matplotlib pyarrow 'dask[distributed]' pytest

$(STAMP): $(VENV)/bin/python $(RUST_SOURCES) $(PY_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(PY) -m maturin develop --release --quiet
	@# Bytecode now, as installing a wheel does: with PYTHONDONTWRITEBYTECODE set, Python would
	@# otherwise compile every module of the package on each start (~15 ms of `westwood run`).
	$(PY) -m compileall -q python/westwood >/dev/null
	touch $(STAMP)

# The eBPF loader (`westwood linux ...`) and the testbed (`westwood testbed|emu ...`): need
# clang and bpftool from `deps`.
linux: deps
	cargo build --release -p westwood-linux -p westwood-emulator

build: $(STAMP) linux

# The ns-3 module (ns3/westwood, docs/ns3.md) against the installed ns-3: libns3-westwood, its
# test runner and the fig. 9 example in target/ns3.
ns3: deps
	cmake -S ns3/westwood -B target/ns3 -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build target/ns3 -j 2

# A wheel of the whole product: the simulator and westwood-linux / westwood-emu (their eBPF
# programs built in), which `pip install` puts in the package's bin/. The two are built with
# libelf and zlib linked statically (feature static-libs; libbpf always is), so they need only
# glibc and the wheel is a manylinux one: maturin tags it from the extension module's glibc
# symbols, and test_install.py checks the two binaries need no more than that tag allows. Their
# own target directory keeps the everyday (dynamically linked) builds as they are. The binaries
# are staged in python/westwood/bin/ only while maturin packs them.
WHEEL_DIR ?= dist
wheel: linux $(VENV)/bin/python
	LIBBPF_SYS_LIBRARY_PATH=$$(pkg-config --variable=libdir libelf) cargo build --release \
	  --target-dir target/wheel -p westwood-linux -p westwood-emulator --features westwood-linux/static-libs
	rm -rf python/westwood/bin && mkdir -p python/westwood/bin
	cp target/wheel/release/westwood-linux target/wheel/release/westwood-emu python/westwood/bin/
	$(PY) -m maturin build --release --quiet -o $(WHEEL_DIR); \
	  status=$$?; rm -rf python/westwood/bin; exit $$status

reproduce: build
	$(VENV)/bin/westwood reproduce --quick --out results

# westwood-linux's kernel tests need root (CI is root); without it they print SKIPPED and pass.
test-rust: deps
	cargo test -p westwood-algorithms -p westwood-trace -p westwood-pcap -p westwood-simulator -p westwood-bpf-core -p westwood-linux -p westwood-emulator

test-python: build
	$(VENV)/bin/pytest -q python/tests

# Python style: ruff's lint and formatter (settings in pyproject.toml), pinned so that every
# machine judges alike.
RUFF_VERSION := 0.17.6
lint: $(VENV)/bin/python
	@$(VENV)/bin/ruff --version 2>/dev/null | grep -qx 'ruff $(RUFF_VERSION)' || \
	  $(PY) -m pip install --quiet 'ruff==$(RUFF_VERSION)'
	$(VENV)/bin/ruff check python
	$(VENV)/bin/ruff format --check python

# The ns-3 module's own test suite (the reference vectors through the ns-3 classes); the fig. 9
# comparison with the simulator is python/tests/test_ns3.py, in test-python.
test-ns3: ns3
	ctest --test-dir target/ns3 --output-on-failure

test: lint test-rust test-ns3 test-python

bench: build
	$(VENV)/bin/westwood bench

clean:
	rm -rf $(VENV) target results
