package probe

// The probe's search tests run searches, as cmd/retrylab does: by
// importing package search.
import _ "github.com/retrylab/retrylab/shared/engine/search"
