package scenarios

import (
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestIncidents holds every entry of the check suite to a built-in that
// exists, a reason and a name of its own, and to a valid scenario once a
// policy replaces its strategies.
func TestIncidents(t *testing.T) {
	if len(Suite("default")) == 0 || len(Suite("extended")) != len(Incidents) {
		t.Errorf("suites: %d default, %d extended of %d", len(Suite("default")), len(Suite("extended")), len(Incidents))
	}
	seen := map[string]bool{}
	st := engine.Strategy{Name: "p", Policy: engine.Policy{MaxAttempts: 3}}
	for _, in := range Incidents {
		if in.Name == "" || in.Why == "" || seen[in.Name] {
			t.Errorf("incident %+v: needs a name of its own and a reason", in)
		}
		seen[in.Name] = true
		sc, err := in.Run([]engine.Strategy{st})
		if err != nil {
			t.Errorf("incident %s: %v", in.Name, err)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("incident %s with a policy in place of its strategies: %v", in.Name, err)
		}
	}
}
