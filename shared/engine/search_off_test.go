package engine

import "testing"

// withoutSearch runs the rest of t as a program that does not import
// package search (the Cloudflare Worker) runs: without searches. t must
// not be parallel: the engine's search is the program's.
func withoutSearch(t *testing.T) {
	saved := searching
	searching = nil
	t.Cleanup(func() { searching = saved })
}
