package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the envoy helper.

func importEnvoy(data []byte) (*Imported, error) {
	return nil, engine.Errors{{Value: "envoy", Message: "is not built yet"}}
}

func exportEnvoy(st *engine.Strategy, n *notes) []byte {
	n.warn("", "envoy export is not built yet")
	return nil
}
