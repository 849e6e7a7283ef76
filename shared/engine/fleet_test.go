package engine

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestFleetsKeepTheirPolicies: every fleet's calls go through its own
// policy, whatever the strategy compared: against a dependency that
// fails every call, each fleet's amplification is its own attempts
// (times its layer's), and its operations its share of the rate.
func TestFleetsKeepTheirPolicies(t *testing.T) {
	sc := &Scenario{Version: 1, Name: "fleets", Runs: 2,
		Workload: Workload{Clients: 10, Rate: 100, Duration: Duration(20 * time.Second), Fleet: "mine",
			Fleets: []Fleet{
				{Name: "three", Clients: 30, Rate: 200, Policy: Policy{MaxAttempts: 3}},
				{Name: "layered", Clients: 5, RatePerClient: 20, Policy: Policy{MaxAttempts: 2}, Layers: []Policy{{MaxAttempts: 2}}},
			}},
		Dependency: Dependency{Workers: 100, QueueCapacity: 10, ErrorRate: 1, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(time.Millisecond)}},
		Strategies: []Strategy{{Name: "once", Policy: Policy{MaxAttempts: 1}}, {Name: "five", Policy: Policy{MaxAttempts: 5}}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Strategies {
		if len(st.Fleets) != 3 || st.Fleets[0].Name != "mine" || !st.Fleets[0].Own || st.Fleets[1].Own {
			t.Fatalf("%s: fleets %+v", st.Name, st.Fleets)
		}
		own := 1.0
		if st.Name == "five" {
			own = 5
		}
		total := 0.0
		for i, want := range []struct{ amp, rate float64 }{{own, 100}, {3, 200}, {4, 100}} {
			f := st.Fleets[i].Metrics
			total += f.Operations
			if f.Amplification != want.amp {
				t.Errorf("%s, fleet %s: amplification %v, want its policy's %v", st.Name, st.Fleets[i].Name, f.Amplification, want.amp)
			}
			if n := want.rate * 20; math.Abs(f.Operations-n) > 4*math.Sqrt(n) {
				t.Errorf("%s, fleet %s: %v operations, want about %v", st.Name, st.Fleets[i].Name, f.Operations, n)
			}
		}
		if total != st.Metrics.Operations {
			t.Errorf("%s: the fleets' %v operations, the strategy's %v", st.Name, total, st.Metrics.Operations)
		}
		// Layer metrics are the strategy's own levels only.
		if st.LayerAttempts != nil {
			t.Errorf("%s: layer attempts %v for a strategy without layers", st.Name, st.LayerAttempts)
		}
	}
	if a, b := res.Strategies[0].Fleets[1].Metrics, res.Strategies[1].Fleets[1].Metrics; a != b {
		t.Errorf("fleet three differs between strategies with a dependency that fails every call: %+v, %+v", a, b)
	}
}

func TestFleetValidation(t *testing.T) {
	const base = `{"version": 1, "name": "v",
	"workload": {"clients": 10, "rate": 10, "duration": "10s"FLEETS},
	"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5},
	"strategies": [{"name": "a", "max_attempts": 3}]}`
	for _, tc := range []struct{ fleets, path, want string }{
		{`, "fleet": "mine"`, "workload.fleet", "there are none"},
		{`, "fleets": [{"clients": 5, "rate": 3, "max_attempts": 2}]`, "workload.fleets[0].name", "every fleet needs a name"},
		{`, "fleets": [{"name": "clients", "clients": 5, "rate": 3, "max_attempts": 2}]`, "workload.fleets[0].name", "the name of the workload's own clients"},
		{`, "fleets": [{"name": "x", "clients": 5, "rate": 3, "max_attempts": 2}, {"name": "x", "clients": 5, "rate": 3, "max_attempts": 2}]`, "workload.fleets[1].name", "also the name of workload.fleets[0]"},
		{`, "fleets": [{"name": "x", "clients": 5, "max_attempts": 2}]`, "workload.fleets[0].rate", "is missing"},
		{`, "fleets": [{"name": "x", "clients": 5, "rate": 3, "max_attempts": 200}]`, "workload.fleets[0].max_attempts", "out of range"},
		{`, "fleets": [{"name": "x", "clients": 5, "rate": 3, "max_attempts": 2, "dead_letter": true}]`, "workload.fleets[0].dead_letter", "not a queue consumer"},
		{`, "fleets": [{"name": "x", "clients": 5, "rate": 3, "max_attempts": 2, "pool": {"slots": 3}}]`, "workload.fleets[0].pool", "is not a known field"},
		{`, "arrival": "closed", "think_time": "1s", "rate": null, "fleets": [{"name": "x", "clients": 5, "rate": 3, "max_attempts": 2}]`, "workload.fleets", `fleets send "poisson" arrivals`},
	} {
		doc := strings.Replace(base, "FLEETS", tc.fleets, 1)
		if strings.Contains(tc.fleets, `"rate": null`) {
			doc = strings.Replace(strings.Replace(doc, `"rate": 10, `, "", 1), `"rate": null, `, "", 1)
		}
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one at %s containing %q", tc.fleets, err, tc.path, tc.want)
		}
	}
	// A fleet's preset expands as a strategy's does.
	doc := strings.Replace(base, "FLEETS", `, "fleets": [{"name": "sdk", "clients": 5, "rate": 3, "preset": "grpc-default"}]`, 1)
	if _, err := ParseWith([]byte(doc), map[string]json.RawMessage{"grpc-default": json.RawMessage(`{"max_attempts": 5, "attempt_timeout": "1s"}`)}); err != nil {
		t.Errorf("a fleet based on a preset: %v", err)
	}
}
