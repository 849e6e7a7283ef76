// Package search is the engine's search ("What should I ship?": a
// scenario's search block, its candidates, knobs, levels, libraries and
// recommendations; see engine.Search and engine.SearchResult). A program
// runs searches when it imports this package: cmd/retrylab and the
// browser's engine (wasm) do, the Cloudflare Worker (cmd/worker) does
// not, and so refuses a search block at "search" and links none of the
// search's code. The search's code itself is in package engine
// (search_run.go and the files beside it), reached only through
// engine.EnableSearch: it runs on the engine's unexported parts, and can
// move here once the engine's exported API is enough for it (issue #30).
package search

import "github.com/retrylab/retrylab/shared/engine"

func init() { engine.EnableSearch() }
