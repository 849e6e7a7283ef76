package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary documents to the decoder and validator. Neither
// may panic; every error names a path (or says the document itself is not a
// scenario); a valid scenario survives a round trip through its canonical
// form; and a small valid one runs.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"version": 1}`))
	f.Add([]byte(`{"version": 1, "strategies": [{"name": "a", "max_attempts": 1e400}]}`))
	f.Add([]byte(`{"version": 1, "sweep": {"path": "strategies[0].max_attempts", "values": [1, "x"]}}`))
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 3, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1, "error_rate": 0.5,
			"network": {"request": {"kind": "normal", "mean": "10ms", "stddev": "2ms"}, "answer": {"kind": "lognormal", "p50": "1ms", "p99": "5ms"}}},
		"strategies": [{"name": "a", "max_attempts": 0, "deadline": "1s", "layers": [{"max_attempts": 2, "attempt_timeout": "15ms"}]}]}`))
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 4, "arrival": "burst", "mix": {"non_idempotent": 0.5, "keyed": 0.5}},
		"dependency": {"workers": 1, "service_time": {"kind": "exponential", "mean": "3ms"}, "queue_capacity": 2, "contention": {"status": 412},
			"phases": [{"kind": "freeze", "from": "5ms", "to": "30ms"}],
			"network": {"request": {"kind": "normal", "mean": "4ms", "stddev": "2ms"}}},
		"strategies": [{"name": "a", "max_attempts": 0, "deadline": "1s", "retry_on": {"statuses": [412], "timeout": true}, "retry_non_idempotent": true,
			"layers": [{"max_attempts": 3, "attempt_timeout": "9ms", "retry_on": {"statuses": [412], "timeout": true}}]}]}`))
	// Several dependencies: a plan, a pool, a bulkhead, shedding, scopes
	// and hedging.
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 4, "arrival": "burst",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b", "class": "sheddable", "share": 0.5}]},
				{"calls": [{"dependency": "a", "name": "a2"}]}]},
		"dependencies": [{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "2ms"}, "queue_capacity": 2,
				"network": {"request": {"kind": "constant", "mean": "1ms"}}, "phases": [{"kind": "outage", "from": "0s", "to": "5ms"}]},
			{"name": "b", "workers": 1, "service_time": {"kind": "exponential", "mean": "3ms"}, "queue_capacity": 3,
				"shedding": {"measure": "load", "thresholds": {"sheddable": 1}, "status": 429}}],
		"strategies": [{"name": "s", "max_attempts": 3, "deadline": "1s", "pool": {"slots": 2, "max_waiting": 2, "max_wait": "10ms"},
			"bulkheads": [{"dependency": "b", "max_concurrent": 1}], "fallbacks": [{"call": "b"}, {"call": "a2", "latency": "1ms"}],
			"breaker": {"kind": "consecutive", "failures": 2, "break": "5ms", "scope": "client"},
			"budget": {"kind": "token_bucket", "max_tokens": 4, "token_ratio": 0.5, "scope": "dependency"},
			"layers": [{"max_attempts": 2, "attempt_timeout": "8ms", "hedging": {"delay": "3ms", "delay_percentile": 50, "window": 20}}]}]}`))
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 2, "arrival": "burst", "plan": [{"calls": [{"dependency": "dependency"}, {"dependency": "dependency", "name": "again", "class": "critical_plus"}]}]},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1,
			"shedding": {"measure": "queue", "thresholds": {"critical": 0}}},
		"strategies": [{"name": "h", "max_attempts": 2, "attempt_timeout": "5ms", "hedging": {"delay": "0s"}, "pool": {"slots": 1}}]}`))
	f.Add([]byte(`{"version": 1, "dependency": {"name": "x"}, "dependencies": [{"name": "x"}, {"name": "x", "shedding": {"thresholds": {"": 1, "critical": null}}}],
		"workload": {"plan": [{"calls": []}, {"calls": [{"dependency": "y", "share": 0}]}]},
		"strategies": [{"name": "s", "fallbacks": [{"call": "z"}, {}], "hedging": {"delay_percentile": 100}, "bulkheads": [{"dependency": "x"}, {"dependency": "x"}], "layers": [{"max_attempts": 1, "hedging": {"window": 5}}]}]}`))
	// Scripts: answers in arrival order, and a list per operation.
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 2, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1,
			"script": {"then": "repeat", "answers": [{"status": 503, "latency": "2ms"}, {"error": "connection"}, {"status": 200}]}},
		"strategies": [{"name": "a", "max_attempts": 3, "attempt_timeout": "1ms"}]}`))
	f.Add([]byte(`{"version": 1, "dependency": {"script": {"then": "last", "operations": [[], [{"status": 0, "error": "x", "latency": "1ms"}], null], "answers": [{}]}}}`))
	// Overload control: a queue discipline with CoDel's parameters, a
	// rate limiter, and both out of range.
	f.Add([]byte(`{"version": 1, "name": "n", "workload": {"clients": 3, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 2,
			"queue_discipline": "adaptive-lifo", "codel": {"target": "1ms", "interval": "2ms"},
			"rate_limit": {"rate": 1000, "burst": 2, "retry_after_unit": "1ms"},
			"concurrency_limit": {"initial": 3, "min": 1, "max": 8, "backoff_ratio": 0.5, "timeout": "20ms", "status": 429}},
		"strategies": [{"name": "a", "max_attempts": 3, "honor_retry_after": true}]}`))
	f.Add([]byte(`{"version": 1, "dependency": {"queue_discipline": "codel", "codel": {"target": "1h", "interval": "-1ns"}, "rate_limit": {"rate": 1e-400, "burst": 1e7}}}`))
	f.Add([]byte(`[] {}`))
	f.Add([]byte(`{"version": 1, "seed": 1, "seed": 2, "strategies": [{"name": "a", "name": "b"}]}`))
	f.Add([]byte(`{"version": 1, "seed": 1e-400, "dependency": {"error_rate": 1e-400}}`))
	f.Add([]byte(`{"seed": 1, "workload": {"clients": 3.0e1`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			es := AsErrors(err)
			if len(es) == 0 {
				t.Fatalf("error %v is not a list of field errors", err)
			}
			for _, e := range es {
				if e.Path == "" && !strings.Contains(e.Message, "JSON") && !strings.Contains(e.Message, "scenario") {
					t.Fatalf("error %q names no path", e.Error())
				}
			}
			return
		}
		canon := sc.Canonical()
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, canon)
		}
		if !bytes.Equal(again.Canonical(), canon) {
			t.Fatalf("canonical form is not stable:\n%s\n%s", canon, again.Canonical())
		}
		if Estimate(sc) <= 200_000 {
			if _, err := Run(context.Background(), sc, Options{MaxEvents: 1_000_000, NoSeries: true}); err != nil && !IsCost(err) {
				if !strings.Contains(err.Error(), "limit") {
					t.Fatalf("run: %v", err)
				}
			}
		}
	})
}
