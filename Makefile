# RetryLab. `make test` is what CI runs (.ci/run); `make run` tries the engine.
GO      ?= go
WASMEXEC = $(shell $(GO) env GOROOT)/lib/wasm
SCENARIO ?= shared/engine/testdata/e03b.json

.PHONY: all build run test test-native test-wasm fmt-check vet deps bench fuzz golden clean

all: build

build:
	$(GO) build -o bin/retrylab ./cmd/retrylab

# run simulates a scenario (E03-B by default) and prints the comparison table.
run: build
	./bin/retrylab run $(SCENARIO)

test: deps fmt-check vet test-native test-wasm

test-native:
	$(GO) test -count=1 ./...

# The engine's tests, golden results included, under GOOS=js GOARCH=wasm:
# the same scenario and seed must give the same bytes as natively.
test-wasm:
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./shared/engine/... ./shared/chart/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# deps installs what the tests need on a fresh machine (as root, with apt-get).
deps:
	@command -v node >/dev/null 2>&1 || { echo "installing nodejs for the wasm tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs; }

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./shared/engine/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./shared/engine/

# golden rewrites the golden results and the generated catalogue after an
# intended change; review the diff before committing it.
golden:
	$(GO) test ./shared/engine/ ./shared/scenarios/ -run 'TestGolden|TestCatalogueDoc' -update

clean:
	rm -rf bin
