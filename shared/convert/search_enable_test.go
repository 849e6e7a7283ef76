package convert

// The library tests run searches within a library's limits, as
// cmd/retrylab does: by importing package search.
import _ "github.com/retrylab/retrylab/shared/engine/search"
