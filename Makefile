# RetryLab. `make test` is what CI runs (.ci/run); `make run` serves the app.
GO      ?= go
WASMEXEC = $(shell $(GO) env GOROOT)/lib/wasm
ADDR    ?= :8080
DB      ?= ./data/retrylab.db

.PHONY: all build templ wasm run test test-native test-wasm fmt-check templ-check vet deps bench fuzz golden load clean

all: build

build: templ wasm
	$(GO) build -o bin/retrylab ./cmd/retrylab

# wasm builds the engine for the browser into web/static (not committed),
# with Go's own loader for it.
wasm:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o web/static/engine.wasm ./wasm
	cp "$(WASMEXEC)/wasm_exec.js" web/static/wasm_exec.js

# templ regenerates the page templates' Go code (committed, so that a plain
# go build works without the templ tool).
templ:
	@$(GO) tool templ generate -path server >/dev/null 2>&1 || $(GO) tool templ generate -path server

# run builds everything and serves the app on $(ADDR) with SQLite at $(DB)
# (created on first run).
run: build
	./bin/retrylab serve --addr $(ADDR) --db $(DB)

test: deps fmt-check templ-check vet wasm test-native test-wasm

# templ-check fails when the committed *_templ.go files are not what the
# templates generate.
templ-check:
	@$(GO) tool templ generate -path server >/dev/null 2>&1 || $(GO) tool templ generate -path server
	@git diff --exit-code --stat -- 'server/*_templ.go' || { echo "server/*_templ.go are stale: run make templ and commit"; exit 1; }

test-native:
	$(GO) test -count=1 ./...

# The engine's tests, golden results included, under GOOS=js GOARCH=wasm:
# the same scenario and seed must give the same bytes as natively.
test-wasm:
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./shared/engine/... ./shared/chart/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null | grep -v '_templ.go$$' || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# deps installs what the tests need on a fresh machine (as root, with
# apt-get): Node.js for the wasm tests, Debian's Chromium for the browser tests.
deps:
	@missing=""; command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./shared/engine/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./shared/engine/

# load measures a running server (make run in another shell) from loopback.
load:
	$(GO) run ./cmd/loadtest -base http://127.0.0.1$(ADDR)

# golden rewrites the golden results and the generated catalogue after an
# intended change; review the diff before committing it.
golden:
	$(GO) test ./shared/engine/ ./shared/scenarios/ -run 'TestGolden|TestCatalogueDoc' -update && $(GO) test ./shared/chart/ -run TestGolden -update

clean:
	rm -rf bin web/static/engine.wasm web/static/wasm_exec.js
