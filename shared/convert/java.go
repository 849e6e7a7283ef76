package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the resilience4j helper.

func exportResilience4jJava(st *engine.Strategy, n *notes) []byte {
	n.warn("", "resilience4j-java export is not built yet")
	return nil
}
