package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// benchScenario runs sc b.N times, its simulations one after the other
// (Parallelism 1: events/s is one core's speed), and reports events/s and
// allocs/event.
func benchScenario(b *testing.B, sc *Scenario) {
	b.Helper()
	if err := sc.Validate(); err != nil {
		b.Fatal(err)
	}
	var events int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(context.Background(), sc, Options{NoSeries: true, Parallelism: 1})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.StopTimer()
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		if _, err := Run(context.Background(), sc, Options{NoSeries: true, Parallelism: 1}); err != nil {
			b.Fatal(err)
		}
	}))/(float64(events)/float64(b.N)), "allocs/event")
}

// BenchmarkE03B is the reference: the built-in e03b-synchronized-recovery
// (the Distributed Reliability Lab's E03-B), about 3,000 operations and four
// strategies. BenchmarkFlatHeapE03B runs the same workload in a minimal
// event loop, the practical limit: `go test -bench E03B` shows both.
func BenchmarkE03B(b *testing.B) {
	benchScenario(b, e03b(b))
}

// BenchmarkMillionEvents is a scenario of about a million events: 500,000
// operations against a dependency with an outage, a freeze and random errors,
// retried with jittered backoff under a budget.
func BenchmarkMillionEvents(b *testing.B) {
	sc, err := Parse([]byte(`{"version": 1, "name": "million",
		"workload": {"clients": 1000, "arrival": "poisson", "rate": 5000, "duration": "100s"},
		"dependency": {"workers": 100, "service_time": {"kind": "exponential", "mean": "15ms"}, "queue_capacity": 1000, "error_rate": 0.05,
			"phases": [{"kind": "outage", "from": "20s", "to": "25s"}, {"kind": "freeze", "from": "60s", "to": "61s", "status": 503}]},
		"strategies": [{"name": "s", "max_attempts": 4, "attempt_timeout": "500ms", "deadline": "3s",
			"backoff": {"kind": "exponential", "base": "50ms", "max": "1s"}, "jitter": {"kind": "full"},
			"budget": {"kind": "token_bucket", "max_tokens": 100, "token_ratio": 0.1}}]}`))
	if err != nil {
		b.Fatal(err)
	}
	benchScenario(b, sc)
}

// BenchmarkSelectNth picks the median of 100,000 latencies, sorted and
// shuffled: the median-of-three pivot keeps sorted input linear (a
// pivot taken carelessly from a sorted slice is quadratic, thousands of
// times slower here, and gives the same answer, so only this shows it).
func BenchmarkSelectNth(b *testing.B) {
	const n = 100_000
	sorted := make([]int64, n)
	for i := range sorted {
		sorted[i] = int64(i)
	}
	shuffled := slices.Clone(sorted)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name string
		xs   []int64
	}{{"sorted", sorted}, {"shuffled", shuffled}} {
		b.Run(c.name, func(b *testing.B) {
			xs := make([]int64, n)
			for b.Loop() {
				copy(xs, c.xs)
				if got := selectNth(xs, n/2); got != n/2 {
					b.Fatalf("the median is %d, want %d", got, n/2)
				}
			}
		})
	}
}
