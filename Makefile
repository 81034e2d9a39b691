# librunway — build, test and demo.
#   make demo   replay a sample run through the Python package (installs what it needs)
#   make test   every test: Swift, C header/ABI, C host example, Python, Rust, instruction counts,
#               and the short hardening checks (fuzzing, sanitizers, stress, leaks; RELIABILITY.md)
#   make wheel  dist/librunway-*-manylinux_*.whl: the Python package with librunway.so inside
SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
BUILD := build
LIB := $(BUILD)/librunway.so
SOURCES := $(shell find Sources include -type f) Package.swift

.PHONY: all deps lib wheel test test-swift test-c test-python test-rust test-example demo clean

all: lib

# Installs what a fresh Debian machine lacks: libcjson-dev, libsqlite3-dev, libxml2-dev, pkg-config
# (apt-get, as root); pytest, gpxpy, garmin-fit-sdk (pip).
deps:
	@./scripts/install-deps.sh

lib: $(LIB)

$(LIB): $(SOURCES)
	@./scripts/install-deps.sh --quiet
	$(SWIFT) build -c release -Xswiftc -static-stdlib
	@mkdir -p $(BUILD)
	cp .build/release/librunway.so $(LIB)

# The Python wheel (scripts/build-wheel.sh): platform-tagged, librunway.so inside, its non-glibc
# dependencies vendored by auditwheel; `pip install dist/librunway-*.whl` needs nothing else.
wheel: lib
	@./scripts/install-deps.sh
	./scripts/build-wheel.sh dist

test: deps lib test-swift test-c test-example test-python test-rust test-callgrind test-fuzz test-sanitize test-stress test-leaks
	@echo "suites: 10 passed, 0 failed"

test-swift:
	$(SWIFT) test

test-c: lib
	./Tests/c/run.sh

test-example: lib
	$(MAKE) -C examples/c test

test-python: lib
	RUNWAY_LIBRARY=$(CURDIR)/$(LIB) $(PYTHON) -m pytest -q bindings/python/tests Tests/python

test-rust: lib
	cd bindings/rust && RUNWAY_LIB_DIR=$(CURDIR)/$(BUILD) LD_LIBRARY_PATH=$(CURDIR)/$(BUILD) cargo test --offline --no-fail-fast

# Benchmarks (not part of `make test`): C harnesses built against the library; prints one table
# and writes it to benchmarks/RESULTS.md (about 3 minutes; benchmarks/README.md has the method).
# Fuzzing (Tests/fuzz/run.sh; RELIABILITY.md has the figures): libFuzzer + AddressSanitizer over
# every input surface. `make test` runs each harness for 30 s; `make fuzz` for FUZZ_SECONDS each
# (default 600), or FUZZ_RUNS executions each when given. Corpora grow in build/fuzz/corpus.
# Concurrency stress (Tests/stress/run.sh; RELIABILITY.md): 8 pushers and 64 subscriber slots on one
# session for 10 s plus negative controls; `make stress` runs the 60 s version. test-leaks: the
# stress and the C host example under valgrind memcheck, 0 bytes definitely/indirectly lost.
.PHONY: test-stress test-leaks stress
test-stress: lib
	./Tests/stress/run.sh
test-leaks: lib
	./Tests/stress/run.sh --valgrind
stress: lib
	./Tests/stress/run.sh --long

# The C hosts (abi_run, runway_host, the stress test) against librunway built with AddressSanitizer
# and with ThreadSanitizer (Tests/sanitize/run.sh; no suppressions).
.PHONY: test-sanitize
test-sanitize: deps
	./Tests/sanitize/run.sh address
	./Tests/sanitize/run.sh thread

.PHONY: fuzz test-fuzz
FUZZ_SECONDS ?= 600
test-fuzz: deps
	./Tests/fuzz/run.sh --seconds 30 --parallel 2

fuzz: deps
	./Tests/fuzz/run.sh $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS)) --parallel 2

.PHONY: bench test-callgrind
BENCH := $(BUILD)/bench
BENCH_PROGS := $(addprefix $(BENCH)/,bench_ingest bench_fanout bench_mem bench_store bench_count)

$(BENCH)/%: benchmarks/%.c benchmarks/bench_common.h include/runway.h $(LIB)
	@mkdir -p $(BENCH)
	gcc -O2 -g -Wall -Wextra -Iinclude -o $@ $< -L$(BUILD) -lrunway -Wl,-rpath,$(CURDIR)/$(BUILD) -lcjson -lsqlite3 -lm -lpthread

bench: deps lib $(BENCH_PROGS)
	RUNWAY_LIBRARY=$(CURDIR)/$(LIB) BENCH_BIN=$(CURDIR)/$(BENCH) $(PYTHON) benchmarks/run.py

# Instructions per fix (callgrind) against benchmarks/BASELINE.md: fails above +15%, skips without valgrind.
test-callgrind: lib $(BENCH)/bench_count
	BENCH_BIN=$(CURDIR)/$(BENCH) $(PYTHON) benchmarks/callgrind.py check

# Replays the sample run (36 s), journals it to build/demo/runway.db and exports it as GPX and
# FIT to build/demo; `librunway replay` prints the flight id and the paths at the end.
demo: deps lib
	RUNWAY_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=$(CURDIR)/bindings/python $(PYTHON) -m librunway replay examples/data/city_run.gpx --speed 45 \
		--store $(BUILD)/demo/runway.db --export gpx,fit --out-dir $(BUILD)/demo

clean:
	rm -rf .build .build-fuzz .build-address .build-thread $(BUILD) dist bindings/python/build
	$(MAKE) -C examples/c clean
