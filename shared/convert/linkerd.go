package convert

import "github.com/retrylab/retrylab/shared/engine"

// STUB: replaced by the linkerd helper.

func importLinkerd(data []byte) (*Imported, error) {
	return nil, engine.Errors{{Value: "linkerd", Message: "is not built yet"}}
}

func exportLinkerd(st *engine.Strategy, n *notes) []byte {
	n.warn("", "linkerd export is not built yet")
	return nil
}
