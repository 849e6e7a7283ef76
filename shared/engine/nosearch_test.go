package engine

import "encoding/json"

// hasSearch reports whether a scenario's JSON has a search block, which a
// build without searches (nosearch, the Worker's) refuses: the tests that
// run every scenario in testdata leave it out there.
func hasSearch(data []byte) bool {
	var sc struct {
		Search json.RawMessage `json:"search"`
	}
	return json.Unmarshal(data, &sc) == nil && sc.Search != nil
}
