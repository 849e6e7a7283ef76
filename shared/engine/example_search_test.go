package engine_test

import (
	"context"
	"fmt"

	"github.com/retrylab/retrylab/shared/engine"
)

// A search tries every combination of a strategy's knobs, here E03-B's
// strategy C's attempts, backoff base and retry budget, by successive
// halving over the seeds (8 candidates: every one is kept), and recommends
// the settings with the highest affected success among the Pareto
// frontier that keeps the 100 ms peak at most 60. The budget of 10% of
// first attempts over 1 s allows about nine retries in all: the attempts
// and backoff then change nothing.
func ExampleRun_search() {
	sc, err := engine.Parse([]byte(`{
		"version": 1, "name": "E03-B", "seed": 1, "runs": 4,
		"workload": {"clients": 200, "rate": 95, "duration": "30s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "40ms"}, "queue_capacity": 100,
			"phases": [{"kind": "freeze", "from": "8.5s", "to": "10s", "status": 503},
			           {"kind": "capacity", "from": "10s", "to": "15s", "workers": 5}]},
		"strategies": [
			{"name": "C", "max_attempts": 4, "attempt_timeout": "2s", "deadline": "5s",
			 "backoff": {"kind": "exponential", "base": "200ms", "max": "2s"}, "jitter": {"kind": "full"}}
		],
		"search": {
			"strategy": "C",
			"knobs": [
				{"path": "max_attempts", "values": [2, 4]},
				{"path": "backoff.base", "values": ["100ms", "500ms"]},
				{"path": "budget", "values": [null, {"kind": "ratio", "ratio": 0.1, "window": "1s"}]}
			],
			"objectives": [{"metric": "affected_success_rate", "goal": "max"}, {"metric": "peak_per_100ms", "goal": "min"}],
			"constraints": [{"metric": "peak_per_100ms", "op": "<=", "value": 60}]
		}
	}`))
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	s := res.Search
	fmt.Println("rounds:", s.Rounds, "simulations:", s.Simulations)
	for _, p := range s.Frontier {
		fmt.Printf("max_attempts %s, backoff.base %s, budget %s: affected success %.4f, peak %v\n",
			p.Settings["max_attempts"], p.Settings["backoff.base"], p.Settings["budget"], p.Metrics.AffectedSuccessRate, p.Metrics.PeakPer100ms)
	}
	fmt.Println(s.Recommendation.Reason)
	// Output:
	// rounds: [{1 8} {2 8} {4 8}] simulations: 32
	// max_attempts 4, backoff.base "500ms", budget null: affected success 1.0000, peak 42.5
	// max_attempts 2, backoff.base "100ms", budget {"kind":"ratio","ratio":0.1,"window":"1s"}: affected success 0.7907, peak 20
	// max_attempts 2, backoff.base "500ms", budget {"kind":"ratio","ratio":0.1,"window":"1s"}: affected success 0.7907, peak 20
	// max_attempts 4, backoff.base "100ms", budget {"kind":"ratio","ratio":0.1,"window":"1s"}: affected success 0.7907, peak 20
	// max_attempts 4, backoff.base "500ms", budget {"kind":"ratio","ratio":0.1,"window":"1s"}: affected success 0.7907, peak 20
	// max_attempts 4, backoff.base "500ms", budget null gives the highest mean affected_success_rate (100.00%) of the 5 frontier points that meet peak_per_100ms <= 60 on average, out of 8 candidates over 4 seeds, with peak_per_100ms 42.5.
}
