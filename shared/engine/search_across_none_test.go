//go:build nosearch

package engine

import (
	"strings"
	"testing"
)

// TestSearchAcrossNotInThisBuild: a build without searches refuses a
// search across variants as it refuses any search, at "search", before
// reading its variants.
func TestSearchAcrossNotInThisBuild(t *testing.T) {
	sc, err := Decode([]byte(`{"version": 1, "name": "x", "workload": {"clients": 1, "rate": 1, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}},
		"strategies": [{"name": "C", "max_attempts": 2}],
		"search": {"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
			"objectives": [{"metric": "retries", "goal": "min"}],
			"across": [{"name": "as written"}, {"name": "slow", "path": "dependency.workers", "value": "not a number"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	es := AsErrors(sc.Validate())
	if len(es) != 1 || es[0].Path != "search" || !strings.Contains(es[0].Message, "is not run by this build") {
		t.Errorf("errors %v; want one, at search, saying this build runs no search", es)
	}
}
