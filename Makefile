# TriggerKit: `make run` and `make test` work on a fresh Debian machine with only the Swift
# toolchain; `deps` installs the system packages the build needs when they are missing.
SWIFT      ?= swift
SYS_PKGS   := libgeos-dev pkg-config libsqlite3-dev
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN        := .build/release/triggerkit

.PHONY: deps build run test crossings-check tutorial-check tools-check man completions bench crash-test durability-test fuzz serve-fuzz serve-load serve-vs-redis checks docs clean

deps:
	@missing=""; for p in $(SYS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c release --product triggerkit

# The main job on the bundled demo: a commuter's day of fixes through home, office, gym and
# park regions, with calendar reminders and interval triggers firing as stream time passes.
run: build
	$(BIN) check --requests Fixtures/demo/requests.ndjson --now 2026-11-23T11:00:00Z
	$(BIN) run --requests Fixtures/demo/requests.ndjson --time-zone America/New_York < Fixtures/demo/fixes.ndjson
	@echo "# fence rules: dwell by the clock, a time window, crossings between sparse fixes, accuracy, expiry"
	$(BIN) run --requests Fixtures/demo/fences.ndjson < Fixtures/demo/fence-fixes.ndjson

test: deps
	$(SWIFT) test
	$(MAKE) crossings-check
	$(MAKE) tutorial-check
	$(MAKE) tools-check

# Benchmarks/ and tools/fuzz are packages of their own that use the library's API: compiled
# (debug, nothing run) so an API change cannot break them silently, as it twice did.
tools-check: deps
	$(SWIFT) build --package-path Benchmarks
	$(SWIFT) build --package-path tools/fuzz

# The DocC tutorial's code, built as a reader's package against this checkout and run: its
# output must be the one the tutorial shows (tools/tutorial-check.sh).
tutorial-check: deps
	sh tools/tutorial-check.sh

# Crossings between sparse fixes against a geographiclib reference (tools/crossings-check.py,
# 400 random and grazing paths through circles and polygons, with the debug binary that
# `swift test` built). Installs geographiclib and shapely from PyPI when missing (or
# Debian's packages when there is no pip).
PYTHON ?= python3
crossings-check:
	@if ! command -v $(PYTHON) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-geographiclib python3-shapely; \
	fi
	@$(PYTHON) -c 'import geographiclib, shapely' 2>/dev/null || $(PYTHON) -m pip install -q geographiclib shapely \
	  || $(PYTHON) -m pip install -q --break-system-packages geographiclib shapely
	$(SWIFT) build --product triggerkit
	$(PYTHON) tools/crossings-check.py --bin .build/debug/triggerkit --cases 400 --seed 1

# Every benchmark table (calendar, region index, stream pipeline vs parse-only and shapely,
# peak memory); the shapely columns are skipped with a message when shapely is not installed.
# Workload files are generated once into $(BENCH_DATA). The differential run is separate:
#   cd Benchmarks && swift run -c release CalendarDifferential 1000000 1
# Man pages (one per command) and shell completions, generated from the command-line
# definitions by swift-argument-parser into .build/man and .build/completions:
#   man -l .build/man/triggerkit.run.1
#   source .build/completions/triggerkit.bash
man: build
	$(SWIFT) build --product generate-manual
	mkdir -p .build/man
	.build/debug/generate-manual $(BIN) --multi-page --output-directory .build/man
	@ls .build/man

completions: build
	mkdir -p .build/completions
	for shell in bash zsh fish; do $(BIN) --generate-completion-script $$shell > .build/completions/triggerkit.$$shell; done
	@ls .build/completions

BENCH_DATA ?= /tmp/triggerkit-bench
bench: build
	cd Benchmarks && $(SWIFT) build -c release
	python3 tools/bench.py --data $(BENCH_DATA)

# The full kill -9 test of `run --state` (1,000,000 lines, 20 kills; needs python3).
crash-test: build
	python3 tools/crash-test.py --lines 1000000 --kills 20 --bin $(BIN)
	python3 tools/crash-test.py --lines 1000000 --kills 20 --rules --bin $(BIN)

# Proves run --state never records an unwritten event and never duplicates one: stdout on
# /dev/full, a pipe closed midway (SIGPIPE default and ignored), two concurrent writers.
durability-test: build
	python3 tools/durability-test.py --bin $(BIN) --lines 200000

# Random and extreme input at the library's entry points for FUZZ_SECONDS, then geometry
# streams (--geo) for as long (watchdog, traps caught in worker processes); exits non-zero
# on any trap, hang or untyped error.
FUZZ_SECONDS ?= 60
# tools/fuzz's incremental build has twice kept a stale list of this package's sources (a file
# added: "cannot find ... in scope"; a file deleted: "missing inputs"): a failed build is
# retried from scratch.
fuzz: deps
	cd tools/fuzz && ($(SWIFT) build -c release || (rm -rf .build && $(SWIFT) build -c release))
	tools/fuzz/.build/release/triggerkit-fuzz --seconds $(FUZZ_SECONDS)
	tools/fuzz/.build/release/triggerkit-fuzz --geo --seconds $(FUZZ_SECONDS)

# schemathesis (PyPI) against a live `triggerkit serve` on 127.0.0.1, driven by
# docs/openapi.json: fails on any 5xx or any answer the document does not describe (status,
# content type, headers, body schema). SSE is left out (an endless stream).
serve-fuzz: build
	python3 -m pip install -q schemathesis
	python3 tools/serve-fuzz.py --bin $(BIN)

# The HTTP service under load on loopback (100,000 requests, 10,000 devices).
serve-load: build
	python3 tools/serve-load.py --bin $(BIN)

# The HTTP service against what a user would run instead: a Redis server's geo index
# (GEOSEARCH, Tile38-style nearby fences) with the enter / exit state in the client; same
# workload, one run (installs redis-server from Debian and redis + hiredis from PyPI).
serve-vs-redis: build
	@command -v redis-server >/dev/null 2>&1 || ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server)
	@python3 -c 'import redis, hiredis' 2>/dev/null || python3 -m pip install -q redis hiredis || python3 -m pip install -q --break-system-packages redis hiredis
	python3 tools/serve-vs-redis.py --bin $(BIN)

# The shared contract checks (calendar corpus, geofence samples) when ../shared is present.
checks: build
	python3 ../shared/tools/corpus-check.py $(BIN) ../shared/calendar-corpus/public.jsonl
	../shared/tools/geofence-check

# The library's DocC documentation (Sources/TriggerKit/TriggerKit.docc: overview, articles,
# the reminder-service tutorial) built by swift-docc-plugin into $(DOCS_OUT), a static site;
# any warning (a broken symbol link, say) fails the build. DOCS_FLAGS goes to
# `swift package`, e.g. DOCS_FLAGS="--scratch-path /tmp/docs-build" to build apart from .build.
DOCS_OUT   ?= .build/docs
DOCS_FLAGS ?=
docs: deps
	$(SWIFT) package $(DOCS_FLAGS) --allow-writing-to-directory $(DOCS_OUT) \
	  generate-documentation --target TriggerKit --warnings-as-errors --output-path $(DOCS_OUT)

clean:
	rm -rf .build Benchmarks/.build tools/fuzz/.build
