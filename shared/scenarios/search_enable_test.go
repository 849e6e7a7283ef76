package scenarios

// The tests run the built-ins' searches, as cmd/retrylab does: by
// importing package search.
import _ "github.com/retrylab/retrylab/shared/engine/search"
