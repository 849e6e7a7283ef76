//go:build !nosearch

package web_test

// These tests run searches, as cmd/retrylab and the playground's engine
// do: by importing package search. With the nosearch tag they are the
// Worker's, which does not import it.
import _ "github.com/retrylab/retrylab/shared/engine/search"
