# librunway — build, test and demo.
#   make demo   replay a sample run through the Python package (installs what it needs)
#   make test   every test: Swift, C header/ABI, the installed layout, C host example, Python, Rust,
#               instruction counts, and the short hardening checks (fuzzing, sanitizers, stress,
#               leaks; RELIABILITY.md)
#   make install PREFIX=...   the header, library, runway.pc and CMake package (docs/install.md)
#   make wheel  dist/librunway-*-manylinux_*.whl: the Python package with librunway.so inside
SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
BUILD := build
LIB := $(BUILD)/librunway.so
SOURCES := $(shell find Sources include -type f) Package.swift scripts/librunway.map
# The version, from include/runway.h: the library file is librunway.so.MAJOR.MINOR, its SONAME
# librunway.so.MAJOR.
version_part = $(shell sed -n 's/^\#define RUNWAY_VERSION_$(1)  *\([0-9][0-9]*\).*/\1/p' include/runway.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(call version_part,PATCH)
SONAME := librunway.so.$(VERSION_MAJOR)
# The release library is linked by the toolchain's lld (gold, the default, leaves the Swift
# symbols that the version script makes local in the dynamic symbol table), exporting only the
# version script's runway_* symbols, with its SONAME and a build id (the debug file's name).
LLD ?= $(firstword $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))ld.lld) $(shell command -v ld.lld))
RELEASE_FLAGS := -c release --toolset $(CURDIR)/$(BUILD)/toolset.json -Xswiftc -static-stdlib
LIB_LINK_FLAGS := -Xlinker --version-script=$(CURDIR)/scripts/librunway.map -Xlinker -soname=$(SONAME) \
	-Xlinker --build-id=sha1

.PHONY: all deps lib install wheel test test-swift test-c test-install test-python test-rust test-example demo clean

all: lib

# Installs what a fresh Debian machine lacks: libcjson-dev, libsqlite3-dev, libxml2-dev, pkg-config,
# cmake (apt-get, as root); pytest, gpxpy, garmin-fit-sdk (pip).
deps:
	@./scripts/install-deps.sh

lib: $(LIB)

# build/ also gets librunway.so.MAJOR (what programs linked with -lrunway ask for) and
# build/pkgconfig/runway-uninstalled.pc (pkg-config prefers it to an installed runway.pc when
# PKG_CONFIG_PATH holds build/pkgconfig: examples/c builds that way).
$(LIB): $(SOURCES)
	@./scripts/install-deps.sh --quiet
	@[ -x "$(LLD)" ] || { echo "ld.lld not found beside $(SWIFT) (set LLD=/path/to/ld.lld)" >&2; exit 1; }
	@mkdir -p $(BUILD)/pkgconfig
	printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$(LLD)" >$(BUILD)/toolset.json
	$(SWIFT) build $(RELEASE_FLAGS) --product runway $(LIB_LINK_FLAGS)
	$(SWIFT) build $(RELEASE_FLAGS) --product runway-sim
	cp .build/release/librunway.so $(LIB).new && mv -f $(LIB).new $(LIB)
	ln -sf librunway.so $(BUILD)/$(SONAME)
	./scripts/install.sh --uninstalled-pc >$(BUILD)/pkgconfig/runway-uninstalled.pc

# make install PREFIX=/opt/runway [DESTDIR=stage] [RPATH=auto|yes|no]: the header, the stripped
# librunway.so.MAJOR.MINOR and its symlinks, its debug info, runway.pc and the CMake package
# (scripts/install.sh says what goes where; docs/install.md how to use them).
PREFIX ?= /usr/local
install: lib
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" RPATH="$(RPATH)" ./scripts/install.sh

# The Python wheel (scripts/build-wheel.sh): platform-tagged, librunway.so inside, its non-glibc
# dependencies vendored by auditwheel; `pip install dist/librunway-*.whl` needs nothing else.
wheel: lib
	@./scripts/install-deps.sh
	./scripts/build-wheel.sh dist

# The suites run one after another. One overlap: while the release library's host-side suites
# run (test-hosts: C, install, example, Python, Rust, instruction counts; mostly one core), the
# sanitizer libraries build beside them (sanitizer-libs: mostly one whole-module compilation at a
# time). No two suites run at once (the last four one at a time whatever make's -j).
test: deps lib test-swift
	$(MAKE) --no-print-directory -j2 test-hosts sanitizer-libs
	$(MAKE) --no-print-directory -j1 test-fuzz test-sanitize test-stress test-leaks
	@echo "suites: 11 passed, 0 failed"

.PHONY: test-hosts sanitizer-libs
test-hosts: lib
	for t in test-c test-install test-example test-python test-rust test-callgrind; do \
	  $(MAKE) --no-print-directory $$t || exit 1; done

# The AddressSanitizer build (fuzzing and the C hosts under ASan), then the ThreadSanitizer one.
sanitizer-libs:
	./Tests/sanitize/build-lib.sh address >/dev/null
	./Tests/sanitize/build-lib.sh thread >/dev/null

# The engine and the simulator optimised, as the release is (Package.swift): the suite in about
# 90 s instead of 300 s, its build as long. Built in .build-tests, so that it and a plain
# `swift test` (unoptimised, in .build) do not rebuild each other.
test-swift:
	RUNWAY_OPTIMISED_TESTS=1 $(SWIFT) test --build-path .build-tests

test-c: lib
	./Tests/c/run.sh

# Installs to a temporary prefix and builds the README example (pkg-config), runway_host
# (pkg-config) and a CMake consumer against it (Tests/install/run.sh).
test-install: lib
	./Tests/install/run.sh

test-example: lib
	$(MAKE) -C examples/c test

test-python: lib
	RUNWAY_LIBRARY=$(CURDIR)/$(LIB) $(PYTHON) -m pytest -q bindings/python/tests Tests/python

test-rust: lib
	cd bindings/rust && RUNWAY_LIBRARY=$(CURDIR)/$(LIB) cargo test --offline --no-fail-fast

# Benchmarks (not part of `make test`): C harnesses built against the library; prints one table
# and writes it to benchmarks/RESULTS.md (about 3 minutes; benchmarks/README.md has the method).
# Fuzzing (Tests/fuzz/run.sh; RELIABILITY.md has the figures): libFuzzer + AddressSanitizer over
# every input surface. `make test` replays each harness's regressions and runs it for 15 s;
# `make fuzz` for FUZZ_SECONDS each (default 600), or FUZZ_RUNS executions each when given.
# Corpora grow in build/fuzz/corpus.
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
	./Tests/fuzz/run.sh --seconds 15 --parallel 2

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
	rm -rf .build .build-tests .build-address .build-thread .build-fuzz $(BUILD) dist bindings/python/build
	$(MAKE) -C examples/c clean
