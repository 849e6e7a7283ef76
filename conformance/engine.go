// Package conformance compares the retry presets of RetryLab's engine with
// the real libraries they are named after. The libraries are driven in the
// tests of this package (one file per library); this file drives the
// engine through its public API only, so that the comparison tests what a
// user of the engine gets.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// PresetPolicy returns the policy JSON of the named preset of
// shared/scenarios/presets.json.
func PresetPolicy(name string) (json.RawMessage, error) {
	for _, p := range scenarios.Presets() {
		if p.Name == name {
			return p.Policy, nil
		}
	}
	return nil, fmt.Errorf("no preset %q in presets.json", name)
}

// Policy returns the named preset's policy as a map, with override's
// fields on top; a field overridden with nil is removed (no budget, no
// deadline). The result is a complete policy: it no longer names the preset.
func Policy(preset string, override map[string]any) (map[string]any, error) {
	raw, err := PresetPolicy(preset)
	if err != nil {
		return nil, err
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	for k, v := range override {
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
	}
	return p, nil
}

// EngineWaits returns the waits the engine chooses before retries 1..n of
// one operation under policy, on the given seed.
//
// The engine exports no wait function, so the waits are measured: one
// client makes one operation against a dependency that answers every call
// 503 at once (an outage phase, no network, no service time); strategy k
// is the policy with max_attempts k, so its operation's latency is the sum
// of the first k-1 waits, and the waits are the differences. Jitter draws
// are keyed by (seed, client, operation, attempt), so every strategy sees
// the same draws. n is at most 19 (the engine allows 20 strategies).
// Latencies come back in milliseconds with 3 decimals, so a wait, the
// difference of two of them, is within 1 µs of the engine's. The policy must retry 503 and have no budget or breaker
// that stops it within n retries.
func EngineWaits(policy map[string]any, n int, seed int64) ([]time.Duration, error) {
	return EngineWaitsRetryAfter(policy, n, seed, 0)
}

// EngineWaitsRetryAfter is EngineWaits with every 503 carrying a
// Retry-After of after (none when 0).
func EngineWaitsRetryAfter(policy map[string]any, n int, seed int64, after time.Duration) ([]time.Duration, error) {
	return EngineWaitsStatus(policy, n, seed, 503, after)
}

// EngineWaitsStatus is EngineWaits with every call answered status, each
// answer carrying a Retry-After of after (none when 0).
func EngineWaitsStatus(policy map[string]any, n int, seed int64, status int, after time.Duration) ([]time.Duration, error) {
	var ra map[string]any
	if after > 0 {
		ra = map[string]any{"statuses": []int{status}, "after": after.String()}
	}
	phases := []any{map[string]any{"kind": "outage", "from": "0s", "to": "24h", "status": status}}
	return EngineWaitsPhases(policy, n, seed, phases, ra)
}

// EngineWaitsPhases is EngineWaits against a dependency whose answers
// follow phases (outages answering at once, by time since the call
// began), with retryAfter as its retry_after (none when nil): a script of
// answers per attempt, when the attempts' times are known.
func EngineWaitsPhases(policy map[string]any, n int, seed int64, phases []any, retryAfter map[string]any) ([]time.Duration, error) {
	if n < 1 || n > 19 {
		return nil, fmt.Errorf("n = %d: between 1 and 19 waits can be measured at once", n)
	}
	var strategies []map[string]any
	for k := 1; k <= n+1; k++ {
		s := withName(policy, fmt.Sprintf("attempts-%d", k))
		s["max_attempts"] = k
		strategies = append(strategies, s)
	}
	sc := map[string]any{
		"version":  1,
		"name":     "conformance: waits",
		"seed":     seed,
		"workload": map[string]any{"clients": 1, "arrival": "burst"},
		"dependency": map[string]any{
			"workers": 1, "service_time": map[string]any{"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": phases,
		},
		"strategies": strategies,
	}
	if retryAfter != nil {
		sc["dependency"].(map[string]any)["retry_after"] = retryAfter
	}
	res, err := runScenario(sc, true)
	if err != nil {
		return nil, err
	}
	waits := make([]time.Duration, n)
	for k := 1; k <= n; k++ {
		a, b := res.Strategies[k-1].Metrics, res.Strategies[k].Metrics
		if b.Attempts != float64(k+1) {
			return nil, fmt.Errorf("max_attempts %d made %v attempts, not %d: something other than the attempt limit stopped it (deadline, budget, breaker)", k+1, b.Attempts, k+1)
		}
		waits[k-1] = msToDuration(b.LatencyMaxms) - msToDuration(a.LatencyMaxms)
	}
	return waits, nil
}

// EngineFailing runs one operation under policy against a dependency that
// answers every call 503 at once for 24 hours, and returns its metrics.
func EngineFailing(policy map[string]any) (*engine.Metrics, error) {
	s := withName(policy, "failing")
	sc := map[string]any{
		"version":  1,
		"name":     "conformance: always failing",
		"seed":     1,
		"workload": map[string]any{"clients": 1, "arrival": "burst"},
		"dependency": map[string]any{
			"workers": 1, "service_time": map[string]any{"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": []any{map[string]any{"kind": "outage", "from": "0s", "to": "24h", "status": 503}},
		},
		"strategies": []any{s},
	}
	res, err := runScenario(sc, true)
	if err != nil {
		return nil, err
	}
	return &res.Strategies[0].Metrics, nil
}

// A Call is what a scripted call meets at the dependency, in short: see
// CallScript for any sequence of answers.
type Call int

const (
	// Success: the first attempt succeeds.
	Success Call = iota
	// FailOnce: the first attempt fails, every later one succeeds.
	FailOnce
	// FailAll: every attempt fails.
	FailAll
)

// ConnectionError, as the status of a script, makes its failures
// connection errors instead of an answer.
const ConnectionError = -1

// An Answer is what one attempt meets at the dependency: Status (200 a
// success, ConnectionError a connection error) after Latency. A latency
// longer than the policy's attempt timeout is a timeout.
type Answer struct {
	Status  int
	Latency time.Duration
}

// AttemptTimeout is the attempt timeout that comparisons with scripted
// timeouts give the engine's policy; TimedOut is an answer that comes
// after it: a timeout.
const AttemptTimeout = time.Second

// TimedOut is a scripted timeout: a success that comes too late.
var TimedOut = Answer{Status: 200, Latency: 2 * AttemptTimeout}

// IsTimeout reports whether a is a scripted timeout.
func (a Answer) IsTimeout() bool { return a.Latency >= AttemptTimeout }

// A CallScript is what one call's attempts meet, in order: attempt k gets
// answer k, and past the end the last answer repeats ("fails twice, then
// succeeds" is {503, 503, 200}).
type CallScript []Answer

// Script returns the call's script, failing with status.
func (c Call) Script(status int) CallScript {
	switch c {
	case FailOnce:
		return CallScript{{Status: status}, {Status: 200}}
	case FailAll:
		return CallScript{{Status: status}}
	}
	return CallScript{{Status: 200}}
}

// Scripts returns the scripts of calls, failing with status.
func Scripts(calls []Call, status int) []CallScript {
	s := make([]CallScript, len(calls))
	for k, c := range calls {
		s[k] = c.Script(status)
	}
	return s
}

// Spacing is the time between two scripted calls in the engine: longer
// than any call of the presets compared takes with its waits, so calls
// never overlap and each series bucket holds one call's attempts. It is
// 4096 × 10 ms: the engine's counting bins start at 10 ms and double to
// fit a long run, and the series bucket must stay a whole number of them.
const Spacing = 40960 * time.Millisecond

// EngineScript runs policy in the engine over a script of sequential
// calls failing with status and returns the attempts each call made: see
// EngineCalls.
func EngineScript(policy map[string]any, status int, script []Call) ([]int, *engine.Result, error) {
	return EngineCalls(policy, Scripts(script, status), Spacing)
}

// EngineScriptSpaced is EngineScript with calls sp apart.
func EngineScriptSpaced(policy map[string]any, status int, script []Call, sp time.Duration) ([]int, *engine.Result, error) {
	return EngineCalls(policy, Scripts(script, status), sp)
}

// EngineScriptRetryAfter is EngineScript with every failure answered
// status carrying a Retry-After (or a server pushback) of after, which
// may be negative: gRPC's grpc-retry-pushback-ms of -1 is -1ms.
func EngineScriptRetryAfter(policy map[string]any, status int, script []Call, after time.Duration) ([]int, *engine.Result, error) {
	return engineCalls(policy, Scripts(script, status), Spacing, map[string]any{"statuses": []int{status}, "after": after.String()})
}

// EngineCalls runs policy in the engine over sequential calls, call k's
// attempts answered from scripts[k], and returns the attempts each call
// made.
//
// The dependency is the engine's scripted dependency (dependency.script)
// with a list per operation: operation k's n-th attempt gets
// scripts[k][n], and past the end of its list the last answer again
// ("then": "last"), as CallScript says. Call k starts at k·sp (one client,
// uniform arrivals); a call must end within sp (an error otherwise), so
// that calls do not overlap and attempts per call can be read off the
// series, one bucket per call. sp must be a whole number of 10 ms, times a
// power of 2 large enough for the run's span (the engine coarsens its
// counting bins by doubling).
func EngineCalls(policy map[string]any, scripts []CallScript, sp time.Duration) ([]int, *engine.Result, error) {
	return engineCalls(policy, scripts, sp, nil)
}

// engineCalls is EngineCalls with the dependency's retry_after, when not nil.
func engineCalls(policy map[string]any, scripts []CallScript, sp time.Duration, retryAfter map[string]any) ([]int, *engine.Result, error) {
	operations := make([]any, len(scripts))
	for k, cs := range scripts {
		if len(cs) == 0 {
			return nil, nil, fmt.Errorf("call %d has an empty script", k)
		}
		answers := make([]any, len(cs))
		for n, a := range cs {
			am := map[string]any{}
			if a.Status == ConnectionError {
				am["error"] = "connection"
			} else {
				am["status"] = a.Status
			}
			if a.Latency > 0 {
				am["latency"] = a.Latency.String()
			}
			answers[n] = am
		}
		operations[k] = answers
	}
	s := withName(policy, "scripted")
	sc := map[string]any{
		"version": 1,
		"name":    "conformance: script",
		"seed":    1,
		"workload": map[string]any{"clients": 1, "arrival": "uniform", "rate": 1 / sp.Seconds(),
			"operations": len(scripts)},
		"dependency": map[string]any{
			"workers": 1, "service_time": map[string]any{"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"script": map[string]any{"operations": operations, "then": "last"},
		},
		"strategies": []any{s},
		"report":     map[string]any{"series_bucket": sp.String()},
	}
	if retryAfter != nil {
		sc["dependency"].(map[string]any)["retry_after"] = retryAfter
	}
	res, err := runScenario(sc, false)
	if err != nil {
		return nil, nil, err
	}
	st := res.Strategies[0]
	if int(st.Metrics.Operations) != len(scripts) {
		return nil, nil, fmt.Errorf("the engine ran %v operations for a script of %d calls", st.Metrics.Operations, len(scripts))
	}
	if st.Metrics.LatencyMaxms >= float64(sp.Milliseconds()) {
		return nil, nil, fmt.Errorf("a call lasted %v ms, past the %v to the next call", st.Metrics.LatencyMaxms, sp)
	}
	if st.Series == nil || st.Series.BucketMS != float64(sp.Milliseconds()) {
		return nil, nil, fmt.Errorf("the engine's series buckets are not %v: calls cannot be told apart", sp)
	}
	attempts := make([]int, len(scripts))
	for k := range attempts {
		if k < len(st.Series.Attempts) {
			attempts[k] = int(st.Series.Attempts[k])
		}
	}
	return attempts, res, nil
}

func msToDuration(ms float64) time.Duration {
	// Latencies are rounded to 3 decimals of a millisecond: round to the
	// microsecond.
	us := ms * 1000
	if us >= 0 {
		us += 0.5
	} else {
		us -= 0.5
	}
	return time.Duration(int64(us)) * time.Microsecond
}

// runScenario parses a scenario given as Go values (presets expanded) and
// runs it without series.
func runScenario(sc map[string]any, noSeries bool) (*engine.Result, error) {
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	parsed, err := scenarios.Parse(data)
	if err != nil {
		return nil, err
	}
	return engine.Run(context.Background(), parsed, engine.Options{NoSeries: noSeries})
}

// RunScenario is runScenario for scenarios written as JSON text, presets
// expanded, keeping the series (for breaker transitions and attempts over
// time).
func RunScenario(data []byte) (*engine.Result, error) {
	parsed, err := scenarios.Parse(data)
	if err != nil {
		return nil, err
	}
	return engine.Run(context.Background(), parsed, engine.Options{})
}

// engineTransition is a breaker transition in the engine's result.
type engineTransition = engine.Transition

// mustJSON encodes v, which holds only JSON values.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// withName returns a copy of policy as a strategy named name.
func withName(policy map[string]any, name string) map[string]any {
	s := make(map[string]any, len(policy)+1)
	for k, v := range policy {
		s[k] = v
	}
	s["name"] = name
	return s
}
