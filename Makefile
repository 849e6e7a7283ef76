# RetryLab. `make test` is what CI runs (.ci/run); `make run` serves the app.
GO      ?= go
WASMEXEC = $(shell $(GO) env GOROOT)/lib/wasm
ADDR    ?= :8080
DB      ?= ./data/retrylab.db

.PHONY: all build templ wasm run test test-native test-wasm stress fmt-check templ-check vet deps bench fuzz golden load clean worker worker-deps worker-dev worker-test worker-size conformance mutants mutants-sample

all: build

# Each step says what it does; go build -v names the packages it compiles,
# so a first build (which downloads modules and compiles for minutes) shows
# its progress.
build: templ wasm
	@echo "==> building bin/retrylab (the server and command line)"
	$(GO) build -v -o bin/retrylab ./cmd/retrylab

# wasm builds the engine, and the converters, for the browser into web/static (not committed),
# with Go's own loader for it, and compresses it once (gzip, and brotli at
# quality $(BROTLI): 11 is ~12% smaller and takes ~40 s) so that the server
# need not while its first visitor waits.
# The packages off the engine's hot path are compiled without inlining
# (WASM_NOINLINE): 59 KB less gzipped, at no measurable cost to a run; the
# engine and the runtime keep it (without it they run up to 3x slower).
BROTLI ?= 9
WASM_NOINLINE = encoding/json fmt reflect time strconv internal/strconv internal/fmtsort syscall/js context io/fs embed path \
	github.com/retrylab/retrylab/shared/chart github.com/retrylab/retrylab/shared/view github.com/retrylab/retrylab/shared/scenarios github.com/retrylab/retrylab/wasm github.com/retrylab/retrylab/wasm/jsapi
# The converters (convert.wasm, a second module: linked into engine.wasm
# they would add ~116 KB gzipped for every visitor) run once per click, so
# none of their code needs inlining.
CONVERT_NOINLINE = github.com/retrylab/retrylab/shared/convert github.com/retrylab/retrylab/shared/engine github.com/retrylab/retrylab/wasm/convert
wasm:
	@echo "==> compiling the engine to WebAssembly for the playground (web/static/engine.wasm)"
	GOOS=js GOARCH=wasm $(GO) build -v -trimpath -ldflags="-s -w" $(foreach p,$(WASM_NOINLINE),-gcflags=$(p)=-l) -o web/static/engine.wasm ./wasm
	@echo "==> compiling the converters to WebAssembly, loaded only when the playground imports or exports (web/static/convert.wasm)"
	GOOS=js GOARCH=wasm $(GO) build -v -trimpath -ldflags="-s -w" $(foreach p,$(WASM_NOINLINE) $(CONVERT_NOINLINE),-gcflags=$(p)=-l) -o web/static/convert.wasm ./wasm/convert
	cp "$(WASMEXEC)/wasm_exec.js" web/static/wasm_exec.js
	$(GO) run ./cmd/precompress -brotli $(BROTLI) web/static

# templ regenerates the page templates' Go code (committed, so that a plain
# go build works without the templ tool).
templ:
	@echo "==> generating the page templates (server/*_templ.go; the first time, go downloads and compiles templ, silently, for about a minute)"
	@$(GO) tool templ generate -path server >/dev/null 2>&1 || $(GO) tool templ generate -path server

# run builds everything and serves the app on $(ADDR) with SQLite at $(DB)
# (created on first run).
run: build
	@echo "==> serving the playground on http://$(if $(filter :%,$(ADDR)),localhost)$(ADDR) with SQLite at $(DB) (Ctrl+C stops)"
	./bin/retrylab serve --addr $(ADDR) --db $(DB)

test: deps fmt-check templ-check vet wasm test-native test-wasm worker-test conformance

# templ-check fails when the committed *_templ.go files are not what the
# templates generate.
templ-check:
	@$(GO) tool templ generate -path server >/dev/null 2>&1 || $(GO) tool templ generate -path server
	@git diff --exit-code --stat -- 'server/*_templ.go' || { echo "server/*_templ.go are stale: run make templ and commit"; exit 1; }

# test-native runs every test, then the packages that still have a
# nosearch side (the search's view, picture and page section, the CLI's search) again built
# as the Worker is, with that tag. The engine's search needs no tag: it is
# in a program only where shared/engine/search is imported (see vet).
# -timeout 30m: on a busy 2-core machine the browser tests took up to 16
# minutes, past go test's default limit of 10.
test-native:
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -count=1 -tags nosearch ./server/... ./shared/view/... ./shared/chart/... ./cmd/retrylab/

# The engine's tests, golden results included, under GOOS=js GOARCH=wasm:
# the same scenario and seed must give the same bytes as natively.
# -timeout 30m: under wasm the engine's tests took 418 s of go test's
# default 600 in a loaded CI run.
test-wasm:
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 30m ./shared/engine/... ./shared/chart/... ./shared/view/... ./shared/convert/...

# stress runs the browser tests and the server's N times in a row (make
# stress N=3) beside three busy loops, as on CI's two cores when the
# machine is busy, and stops at the first run that fails: a test that
# races the clock fails here sooner than in CI. The busy loops end with
# it, however it ends. -timeout 30m: a loaded run of ./web/ took 7 to 16
# minutes, past go test's default limit of 10.
N ?= 10
stress: deps wasm
	@pids=""; trap 'kill $$pids 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	for j in 1 2 3; do sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	i=1; while [ $$i -le $(N) ]; do \
		echo "==> stress run $$i of $(N), beside three busy loops"; start=$$(date +%s); \
		$(GO) test -count=1 -timeout 30m ./web/ ./server/... || { echo "stress: run $$i of $(N) failed"; exit 1; }; \
		echo "==> stress run $$i of $(N) passed in $$(($$(date +%s) - start)) s"; i=$$((i + 1)); \
	done; \
	echo "stress: all $(N) runs passed"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null | grep -v '_templ.go$$' || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# vet runs go vet and staticcheck (pinned in go.mod's tools), with and
# without the search's view (nosearch), and checks that the Worker does not
# import the search (shared/engine/search): without it the engine refuses
# a search block and the linker leaves the search's code out.
vet:
	$(GO) vet ./...
	$(GO) vet -tags nosearch ./...
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags nosearch -checks inherit,-U1000 ./... # what only the search's view uses is unused here
	@# -e: on a fresh clone cmd/worker's embedded manifest.json is not built
	@# yet, which go list reports as an error but still lists the imports;
	@# listing the engine proves the list is not empty for another reason.
	@deps=$$(GOOS=js GOARCH=wasm $(GO) list -e -deps -tags $(WORKER_TAGS) ./cmd/worker) || exit 1; \
	echo "$$deps" | grep -qx 'github.com/retrylab/retrylab/shared/engine' || { echo "go list found no engine in cmd/worker's imports"; exit 1; }; \
	if echo "$$deps" | grep -qx 'github.com/retrylab/retrylab/shared/engine/search'; then \
		echo "cmd/worker imports shared/engine/search: the Worker must leave the search out (docs/worker.md)"; exit 1; fi

# deps installs what the tests need on a fresh machine (as root, with
# apt-get): Node.js for the wasm tests, Debian's Chromium for the browser tests,
# npm and curl for the Worker test, Java for the Nu HTML Checker; and, with
# npm ci, the page checkers pinned by web/checks/package-lock.json (axe-core,
# vnu-jar).
deps:
	@missing=""; command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	if [ -n "$$missing" ]; then echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	@[ web/checks/node_modules/.package-lock.json -nt web/checks/package-lock.json ] || { echo "==> installing the page checkers (web/checks: axe-core, vnu-jar)"; cd web/checks && npm ci --no-audit --no-fund --loglevel=error; }

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./shared/engine/ ./server/png/

# fuzz runs every fuzz target for FUZZTIME each: the scenario parser, the
# YAML reader, and each importer (go test -fuzz takes one target at a time).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./shared/engine/
	@for f in $$($(GO) test -list '^Fuzz' ./shared/convert/ | grep '^Fuzz'); do \
		echo "==> $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) ./shared/convert/ || exit 1; done

# conformance drives the real retry libraries (failsafe-go, cenkalti/backoff,
# grpc-go on loopback, aws-sdk-go-v2, go-retryablehttp) and the engine's
# presets with the same scripts and compares their decisions. It is a module
# of its own (conformance/go.mod), so the product's dependencies do not grow;
# conformance/README.md has the results.
conformance:
	cd conformance && $(GO) vet ./... && $(GO) test -count=1 ./...

# worker builds the Cloudflare Workers version into worker/build: syumai's
# glue, the static files under their hashed names for Static Assets, and the
# Go app without what the Worker does not need (tags: no static files,
# metrics, brotli, PNG, converters or the search's view; the search itself
# is left out by not importing shared/engine/search) and without inlining, so
# that it stays small (it starts with every isolate); the Paid plan it
# targets allows 10 MiB gzipped.
WORKER_TAGS = nostatic,nometrics,nobrotli,nopng,noconvert,nosearch
WORKER_ENV = CI=true WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false WRANGLER_HIDE_BANNER=true CLOUDFLARE_CF_FETCH_ENABLED=false
worker: wasm
	$(GO) tool workers-assets-gen -mode=go -o worker/build
	$(GO) run ./cmd/worker-assets -o worker/build/public -manifest cmd/worker/manifest.json
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" \
		-gcflags=all=-l \
		-tags $(WORKER_TAGS) -o worker/build/app.wasm ./cmd/worker

# worker-deps installs wrangler as pinned by worker/package-lock.json.
worker-deps:
	cd worker && npm ci --no-audit --no-fund --loglevel=error

# worker-dev serves the Worker locally on 127.0.0.1:8787 with a local D1.
worker-dev: worker worker-deps
	cd worker && $(WORKER_ENV) npx wrangler d1 migrations apply DB --local
	cd worker && $(WORKER_ENV) npx wrangler dev --local --ip 127.0.0.1 --port 8787

# worker-test runs it beside the native server and compares their answers.
worker-test: worker worker-deps
	bash worker/test.sh

# worker-size reports the upload size wrangler would deploy (nothing is sent).
worker-size: worker worker-deps
	cd worker && $(WORKER_ENV) npx wrangler deploy --dry-run --outdir build/dry-run | grep -i "upload"

# mutants measures how many of FILE's mutants (gremlins v0.5.0) the tests of
# its package kill: make mutants FILE=shared/view/verdict.go (docs/
# CONTRIBUTING.md, "Mutation testing"). gremlins mutates every file of a
# package; its --diff mutates only the lines git diff shows as changed, so
# the run copies the working tree (uncommitted tests included) to a scratch
# repository whose one commit has FILE empty: FILE, and only it, is new.
# gremlins is run from FILE's directory and names files from there, hence
# diff.relative. One worker, GOMAXPROCS=1 and nice 19, since the machine
# is shared; not --test-cpu, which v0.5.0 hands to go test as one argument
# "-cpu 1", so that every test run fails to start and every mutant counts
# as killed. GOFLAGS (-skip=...) reaches each mutant's go test;
# MUTANTS_FLAGS are gremlins' (--dry-run). Not run by make test: verdict.go
# took 26 minutes, yaml.go 4.
GREMLINS ?= $(shell $(GO) env GOPATH)/bin/gremlins
MUTANTS_TIMEOUT ?= 5
mutants:
	@[ -f "$(FILE)" ] || { echo "usage: make mutants FILE=shared/view/verdict.go (a Go file of this module)"; exit 2; }
	@command -v $(GREMLINS) >/dev/null || GOBIN=$(abspath $(dir $(GREMLINS))) $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@v0.5.0
	@tmp=$$(mktemp -d /tmp/mutants-XXXXXX); trap 'rm -rf "$$tmp"' EXIT; \
	git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$$tmp" 2>/dev/null; \
	cd "$$tmp" && git init -q && git config user.email mutants@localhost && git config user.name mutants && \
	git config diff.relative true && cp "$(FILE)" .git/mutants.keep && : > "$(FILE)" && git add -A && \
	git commit -qm "$(FILE) empty" && mv .git/mutants.keep "$(FILE)" && cd "$$(dirname "$(FILE)")" && \
	echo "==> mutating $(FILE) only, against every test of ./$$(dirname "$(FILE)")" && \
	GOMAXPROCS=1 nice -n 19 $(GREMLINS) unleash --workers 1 --timeout-coefficient $(MUTANTS_TIMEOUT) --diff HEAD $(MUTANTS_FLAGS) | grep --line-buffered -v "^ *SKIPPED "

# mutants-sample measures a whole package's mutation efficacy on a random
# sample of its covered mutants (cmd/mutants: gremlins' mutations, run
# through go test -overlay), for packages with too many mutants to run
# each: make mutants-sample PKG=shared/engine SAMPLE=300 TESTFLAGS=-short.
# The same SAMPLE and SEED draw the same sample from the same covered
# mutants (the hash on the first line printed); FROM=k goes on with a
# sample whose first k were tested. TESTFLAGS are the test binary's
# (-short, -skip), not build flags, and reach every run: tests left out
# measure the tests kept. MUTANTS_TIMEOUT (5) is the limit, a multiple of
# the unmutated tests' time.
SAMPLE ?= 300
SEED ?= 1
FROM ?= 0
MUTANT_WORKERS ?= 1
mutants-sample:
	@[ -d "$(PKG)" ] || { echo "usage: make mutants-sample PKG=shared/engine [SAMPLE=300] [SEED=1] [FROM=0] [TESTFLAGS=-short]"; exit 2; }
	$(GO) build -o bin/mutants ./cmd/mutants
	nice -n 19 bin/mutants -n $(SAMPLE) -seed $(SEED) -from $(FROM) -timeout $(MUTANTS_TIMEOUT) -workers $(MUTANT_WORKERS) ./$(PKG) $(TESTFLAGS)

# load measures a running server (make run in another shell) from loopback.
load:
	$(GO) run ./cmd/loadtest -base http://127.0.0.1$(ADDR)

# golden rewrites the golden results and the generated catalogue after an
# intended change; review the diff before committing it.
golden:
	$(GO) test ./shared/engine/ ./shared/scenarios/ -run 'TestGolden|TestCatalogueDoc' -update && $(GO) test ./shared/chart/ -run TestGolden -update

clean:
	rm -rf bin web/static/engine.wasm web/static/convert.wasm web/static/wasm_exec.js web/static/*.gz web/static/*.br worker/build cmd/worker/manifest.json
