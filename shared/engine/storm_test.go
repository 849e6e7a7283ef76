package engine

import (
	"encoding/json"
	"os"
	"testing"
)

// stormJSON is a small synthetic metastable scenario: 400 operations/s
// against a dependency of 500/s whose failures climb with offered load
// from 500/s (none) to 800/s (all), and a client that retries 6 times
// 50 ms apart. A 2 s outage from 5 s makes every operation retry at
// once: the offered load climbs past 800/s, every call fails, the
// retries keep it there after the outage ends.
const stormJSON = `{
  "version": 1, "name": "synthetic storm", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 400, "duration": "30s"},
  "dependency": {
    "workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 200,
    "load_errors": {"window": "1s", "status": 503, "points": [{"load": 500, "rate": 0}, {"load": 800, "rate": 1}]},
    "phases": [{"kind": "outage", "from": "5s", "to": "7s", "status": 503}]
  },
  "strategies": [{"name": "eager", "max_attempts": 6, "attempt_timeout": "1s",
    "backoff": {"kind": "constant", "base": "50ms"}}]
}`

func stormScenario(tb testing.TB) *Scenario {
	tb.Helper()
	sc, err := Parse([]byte(stormJSON))
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

// builtin returns the catalogue's scenario of slug.
func builtin(tb testing.TB, slug string) *Scenario {
	tb.Helper()
	data, err := os.ReadFile("../scenarios/catalog/" + slug + ".json")
	if err != nil {
		tb.Fatal(err)
	}
	var b struct{ Scenario json.RawMessage }
	if err := json.Unmarshal(data, &b); err != nil {
		tb.Fatal(err)
	}
	sc, err := Parse(b.Scenario)
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}
