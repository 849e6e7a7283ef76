package engine_test

import (
	"context"
	"fmt"

	"github.com/retrylab/retrylab/shared/engine"
)

// Retries at every layer multiply: three layers of three attempts against a
// database that always fails make 27 database calls per request.
func ExampleRun() {
	sc, err := engine.Parse([]byte(`{
		"version": 1,
		"name": "layered retries",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0,
			"phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": 503}]},
		"strategies": [
			{"name": "every-layer", "max_attempts": 3, "layers": [{"max_attempts": 3}, {"max_attempts": 3}]},
			{"name": "top-only", "max_attempts": 3, "layers": [{"max_attempts": 1}, {"max_attempts": 1}]}
		]
	}`))
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		panic(err)
	}
	for _, st := range res.Strategies {
		fmt.Printf("%s: %v database calls\n", st.Name, st.Metrics.DependencyCalls)
	}
	// Output:
	// every-layer: 27 database calls
	// top-only: 3 database calls
}

// A seeded run always gives the same numbers: here E03-B's synchronized
// recovery, immediate retries (A) against exponential backoff with full jitter (C).
func ExampleRun_seeded() {
	sc, err := engine.Parse([]byte(`{
		"version": 1, "name": "E03-B", "seed": 1,
		"workload": {"clients": 200, "rate": 95, "duration": "30s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "40ms"}, "queue_capacity": 100,
			"phases": [{"kind": "freeze", "from": "8.5s", "to": "10s", "status": 503},
			           {"kind": "capacity", "from": "10s", "to": "15s", "workers": 5}]},
		"strategies": [
			{"name": "A", "max_attempts": 4, "attempt_timeout": "2s", "deadline": "5s"},
			{"name": "C", "max_attempts": 4, "attempt_timeout": "2s", "deadline": "5s",
			 "backoff": {"kind": "exponential", "base": "200ms", "max": "2s"}, "jitter": {"kind": "full"}}
		]
	}`))
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	for _, st := range res.Strategies {
		m := st.Metrics
		fmt.Printf("%s: %v attempts, peak %v per 10 ms, %.1f%% succeeded\n", st.Name, m.Attempts, m.PeakPer10ms, 100*m.SuccessRate)
	}
	// Output:
	// A: 3063 attempts, peak 233 per 10 ms, 98.5% succeeded
	// C: 3038 attempts, peak 13 per 10 ms, 100.0% succeeded
}

// Every problem in a scenario is reported at once, each naming its field.
func ExampleParse_errors() {
	_, err := engine.Parse([]byte(`{
		"version": 1, "name": "broken",
		"workload": {"clients": 0, "arrival": "poisson", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "fast"}, "queue_capacity": 10},
		"strategies": [{"name": "a", "max_attempts": 1}, {"name": "b", "max_attempts": 1}, {"name": "c", "max_attempts": 0, "retry": 3}]
	}`))
	for _, e := range engine.AsErrors(err) {
		fmt.Println(e)
	}
	_, err = engine.Parse([]byte(`{
		"version": 1, "name": "broken",
		"workload": {"clients": 0, "arrival": "poisson", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "40ms"}, "queue_capacity": 10},
		"strategies": [{"name": "a", "max_attempts": 1}, {"name": "b", "max_attempts": 1}, {"name": "c", "max_attempts": 101}]
	}`))
	for _, e := range engine.AsErrors(err) {
		fmt.Println(e)
	}
	// Output:
	// dependency.service_time.mean: "fast" is not a duration such as "250ms" or "2s"
	// strategies[2].retry: is not a known field; allowed: name, description, preset, based_on, max_attempts, attempt_timeout, deadline, min_attempt_time, backoff, jitter, retry_on, honor_retry_after, retry_after, max_elapsed, retry_non_idempotent, idempotency_key, dead_letter, budget, breaker, adaptive, throttle, client_rate_limit, instances, hedging, connection_limits, retry_host_predicate, host_selection_retry_max_attempts, layers, pool, bulkheads, fallbacks
	// workload.clients: 0 is out of range 1..1000000
	// strategies[2].max_attempts: 101 is out of range 0..100
}

// Decoding is strict about JSON itself: a missing version, a key written twice
// and a number that is not the whole number a count needs are reported
// together; a truncated document gives the position where it ends.
func ExampleDecode_strict() {
	_, err := engine.Decode([]byte(`{"name": "strict", "seed": 1, "seed": 2,
		"workload": {"clients": 1e-400, "arrival": "burst"}}`))
	fmt.Println(err)
	_, err = engine.Decode([]byte("{\"version\": 1,\n \"strategies\": [{\"name\": \"a\""))
	fmt.Println(err)
	// Output:
	// version: is missing; a scenario must say "version": 1 (the only version this engine reads)
	// seed: duplicate key: a key may appear only once in an object
	// workload.clients: 1e-400 is not a whole number
	// invalid JSON at line 2, column 29 (byte offset 43): the document ends too early, inside the object that starts at line 2, column 17 (byte offset 31)
}

// A scripted dependency replays the answers of an incident's log, in the
// order calls arrive, and each strategy meets the same log from its start:
// two attempts give up on the first call, where five see it through.
func ExampleRun_script() {
	sc, err := engine.Parse([]byte(`{
		"version": 1, "name": "replayed incident",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 5},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"script": {"answers": [
				{"status": 503}, {"status": 503}, {"status": 503, "latency": "5ms"},
				{"status": 200, "latency": "20ms"}, {"error": "connection"},
				{"status": 200, "latency": "30ms"}, {"status": 200}, {"status": 200}],
				"then": "serve"}},
		"strategies": [
			{"name": "two", "max_attempts": 2},
			{"name": "five", "max_attempts": 5}
		]
	}`))
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	for _, st := range res.Strategies {
		m := st.Metrics
		fmt.Printf("%s: %v of %v succeeded, %v attempts, slowest %v ms\n", st.Name, m.Succeeded, m.Operations, m.Attempts, m.LatencyMaxms)
	}
	// Output:
	// two: 4 of 5 succeeded, 8 attempts, slowest 30 ms
	// five: 5 of 5 succeeded, 9 attempts, slowest 30 ms
}
