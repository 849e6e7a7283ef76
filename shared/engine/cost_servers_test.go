package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// costRun parses js, runs it and returns its estimate and the events it
// processed.
func costRun(t *testing.T, js string) (est, events int64) {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	return Estimate(sc), res.Events
}

// TestEstimateCountsEveryBackend: each backend steps through the phases
// that hit it, a start and an end each, as a dependency does; the estimate
// grows by at least what the backends add to the events processed.
func TestEstimateCountsEveryBackend(t *testing.T) {
	var phases []string
	for i := range 100 {
		phases = append(phases, fmt.Sprintf(`{"kind": "latency", "factor": 2, "from": "%dms", "to": "%dms"}`, 2*i, 2*i+1))
	}
	scenario := func(backends string) string {
		return `{"version": 1, "name": "phases", "runs": 50,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "200ms"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10` + backends +
			`, "phases": [` + strings.Join(phases, ",") + `]},
			"strategies": [{"name": "a", "max_attempts": 1}]}`
	}
	oneEst, oneEvents := costRun(t, scenario(""))
	est, events := costRun(t, scenario(`, "backends": {"count": 8}`))
	if events <= oneEvents {
		t.Fatalf("8 backends processed %d events, one dependency %d: the test needs the backends' phases to cost more", events, oneEvents)
	}
	if events > est || est-oneEst < events-oneEvents {
		t.Errorf("8 backends: estimate %d (one dependency: %d), processed %d (%d); the estimate must grow by at least the %d events the backends add",
			est, oneEst, events, oneEvents, events-oneEvents)
	}
}

// TestEstimateCountsTheCache: a warm cache puts the keys it holds at the
// start of every simulation, and a Zipf law computes a probability for
// every key once a run: the estimate counts both on top of the events
// the run processes.
func TestEstimateCountsTheCache(t *testing.T) {
	const keys, runs = 200_000, 10
	scenario := func(cache string) string {
		return `{"version": 1, "name": "cache", "runs": 10,
			"workload": {"clients": 10, "arrival": "poisson", "rate": 100, "duration": "2s"},
			"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
				"cache": {` + cache + `}},
			"strategies": [{"name": "a", "max_attempts": 2}]}`
	}
	coldEst, coldEvents := costRun(t, scenario(`"keys": {"law": "uniform", "count": 200000}, "capacity": 200000`))
	warmEst, warmEvents := costRun(t, scenario(`"keys": {"law": "uniform", "count": 200000}, "capacity": 200000, "warm": true`))
	// The warm fill's puts, in every simulation.
	if puts := int64(keys * runs); warmEst < warmEvents+puts || warmEst-coldEst < puts {
		t.Errorf("a warm cache of %d keys on %d runs: estimate %d (cold: %d), %d events processed; the estimate must count the %d puts of its fills",
			keys, runs, warmEst, coldEst, warmEvents, puts)
	}
	if coldEvents > coldEst {
		t.Errorf("a cold cache: %d events processed, over the estimate %d", coldEvents, coldEst)
	}
	zipfEst, zipfEvents := costRun(t, scenario(`"keys": {"law": "zipf", "exponent": 0.8, "count": 200000}, "capacity": 1000, "coalesce": true`))
	if probs := int64(keys / 4); zipfEst < zipfEvents+probs {
		t.Errorf("a Zipf law over %d keys: estimate %d, %d events processed; the estimate must count its %d probabilities (a quarter of an event each)",
			keys, zipfEst, zipfEvents, keys)
	}
}

// TestEstimateSpanLowerBound: a run lasts at least until its arrivals
// stop; random (Poisson) arrivals may stop up to ten mean gaps early,
// ten at 10 a second being 1 s, while uniform, closed and burst arrivals
// come when they are due.
func TestEstimateSpanLowerBound(t *testing.T) {
	for _, tc := range []struct {
		workload string
		want     Duration
	}{
		{`"arrival": "poisson", "rate": 10, "duration": "10s"`, Duration(9 * time.Second)},
		{`"arrival": "uniform", "rate": 10, "duration": "10s"`, Duration(10 * time.Second)},
		{`"arrival": "closed", "think_time": "90ms", "duration": "10s"`, Duration(10 * time.Second)},
		{`"arrival": "burst", "burst_at": "2s"`, Duration(2 * time.Second)},
	} {
		sc, err := Parse([]byte(`{"version": 1, "name": "span", "workload": {"clients": 10, ` + tc.workload + `},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10},
			"strategies": [{"name": "a", "max_attempts": 1}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if lo, _ := EstimateSpan(sc); lo != tc.want {
			t.Errorf("%s: at least %s; want %s", tc.workload, lo, tc.want)
		}
	}
}
