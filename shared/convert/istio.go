package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the istio helper.

func importIstio(data []byte) (*Imported, error) {
	return nil, engine.Errors{{Value: "istio", Message: "is not built yet"}}
}

func exportIstio(st *engine.Strategy, n *notes) []byte {
	n.warn("", "istio export is not built yet")
	return nil
}
