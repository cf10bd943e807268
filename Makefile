# The two commands of the README:
#   make serve   install what cdevd needs and run it with sensible defaults
#   make test    run the whole test suite (what CI runs, through .ci/run)

GO ?= go
NPM ?= npm
ARGS ?= --workspace .

.PHONY: serve demo test install node-modules build bench bench-table fuzz soak

# node_modules holds the pinned agent CLIs the tests run for real; a CLI of
# your own on PATH (logged in) takes precedence when serving.
# chromium drives the console's browser tests; Debian's package, installed
# here (as root) when missing, never downloaded by a test. git is the
# user's own, which the git/* methods run (and their tests, against local
# repositories); installed the same way where it is missing.
install: node-modules
	$(GO) mod download
	@if ! command -v chromium >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi
	@if ! command -v git >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git; fi

# npm ci deletes node_modules and installs it again: under a running
# `make serve`, whose CLIs live there, it would pull them away. So it runs
# only when node_modules was not installed from this package-lock.json (a
# fresh clone, a changed lock, an install that did not finish): the stamp,
# a copy of the lock, is written after npm ci succeeds and deleted with
# node_modules by the next one.
NPM_STAMP := node_modules/.cdevd-installed-package-lock.json
node-modules:
	@if cmp -s package-lock.json $(NPM_STAMP); then \
	  echo "node_modules is installed from package-lock.json: npm ci not needed"; \
	else \
	  echo "$(NPM) ci --no-audit --no-fund"; \
	  $(NPM) ci --no-audit --no-fund && cp package-lock.json $(NPM_STAMP); \
	fi

build:
	$(GO) build -o bin/cdevd ./cmd/cdevd

serve: install build
	PATH="$$PATH:$(CURDIR)/node_modules/.bin" ./bin/cdevd serve $(ARGS)

# The pinned CLIs against the bundled fake models, in a throwaway home
# removed on exit: no account, nothing of ~/.claude, ~/.codex, ~/.gemini
# touched. DEMO_ARGS adds serve flags (--workspace PATH, --addr HOST:PORT).
demo: install build
	CLAUDE_BIN="$(CURDIR)/node_modules/.bin/claude" CODEX_BIN="$(CURDIR)/node_modules/.bin/codex" \
	  GEMINI_BIN="$(CURDIR)/node_modules/.bin/gemini" ./bin/cdevd serve --demo $(DEMO_ARGS)

test: install
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	npx --no-install redocly lint --config openrpc/redocly.yaml openrpc/openrpc.json
	$(GO) test -race -count=1 -timeout 20m ./...

bench: install
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./...

# The performance table (docs/performance.md): `cdevd bench` serves cdevd and a bare
# echo server as separate processes and measures them over loopback (a few
# minutes). BENCH_ARGS="-only page-cold", "-quick", "-reps 5"…
bench-table: install build
	PATH="$$PATH:$(CURDIR)/node_modules/.bin" ./bin/cdevd bench $(BENCH_ARGS)

# Every fuzz target in the repo (found by scripts/fuzz.sh), one at a time,
# FUZZTIME each; FUZZ_PARALLEL sets the workers per target (default: all cores).
FUZZTIME ?= 1m
FUZZ_PARALLEL ?=
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZ_PARALLEL=$(FUZZ_PARALLEL) ./scripts/fuzz.sh

# Not part of test: cdevd under 1,000 connections and 100 scripted sessions
# for 5 minutes, then a check that it returns to its baseline (goroutines,
# fds, inotify instances, child processes, RSS). SOAK_ARGS="-duration 1m"…
soak:
	$(GO) run ./contracttests/soak $(SOAK_ARGS)
