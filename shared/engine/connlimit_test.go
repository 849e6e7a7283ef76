package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// connScenario is n clients starting one operation each at t=0 against a
// dependency of 100 workers serving in 100 ms, with the strategies given
// (a JSON list).
func connScenario(n int, strategies string) string {
	return fmt.Sprintf(`{"version": 1, "name": "conns",
		"workload": {"clients": %d, "arrival": "burst"},
		"dependency": {"workers": 100, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 100},
		"strategies": %s}`, n, strategies)
}

// connDurations runs strategy i of js and returns how long each operation
// lasted, shortest first.
func connDurations(t *testing.T, js string, i int) []time.Duration {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var d []time.Duration
	simPlan(t, sc, i, func(s *sim, what string, id int32) {
		if what == "end" {
			d = append(d, time.Duration(s.now-s.ops[id].start))
		}
	})
	slices.Sort(d)
	return d
}

// TestConnectionLimits works out by hand what Envoy's connection pool does
// with attempts that all start at t=0 and take 100 ms each.
func TestConnectionLimits(t *testing.T) {
	const ms = time.Millisecond
	retry := `"max_attempts": 3, "attempt_timeout": "1s", "retry_on": {"statuses": [503]}`
	for _, tc := range []struct {
		name, strategy string
		clients        int
		// what the run counts
		attempts, succeeded, overflowed, gaveUpOverflow, gaveUpDeadline float64
		durations                                                       []time.Duration
	}{{
		// 2 go, 2 wait for the first connections freed (sent at 100 ms,
		// answered at 200 ms), 2 overflow: answered 503 at once, and not
		// retried although the policy retries 503.
		name:     "connections and pending line",
		strategy: `{"name": "s", ` + retry + `, "connection_limits": {"max_connections": 2, "max_pending": 2}}`,
		clients:  6, attempts: 4, succeeded: 4, overflowed: 2, gaveUpOverflow: 2,
		durations: []time.Duration{0, 0, 100 * ms, 100 * ms, 200 * ms, 200 * ms},
	}, {
		// Over max_requests an attempt overflows at once: no line.
		name:     "requests",
		strategy: `{"name": "s", ` + retry + `, "connection_limits": {"max_requests": 3, "max_pending": 0}}`,
		clients:  5, attempts: 3, succeeded: 3, overflowed: 2, gaveUpOverflow: 2,
		durations: []time.Duration{0, 0, 100 * ms, 100 * ms, 100 * ms},
	}, {
		// max_requests below max_connections: the requests limit decides,
		// and the line is never used.
		name:     "requests below connections",
		strategy: `{"name": "s", ` + retry + `, "connection_limits": {"max_connections": 4, "max_pending": 4, "max_requests": 1}}`,
		clients:  3, attempts: 1, succeeded: 1, overflowed: 2, gaveUpOverflow: 2,
		durations: []time.Duration{0, 0, 100 * ms},
	}, {
		// One connection, deadline 150 ms: the second attempt leaves the
		// line at 100 ms and its deadline cuts it at 150 ms; the third is
		// still waiting at 150 ms and ends there, never sent.
		name:     "deadline in the line",
		strategy: `{"name": "s", "max_attempts": 3, "retry_on": {"statuses": [503], "timeout": true}, "deadline": "150ms", "connection_limits": {"max_connections": 1, "max_pending": 5}}`,
		clients:  3, attempts: 2, succeeded: 1, gaveUpDeadline: 2,
		durations: []time.Duration{100 * ms, 150 * ms, 150 * ms},
	}, {
		// The attempt timeout (150 ms) starts when the attempt gets its
		// connection, at 100 ms: the answer at 200 ms is in time.
		name:     "attempt timeout from the connection",
		strategy: `{"name": "s", "max_attempts": 1, "attempt_timeout": "150ms", "connection_limits": {"max_connections": 1, "max_pending": 1}}`,
		clients:  2, attempts: 2, succeeded: 2,
		durations: []time.Duration{100 * ms, 200 * ms},
	}, {
		// The limits are the proxy's, an inner level: the client's level
		// hears a 503 and retries it as any 503. The second client's
		// three tries all overflow while the first's attempt is out.
		name:     "an outer level retries the 503",
		strategy: `{"name": "s", ` + retry + `, "layers": [{"max_attempts": 1, "connection_limits": {"max_requests": 1}}]}`,
		clients:  2, attempts: 4, succeeded: 1, overflowed: 3,
		durations: []time.Duration{0, 100 * ms},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			js := connScenario(tc.clients, "["+tc.strategy+"]")
			m := mustRun(t, js).Strategies[0].Metrics
			if m.Attempts != tc.attempts || m.Succeeded != tc.succeeded || m.Overflowed != tc.overflowed ||
				m.GaveUpOverflow != tc.gaveUpOverflow || m.GaveUpDeadline != tc.gaveUpDeadline {
				t.Errorf("attempts %v, succeeded %v, overflowed %v, gave up overflow %v, deadline %v; want %v, %v, %v, %v, %v",
					m.Attempts, m.Succeeded, m.Overflowed, m.GaveUpOverflow, m.GaveUpDeadline,
					tc.attempts, tc.succeeded, tc.overflowed, tc.gaveUpOverflow, tc.gaveUpDeadline)
			}
			if got := connDurations(t, js, 0); !slices.Equal(got, tc.durations) {
				t.Errorf("operations lasted %v, want %v", got, tc.durations)
			}
		})
	}
}

// TestConnectionLimitsAreEachInstances: each instance of the level has
// its own limits, as each Envoy has its own circuit breakers.
func TestConnectionLimitsAreEachInstances(t *testing.T) {
	js := connScenario(4, `[{"name": "s", "max_attempts": 1, "instances": 2, "connection_limits": {"max_requests": 1}}]`)
	if m := mustRun(t, js).Strategies[0].Metrics; m.Overflowed != 2 || m.Succeeded != 2 {
		t.Errorf("overflowed %v, succeeded %v; want 2 and 2 (one attempt out per instance)", m.Overflowed, m.Succeeded)
	}
}

func TestConnectionLimitsValidate(t *testing.T) {
	for _, tc := range []struct{ limits, extra, want string }{
		{`{}`, "", "sets no limit"},
		{`{"max_pending": 3}`, "", "max_pending: 3 has no meaning without max_connections"},
		{`{"max_requests": -1}`, "", "max_requests: -1 is out of range 1..1000000, or 0 (or absent): no limit"},
		{`{"max_connections": 2000000}`, "", "max_connections: 2000000 is out of range"},
		{`{"max_requests": 5}`, `, "hedging": {"delay": "10ms"}`, "is given together with hedging"},
	} {
		js := connScenario(1, `[{"name": "s", "max_attempts": 2, "connection_limits": `+tc.limits+tc.extra+`}]`)
		_, err := Parse([]byte(js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("connection_limits %s%s: error %v, want one saying %q", tc.limits, tc.extra, err, tc.want)
		}
	}
}
