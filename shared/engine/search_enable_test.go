package engine_test

// The engine's tests run searches, as cmd/retrylab does: by importing
// package search. withoutSearch (search_off_test.go) turns it off for
// the tests of a program that does not import it (the Worker).
import _ "github.com/retrylab/retrylab/shared/engine/search"
