package engine

import (
	"context"
	"strings"
	"testing"
)

// runDoc parses doc and runs it, without series.
func runDoc(t *testing.T, doc string) *Result {
	t.Helper()
	sc, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPeaksOfSeveralSeedsAreTheirMean: a strategy's peak at a report's
// own resolution, over several seeds, is the mean of each seed's peak,
// attempts and retries alike.
func TestPeaksOfSeveralSeedsAreTheirMean(t *testing.T) {
	doc := func(seeds string) string {
		return `{"version": 1, "name": "peaks", "seeds": [` + seeds + `],
		"workload": {"clients": 10, "arrival": "poisson", "rate": 200, "duration": "1s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 10, "error_rate": 0.3},
		"strategies": [{"name": "s", "max_attempts": 3}],
		"report": {"peak_resolutions": ["250ms"]}}`
	}
	peak := func(seeds string) Peak {
		t.Helper()
		ps := runDoc(t, doc(seeds)).Strategies[0].Peaks
		if len(ps) != 1 {
			t.Fatalf("seeds %s: peaks %+v; want one, at 250ms", seeds, ps)
		}
		return ps[0]
	}
	a, b, both := peak("1"), peak("2"), peak("1, 2")
	want := Peak{250, round6((a.Attempts + b.Attempts) / 2), round6((a.Retries + b.Retries) / 2)}
	if a.Attempts == 0 || a.Retries == 0 || both != want {
		t.Errorf("peaks of seeds 1 and 2: %+v; want the mean of %+v and %+v, %+v", both, a, b, want)
	}
}

// TestOnlySeveralDependenciesNameTheirPhases: the phases of the one dependency are
// reported without a dependency's name, even where it has one: only
// among several does a phase say whose it is.
func TestOnlySeveralDependenciesNameTheirPhases(t *testing.T) {
	doc := strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, "name": "payments", "phases": [{"kind": "outage", "from": "1s", "to": "2s"}]`, 1)
	if doc == valid {
		t.Fatal("the case does not change the scenario")
	}
	sc, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	sc.Seeds = []int64{1}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 1 || res.Phases[0].Dependency != "" || res.Phases[0].Kind != PhaseOutage {
		t.Errorf("phases %+v; want one outage, of no dependency by name", res.Phases)
	}
}

// TestMetricsApplyByName: Metrics.Applies finds the metric by its JSON
// name: an Optional one applies when it has a value, any other always,
// and a name that is no metric's does not apply.
func TestMetricsApplyByName(t *testing.T) {
	m := Metrics{Operations: 10, Succeeded: 10, RecoveryS: NotApplicable, Recovered: 1}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"operations", true},
		{"failed", true},
		{"recovery_s", false},
		{"recovered", true},
		{"no_such_metric", false},
	} {
		if got := m.Applies(tc.name); got != tc.want {
			t.Errorf("Applies(%q) = %v; want %v", tc.name, got, tc.want)
		}
	}
	m.Recovered = NotApplicable
	if m.Applies("recovered") || !m.Applies("succeeded") {
		t.Errorf("with recovered not applicable: Applies(recovered) %v, Applies(succeeded) %v", m.Applies("recovered"), m.Applies("succeeded"))
	}
}
