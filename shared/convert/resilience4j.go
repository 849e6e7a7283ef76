package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the resilience4j helper.

func importResilience4j(data []byte) (*Imported, error) {
	return nil, engine.Errors{{Value: "resilience4j", Message: "is not built yet"}}
}

func exportResilience4j(st *engine.Strategy, n *notes) []byte {
	n.warn("", "resilience4j export is not built yet")
	return nil
}
