package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Scenarios for TestZeroIsTheDefault: each holds one %s, where the field
// under test goes (with its comma), so that the field is absent when it
// is "".
const (
	// zeroOutliers: two backends, backend 0 failing with 503s for a
	// while, behind outlier detection.
	zeroOutliers = `{"version": 1, "name": "zeros",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 20, "duration": "120s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"backends": {"count": 2, "outlier_detection": {"max_ejection_percent": 100%s}},
			"phases": [{"kind": "errors", "rate": 1, "status": 503, "from": "0s", "to": "100s", "backends": [0]}]},
		"strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]}`
	// zeroOverload: a dependency loaded past its two workers, with a
	// queue discipline, a rate limiter or a concurrency limit.
	zeroOverload = `{"version": 1, "name": "zeros",
		"workload": {"clients": 1, "arrival": "poisson", "rate": 300, "duration": "10s"},
		"dependency": {"workers": 2, "service_time": {"kind": "exponential", "mean": "10ms"}, "queue_capacity": 1000%s},
		"strategies": [{"name": "retry", "max_attempts": 3, "attempt_timeout": "2s", "honor_retry_after": true,
			"backoff": {"kind": "constant", "base": "100ms"}}]}`
	// zeroPolicy: a flaky dependency behind two backends, and a strategy
	// whose policy takes the field.
	zeroPolicy = `{"version": 1, "name": "zeros",
		"workload": {"clients": 1, "arrival": "poisson", "rate": 50, "duration": "20s"},
		"dependency": {"workers": 8, "service_time": {"kind": "exponential", "mean": "20ms"}, "queue_capacity": 100,
			"error_rate": 0.3, "backends": {"count": 4, "balancer": "least_request"},
			"phases": [{"kind": "outage", "from": "5s", "to": "10s", "backends": [0, 1]}]},
		"strategies": [{"name": "s", "max_attempts": 3, "attempt_timeout": "1s"%s}]}`
)

// TestZeroIsTheDefault walks every field whose 0, which JSON cannot tell
// from its absence, means a default: 0 gives the same result as the
// default written out (and as the field left out), a value other than
// the default gives another (the scenario depends on the field), and a
// negative value is refused with an error naming field, value and the
// allowed range, 0 included.
func TestZeroIsTheDefault(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		// field wraps a value into the JSON the scenario's %s takes.
		field func(value string) string
		// zero and def are the field's 0 and its default written out;
		// other is a value that changes the result ("": none here; the
		// results count refusals, not their status).
		zero, def, other string
		// negative is refused with want: the path, the value and the
		// allowed range, its 0 included.
		negative, want string
	}{
		{"consecutive_5xx", zeroOutliers, member("consecutive_5xx"), `0`, `5`, `2`, `-1`,
			`dependency.backends.outlier_detection.consecutive_5xx: -1 is out of range 1..1000, or 0 (or absent): the default, 5`},
		{"consecutive_gateway_failure", zeroOutliers, member("consecutive_gateway_failure"), `0`, ``, `2`, `-1`,
			`dependency.backends.outlier_detection.consecutive_gateway_failure: -1 is out of range 1..1000, or 0 (or absent): the default, no gateway ejection`},
		{"outlier interval", zeroOutliers, member("interval"), `"0s"`, `"10s"`, `"1s"`, `"-1s"`,
			`dependency.backends.outlier_detection.interval: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 10s`},
		{"base_ejection_time", zeroOutliers, member("base_ejection_time"), `"0s"`, `"30s"`, `"5s"`, `"-1s"`,
			`dependency.backends.outlier_detection.base_ejection_time: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 30s`},
		{"max_ejection_time", zeroOutliers, member("max_ejection_time"), `"0s"`, `"300s"`, `"30s"`, `"-1s"`,
			`dependency.backends.outlier_detection.max_ejection_time: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, the longer of 300s and base_ejection_time`},

		{"codel target", zeroOverload, codel("target"), `"0s"`, `"5ms"`, `"50ms"`, `"-1ms"`,
			`dependency.codel.target: "-1ms" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 5ms`},
		{"codel interval", zeroOverload, codel("interval"), `"0s"`, `"100ms"`, `"20ms"`, `"-1ms"`,
			`dependency.codel.interval: "-1ms" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 100ms`},
		{"retry_after_unit", zeroOverload, object("rate_limit", `"rate": 100, "burst": 5, `, "retry_after_unit"), `"0s"`, `"1s"`, `"1ms"`, `"-1s"`,
			`dependency.rate_limit.retry_after_unit: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 1s`},
		{"concurrency initial", zeroOverload, object("concurrency_limit", `"min": 1, `, "initial"), `0`, `20`, `1`, `-1`,
			`dependency.concurrency_limit.initial: -1 is out of range 1..10000000, or 0 (or absent): the default, 20`},
		{"concurrency min", zeroOverload, slowLimit("min"), `0`, `20`, `2`, `-1`,
			`dependency.concurrency_limit.min: -1 is out of range 1..10000000, or 0 (or absent): the default, 20`},
		{"concurrency max", zeroOverload, limit("max"), `0`, `200`, `25`, `-1`,
			`dependency.concurrency_limit.max: -1 is out of range 1..10000000, or 0 (or absent): the default, 200`},
		{"concurrency backoff_ratio", zeroOverload, object("concurrency_limit", `"timeout": "20ms", "min": 1, `, "backoff_ratio"), `0`, `0.9`, `0.5`, `-1`,
			`dependency.concurrency_limit.backoff_ratio: -1 is out of range; a limit is multiplied by 0.5 or more and less than 1 (Netflix's AIMDLimit), or 0 (or absent): the default, 0.9`},
		{"concurrency timeout", zeroOverload, limit("timeout"), `"0s"`, `"5s"`, `"20ms"`, `"-1s"`,
			`dependency.concurrency_limit.timeout: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 5s`},
		{"concurrency status", zeroOverload, limit("status"), `0`, `503`, ``, `-1`,
			`dependency.concurrency_limit.status: -1 is not an error status; allowed 400..599, or 0 (or absent): the default, 503`},
		{"load_errors window", zeroOverload, object("load_errors", `"points": [{"load": 0, "rate": 0}, {"load": 100, "rate": 0.5}], `, "window"), `"0s"`, `"1s"`, `"100ms"`, `"-1s"`,
			`dependency.load_errors.window: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 1s`},

		{"throttle window", zeroPolicy, object("throttle", `"k": 1.1, `, "window"), `"0s"`, `"2m"`, `"1s"`, `"-1s"`,
			`strategies[0].throttle.window: "-1s" is negative; allowed more than 0s up to 24h0m0s, or 0 (or absent): the default, 2m0s`},
		{"half_open_calls", zeroPolicy, object("breaker", `"kind": "consecutive", "failures": 3, "break": "1s", `, "half_open_calls"), `0`, `1`, `5`, `-1`,
			`strategies[0].breaker.half_open_calls: -1 is out of range 1..1000, or 0 (or absent): the default, 1`},
		{"half_open_failures", zeroPolicy, object("breaker", `"kind": "consecutive", "failures": 3, "break": "1s", "half_open_calls": 5, `, "half_open_failures"), `0`, `1`, `5`, `-1`,
			`strategies[0].breaker.half_open_failures: -1 is out of range 1..5, or 0 (or absent): the default, 1`},
		{"hedging window", zeroPolicy, object("hedging", `"delay": "30ms", "delay_percentile": 90, `, "window"), `0`, `1000`, `20`, `-1`,
			`strategies[0].hedging.window: -1 is out of range 20..100000, or 0 (or absent): the default, 1000`},
		{"host_selection_retry_max_attempts", zeroPolicy, func(v string) string {
			return `, "retry_host_predicate": "previous_hosts"` + member("host_selection_retry_max_attempts")(v)
		}, `0`, `1`, `5`, `-1`,
			`strategies[0].host_selection_retry_max_attempts: -1 is out of range 1..100, or 0 (or absent): the default, 1`},
		{"max_requests", zeroPolicy, object("connection_limits", `"max_connections": 100, `, "max_requests"), `0`, ``, `2`, `-1`,
			`strategies[0].connection_limits.max_requests: -1 is out of range 1..1000000, or 0 (or absent): no limit`},
		{"max_connections", zeroPolicy, object("connection_limits", `"max_requests": 100, `, "max_connections"), `0`, ``, `2`, `-1`,
			`strategies[0].connection_limits.max_connections: -1 is out of range 1..1000000, or 0 (or absent): no limit`},
		{"max_pending", zeroPolicy, object("connection_limits", `"max_connections": 2, `, "max_pending"), `0`, ``, `5`, `-1`,
			`strategies[0].connection_limits.max_pending: -1 is out of range 1..1000000, or 0 (or absent): no attempt waits`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			with := func(v string) string { return fmt.Sprintf(tc.scenario, tc.field(v)) }
			zero := results(t, with(tc.zero))
			if tc.def != "" {
				if def := results(t, with(tc.def)); def != zero {
					t.Errorf("%s gives another result than the default %s", tc.zero, tc.def)
				}
			}
			if absent := results(t, with("")); absent != zero {
				t.Errorf("%s gives another result than the field left out", tc.zero)
			}
			if other := results(t, with(tc.other)); tc.other != "" && other == zero {
				t.Errorf("%s gives the same result as the default: the scenario does not test the field", tc.other)
			}
			_, err := Parse([]byte(with(tc.negative)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want one saying %q", tc.negative, err, tc.want)
			}
		})
	}
}

// member returns a field's JSON member, with its leading comma: "" for
// the value "" (the field left out).
func member(name string) func(string) string {
	return func(v string) string {
		if v == "" {
			return ""
		}
		return fmt.Sprintf(`, %q: %s`, name, v)
	}
}

// object returns an object member name {fixed, field}; fixed ends with
// a comma and a space, dropped when the field is left out.
func object(name, fixed, field string) func(string) string {
	return func(v string) string {
		if v == "" {
			return fmt.Sprintf(`, %q: {%s}`, name, strings.TrimSuffix(fixed, ", "))
		}
		return fmt.Sprintf(`, %q: {%s%q: %s}`, name, fixed, field, v)
	}
}

// codel sets a CoDel field on a dependency with the codel discipline.
func codel(field string) func(string) string {
	o := object("codel", "", field)
	return func(v string) string {
		if v == "" {
			return `, "queue_discipline": "codel"`
		}
		return `, "queue_discipline": "codel"` + o(v)
	}
}

// limit sets a field of a concurrency limit.
func limit(field string) func(string) string { return object("concurrency_limit", "", field) }

// slowLimit sets a field of a concurrency limit whose timeout most
// samples exceed: the limit falls to its min.
func slowLimit(field string) func(string) string {
	return object("concurrency_limit", `"timeout": "20ms", `, field)
}

// results runs the scenario js and returns its strategies' results as
// JSON, to compare.
func results(t *testing.T, js string) string {
	t.Helper()
	res := mustRun(t, js)
	b, err := json.Marshal(res.Strategies)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
