package engine

import (
	"slices"
	"strings"
	"testing"
)

// parseEdited parses base with old replaced by new and returns its error
// and the messages of its errors at path. The edit must change base.
func parseEdited(t *testing.T, base, old, new, path string) ([]string, error) {
	t.Helper()
	doc := strings.Replace(base, old, new, 1)
	if doc == base {
		t.Fatalf("the case does not change the scenario")
	}
	_, err := Parse([]byte(doc))
	var at []string
	for _, e := range AsErrors(err) {
		if e.Path == path {
			at = append(at, e.Error())
		}
	}
	return at, err
}

// TestRangesIncludeTheirEdges: a daily curve's amplitude may be 1 (the
// rate swings to zero and to double), and CoDel's target must be below
// its interval, so a target equal to it is refused and one just under it
// is not. Each edge is paired with the value one step past it.
func TestRangesIncludeTheirEdges(t *testing.T) {
	const daily = `"duration": "10s"`
	const dep = `"queue_capacity": 5`
	for _, tc := range []struct {
		desc string
		old  string
		new  string
		path string // "": accepted
		msg  string // the whole error
	}{
		{"daily amplitude of 1", daily, daily + `, "load": [{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 1, "period": "24h"}]`, "", ""},
		{"daily amplitude past 1", daily, daily + `, "load": [{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 1.000001, "period": "24h"}]`,
			"workload.load[0].amplitude", "workload.load[0].amplitude: 1.000001 is out of range; a daily curve's amplitude is in (0, 1]: the rate swings by that share of itself above and below"},
		{"codel target just under the interval", dep, dep + `, "queue_discipline": "codel", "codel": {"target": "99.999ms", "interval": "100ms"}`, "", ""},
		{"codel target equal to the interval", dep, dep + `, "queue_discipline": "codel", "codel": {"target": "100ms", "interval": "100ms"}`,
			"dependency.codel.target", `dependency.codel.target: "100ms" is not below the interval 100ms; the target is a short queueing delay judged over the longer interval (the sources: 5ms and 100ms)`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			at, err := parseEdited(t, valid, tc.old, tc.new, tc.path)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !slices.Contains(at, tc.msg) {
				t.Errorf("want the error %q; got:\n%v", tc.msg, err)
			}
		})
	}
}
