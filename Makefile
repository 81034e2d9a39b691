# librunway — build, test and demo.
#   make demo   replay a sample run through the Python package (installs what it needs)
#   make test   every test: Swift, C header/ABI, C host example, Python, Rust
SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
BUILD := build
LIB := $(BUILD)/librunway.so
SOURCES := $(shell find Sources include -type f) Package.swift

.PHONY: all deps lib test test-swift test-c test-python test-rust test-example demo clean

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

test: deps lib test-swift test-c test-example test-python test-rust
	@echo "all test suites passed"

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

# Replays the sample run (36 s), journals it to build/demo/runway.db and exports it as GPX and
# FIT to build/demo; replay.py prints the flight id and the paths at the end.
demo: deps lib
	RUNWAY_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=$(CURDIR)/bindings/python $(PYTHON) examples/python/replay.py examples/data/city_run.gpx --speed 45 \
		--store $(BUILD)/demo/runway.db --export gpx,fit --out-dir $(BUILD)/demo

clean:
	rm -rf .build $(BUILD)
	$(MAKE) -C examples/c clean
