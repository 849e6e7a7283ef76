package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the resilience4j helper.

func exportPollyCSharp(st *engine.Strategy, n *notes) []byte {
	n.warn("", "polly-csharp export is not built yet")
	return nil
}
