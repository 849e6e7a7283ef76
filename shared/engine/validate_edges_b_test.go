package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// edgeCase is one value at or just past the edge of a range check: the
// scenario valid with old replaced by new is accepted (path "") or
// refused with an error at path whose text holds frag.
type edgeCase struct {
	desc string
	old  string
	new  string
	path string // "": accepted
	frag string // a fragment of the error, such as the value
}

// checkEdges parses each case's scenario and checks its verdict.
func checkEdges(t *testing.T, cases []edgeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			at, err := parseEdited(t, valid, tc.old, tc.new, tc.path)
			if tc.path == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if slices.ContainsFunc(at, func(m string) bool { return strings.Contains(m, tc.frag) }) {
				return
			}
			t.Errorf("want an error at %s holding %q; got:\n%v", tc.path, tc.frag, err)
		})
	}
}

const (
	edgeDep = `"queue_capacity": 5`
	edgeStr = `"max_attempts": 3`
	edgeTop = `"strategies"`
)

// TestDependencyRangesAtTheirEdges: each range check of a dependency's
// overload settings, phases, network and script accepts the value at
// its edge (or refuses it, where the edge is excluded) and refuses the
// value one step past it, at that field's path.
func TestDependencyRangesAtTheirEdges(t *testing.T) {
	dep := func(s string) string { return edgeDep + ", " + s }
	cl := func(s string) string { return dep(`"concurrency_limit": {` + s + `}`) }
	const clp = "dependency.concurrency_limit."
	phases := func(s string) string { return dep(`"phases": [` + s + `]`) }
	net := func(p50, p99 string) string {
		return dep(`"network": {"request": {"kind": "lognormal", "p50": "` + p50 + `", "p99": "` + p99 + `"}}`)
	}
	answer := func(s string) string { return dep(`"script": {"answers": [` + s + `]}`) }
	checkEdges(t, []edgeCase{
		{"backoff ratio of 0.5", edgeDep, cl(`"backoff_ratio": 0.5`), "", ""},
		{"backoff ratio under 0.5", edgeDep, cl(`"backoff_ratio": 0.4999`), clp + "backoff_ratio", "0.4999 is out of range"},
		{"backoff ratio just under 1", edgeDep, cl(`"backoff_ratio": 0.9999`), "", ""},
		{"backoff ratio of 1", edgeDep, cl(`"backoff_ratio": 1`), clp + "backoff_ratio", "1 is out of range"},
		{"concurrency status 400", edgeDep, cl(`"status": 400`), "", ""},
		{"concurrency status 399", edgeDep, cl(`"status": 399`), clp + "status", "399 is not an error status"},
		{"concurrency status 599", edgeDep, cl(`"status": 599`), "", ""},
		{"concurrency status 600", edgeDep, cl(`"status": 600`), clp + "status", "600 is not an error status"},
		{"min equal to max", edgeDep, cl(`"initial": 5, "min": 5, "max": 5`), "", ""},
		{"min above max", edgeDep, cl(`"initial": 5, "min": 6, "max": 5`), clp + "min", "6 is above max 5"},
		{"initial at min", edgeDep, cl(`"initial": 5, "min": 5, "max": 10`), "", ""},
		{"initial under min", edgeDep, cl(`"initial": 4, "min": 5, "max": 10`), clp + "initial", "4 is not between min 5 and max 10"},
		{"initial at max", edgeDep, cl(`"initial": 10, "min": 5, "max": 10`), "", ""},
		{"initial over max", edgeDep, cl(`"initial": 11, "min": 5, "max": 10`), clp + "initial", "11 is not between min 5 and max 10"},
		{"rate limit burst 1", edgeDep, dep(`"rate_limit": {"rate": 10, "burst": 1}`), "", ""},
		{"rate limit burst 0", edgeDep, dep(`"rate_limit": {"rate": 10, "burst": 0}`), "dependency.rate_limit.burst", "0 is out of range"},
		{"rate limit burst at the cap", edgeDep, dep(`"rate_limit": {"rate": 10, "burst": 1000000}`), "", ""},
		{"rate limit burst past the cap", edgeDep, dep(`"rate_limit": {"rate": 10, "burst": 1000001}`), "dependency.rate_limit.burst", "1000001 is out of range"},
		{"rate limit rate at the floor", edgeDep, dep(`"rate_limit": {"rate": 0.001, "burst": 1}`), "", ""},
		{"rate limit rate at the cap", edgeDep, dep(`"rate_limit": {"rate": 1000000, "burst": 1}`), "", ""},
		{"rate limit rate past the cap", edgeDep, dep(`"rate_limit": {"rate": 1000000.5, "burst": 1}`), "dependency.rate_limit.rate", "1.0000005e+06 is out of range"},
		{"shedding threshold 0", edgeDep, dep(`"shedding": {"measure": "queue", "thresholds": {"sheddable": 0}}`), "", ""},
		{"shedding threshold under 0", edgeDep, dep(`"shedding": {"measure": "queue", "thresholds": {"sheddable": -1}}`), "dependency.shedding.thresholds.sheddable", "-1 is out of range"},
		{"phase ending 1ns after it starts", edgeDep, phases(`{"kind": "outage", "from": "1s", "to": "1000000001ns"}`), "", ""},
		{"phase ending as it starts", edgeDep, phases(`{"kind": "outage", "from": "1s", "to": "1s"}`), "dependency.phases[0].to", "is not after from 1s"},
		{"phases that touch", edgeDep, phases(`{"kind": "outage", "from": "1s", "to": "2s"}, {"kind": "outage", "from": "2s", "to": "3s"}`), "", ""},
		{"phases that overlap by 1ns", edgeDep, phases(`{"kind": "outage", "from": "1s", "to": "2s"}, {"kind": "outage", "from": "1999999999ns", "to": "3s"}`), "dependency.phases[1]", "overlaps phases[0]"},
		{"earlier phase that touches", edgeDep, phases(`{"kind": "outage", "from": "2s", "to": "3s"}, {"kind": "outage", "from": "1s", "to": "2s"}`), "", ""},
		{"earlier phase that overlaps by 1ns", edgeDep, phases(`{"kind": "outage", "from": "2s", "to": "3s"}, {"kind": "outage", "from": "1s", "to": "2000000001ns"}`), "dependency.phases[1]", "overlaps phases[0]"},
		{"errors phase rate 1", edgeDep, phases(`{"kind": "errors", "from": "1s", "to": "2s", "rate": 1}`), "", ""},
		{"errors phase rate past 1", edgeDep, phases(`{"kind": "errors", "from": "1s", "to": "2s", "rate": 1.000001}`), "dependency.phases[0].rate", "1.000001 is out of range"},
		{"errors phase rate just above 0", edgeDep, phases(`{"kind": "errors", "from": "1s", "to": "2s", "rate": 1e-9}`), "", ""},
		{"errors phase rate 0", edgeDep, phases(`{"kind": "errors", "from": "1s", "to": "2s", "rate": 0}`), "dependency.phases[0].rate", "0 is out of range"},
		{"latency phase factor 1000", edgeDep, phases(`{"kind": "latency", "from": "1s", "to": "2s", "factor": 1000}`), "", ""},
		{"latency phase factor past 1000", edgeDep, phases(`{"kind": "latency", "from": "1s", "to": "2s", "factor": 1000.001}`), "dependency.phases[0].factor", "1000.001 is out of range"},
		{"latency phase factor just above 0", edgeDep, phases(`{"kind": "latency", "from": "1s", "to": "2s", "factor": 1e-9}`), "", ""},
		{"latency phase factor 0", edgeDep, phases(`{"kind": "latency", "from": "1s", "to": "2s", "factor": 0}`), "dependency.phases[0].factor", "0 is out of range"},
		{"capacity phase of 0 workers", edgeDep, phases(`{"kind": "capacity", "from": "1s", "to": "2s", "workers": 0}`), "", ""},
		{"capacity phase at the worker cap", edgeDep, phases(`{"kind": "capacity", "from": "1s", "to": "2s", "workers": 100000}`), "", ""},
		{"capacity phase past the worker cap", edgeDep, phases(`{"kind": "capacity", "from": "1s", "to": "2s", "workers": 100001}`), "dependency.phases[0].workers", "100001 is out of range"},
		{"lognormal p99 equal to p50", edgeDep, net("10ms", "10ms"), "", ""},
		{"lognormal p99 1ns below p50", edgeDep, net("10ms", "9999999ns"), "dependency.network.request.p99", "is below p50 10ms"},
		{"answer status 100", edgeDep, answer(`{"status": 100}`), "", ""},
		{"answer status 99", edgeDep, answer(`{"status": 99}`), "dependency.script.answers[0].status", "99"},
		{"answer status 599", edgeDep, answer(`{"status": 599}`), "", ""},
		{"answer status 600", edgeDep, answer(`{"status": 600}`), "dependency.script.answers[0].status", "600"},
		{"answer latency of a day", edgeDep, answer(`{"status": 200, "latency": "24h"}`), "", ""},
		{"answer latency past a day", edgeDep, answer(`{"status": 200, "latency": "86400000000001ns"}`), "dependency.script.answers[0].latency", ""},
		{"answer latency 0", edgeDep, answer(`{"status": 200, "latency": "0s"}`), "", ""},
		{"answer latency under 0", edgeDep, answer(`{"status": 200, "latency": "-1ns"}`), "dependency.script.answers[0].latency", ""},
		{"connection error with status 0", edgeDep, answer(`{"error": "connection"}`), "", ""},
		{"connection error with a status", edgeDep, answer(`{"error": "connection", "status": 200}`), "dependency.script.answers[0].status", "200 is given together with error"},
	})
}

// TestPolicyRangesAtTheirEdges: the same for a strategy's checks that
// compare two of its fields or hold a range of their own.
func TestPolicyRangesAtTheirEdges(t *testing.T) {
	st := func(s string) string { return edgeStr + ", " + s }
	const sp = "strategies[0]."
	backoff := func(s string) string { return st(`"backoff": {` + s + `}`) }
	ratio := func(s string) string {
		return st(`"budget": {"kind": "ratio", "ratio": 0.2, ` + s + `}`)
	}
	breaker := func(s string) string {
		return st(`"breaker": {"kind": "ratio", "break": "1s", ` + s + `}`)
	}
	hedge := func(n int, s string) string {
		return fmt.Sprintf(`"max_attempts": %d, "hedging": {"delay": "10ms"%s}`, n, s)
	}
	checkEdges(t, []edgeCase{
		{"min attempt time equal to the deadline", edgeStr, st(`"deadline": "1s", "min_attempt_time": "1s"`), "", ""},
		{"min attempt time past the deadline", edgeStr, st(`"deadline": "1s", "min_attempt_time": "1000000001ns"`), sp + "min_attempt_time", "is longer than the deadline 1s"},
		{"backoff max equal to base", edgeStr, backoff(`"kind": "constant", "base": "10ms", "max": "10ms"`), "", ""},
		{"backoff max 1ns below base", edgeStr, backoff(`"kind": "constant", "base": "10ms", "max": "9999999ns"`), sp + "backoff.max", "is below base 10ms"},
		{"multiplier 1", edgeStr, backoff(`"kind": "exponential", "base": "10ms", "multiplier": 1`), "", ""},
		{"multiplier under 1", edgeStr, backoff(`"kind": "exponential", "base": "10ms", "multiplier": 0.999`), sp + "backoff.multiplier", "0.999 is out of range"},
		{"multiplier 100", edgeStr, backoff(`"kind": "exponential", "base": "10ms", "multiplier": 100`), "", ""},
		{"multiplier past 100", edgeStr, backoff(`"kind": "exponential", "base": "10ms", "multiplier": 100.001`), sp + "backoff.multiplier", "100.001 is out of range"},
		{"max attempts at the cap", edgeStr, `"max_attempts": 100`, "", ""},
		{"instances at the cap", edgeStr, st(`"instances": 100000`), "", ""},
		{"instances past the cap", edgeStr, st(`"instances": 100001`), sp + "instances", "100001 is out of range"},
		{"slices as many as the window's nanoseconds", edgeStr, ratio(`"window": "1000ns", "slices": 1000`), "", ""},
		{"slices more than the window's nanoseconds", edgeStr, ratio(`"window": "999ns", "slices": 1000`), sp + "budget.slices", "are more than the window's nanoseconds"},
		{"slices 2", edgeStr, ratio(`"window": "10s", "slices": 2`), "", ""},
		{"slices 1", edgeStr, ratio(`"window": "10s", "slices": 1`), sp + "budget.slices", "1 is out of range"},
		{"slices past 1000", edgeStr, ratio(`"window": "10s", "slices": 1001`), sp + "budget.slices", "1001 is out of range"},
		{"min throughput equal to window calls", edgeStr, breaker(`"ratio": 0.5, "window_calls": 10, "min_throughput": 10`), "", ""},
		{"min throughput past window calls", edgeStr, breaker(`"ratio": 0.5, "window_calls": 10, "min_throughput": 11`), sp + "breaker.min_throughput", "11 is more than window_calls 10"},
		{"failures equal to window calls", edgeStr, breaker(`"failures": 10, "window_calls": 10, "min_throughput": 1`), "", ""},
		{"failures past window calls", edgeStr, breaker(`"failures": 11, "window_calls": 10, "min_throughput": 1`), sp + "breaker.failures", "11 is out of range"},
		{"max open equal to break", edgeStr, breaker(`"ratio": 0.5, "window": "10s", "min_throughput": 1, "open_multiplier": 2, "max_open": "1s"`), "", ""},
		{"max open 1ns short of break", edgeStr, breaker(`"ratio": 0.5, "window": "10s", "min_throughput": 1, "open_multiplier": 2, "max_open": "999999999ns"`), sp + "breaker.max_open", "is shorter than break 1s"},
		{"adaptive above at its cap", edgeStr, st(`"backoff": {"kind": "constant", "base": "10ms"}, "adaptive": {"window": "10s", "above": 0.999999, "factor": 2}`), "", ""},
		{"adaptive above past its cap", edgeStr, st(`"backoff": {"kind": "constant", "base": "10ms"}, "adaptive": {"window": "10s", "above": 0.9999991, "factor": 2}`), sp + "adaptive.above", "0.9999991 is out of range"},
		{"throttle k 1", edgeStr, st(`"throttle": {"k": 1}`), "", ""},
		{"throttle k under 1", edgeStr, st(`"throttle": {"k": 0.999}`), sp + "throttle.k", "0.999 is out of range 1..100"},
		{"throttle k 100", edgeStr, st(`"throttle": {"k": 100}`), "", ""},
		{"throttle k past 100", edgeStr, st(`"throttle": {"k": 100.001}`), sp + "throttle.k", "100.001 is out of range 1..100"},
		{"hedging of 2 copies", edgeStr, hedge(2, ""), "", ""},
		{"hedging of 1 copy", edgeStr, hedge(1, ""), sp + "max_attempts", "1 is the number of copies"},
		{"hedging delay percentile just under 100", edgeStr, hedge(2, `, "delay_percentile": 99.999`), "", ""},
		{"hedging delay percentile 100", edgeStr, hedge(2, `, "delay_percentile": 100`), sp + "hedging.delay_percentile", "100 is out of range"},
		{"hedging delay percentile just above 0", edgeStr, hedge(2, `, "delay_percentile": 1e-9`), "", ""},
		{"hedging delay percentile under 0", edgeStr, hedge(2, `, "delay_percentile": -1e-9`), sp + "hedging.delay_percentile", "-1e-09 is out of range"},
		{"hedging window 20", edgeStr, hedge(2, `, "delay_percentile": 95, "window": 20`), "", ""},
		{"hedging window 19", edgeStr, hedge(2, `, "delay_percentile": 95, "window": 19`), sp + "hedging.window", "19 is out of range"},
		{"hedging window at the cap", edgeStr, hedge(2, `, "delay_percentile": 95, "window": 100000`), "", ""},
		{"hedging window past the cap", edgeStr, hedge(2, `, "delay_percentile": 95, "window": 100001`), sp + "hedging.window", "100001 is out of range"},
	})
}

// TestReportRangesAtTheirEdges: the same for the report's checks, the
// thresholds' values and the sweep's count of values.
func TestReportRangesAtTheirEdges(t *testing.T) {
	report := func(s string) string { return `"report": {` + s + `}, ` + edgeTop }
	list := func(n int, item func(i int) string) string {
		var b []string
		for i := range n {
			b = append(b, item(i))
		}
		return strings.Join(b, ", ")
	}
	res := func(n int) string {
		return report(`"peak_resolutions": [` + list(n, func(i int) string { return fmt.Sprintf(`"%dms"`, i+1) }) + `]`)
	}
	metrics := []string{"success_rate", "latency_p99_ms", "latency_p50_ms", "amplification"}
	focus := func(n int) string {
		return report(`"focus": [` + list(n, func(i int) string { return `"` + metrics[i] + `"` }) + `]`)
	}
	thresholds := func(n int) string {
		return report(`"thresholds": [` + list(n, func(int) string { return `{"metric": "success_rate", "op": ">=", "value": 0.5}` }) + `]`)
	}
	threshold := func(metric, value string) string {
		return report(`"thresholds": [{"metric": "` + metric + `", "op": ">=", "value": ` + value + `}]`)
	}
	sweep := func(n int) string {
		return `"sweep": {"path": "strategies[0].max_attempts", "values": [` + list(n, func(i int) string { return fmt.Sprint(i%100 + 1) }) + `]}, ` + edgeTop
	}
	affected := func(from, to string) string {
		return report(`"affected_from": "` + from + `", "affected_to": "` + to + `"`)
	}
	checkEdges(t, []edgeCase{
		{"affected to 1ns after affected from", edgeTop, affected("1s", "1000000001ns"), "", ""},
		{"affected to equal to affected from", edgeTop, affected("1s", "1s"), "report.affected_to", "is not after affected_from 1s"},
		{"5 peak resolutions", edgeTop, res(5), "", ""},
		{"6 peak resolutions", edgeTop, res(6), "report.peak_resolutions", "lists 6 resolutions; at most 5"},
		{"peak resolution of 1ms", edgeTop, report(`"peak_resolutions": ["1ms"]`), "", ""},
		{"peak resolution under 1ms", edgeTop, report(`"peak_resolutions": ["999999ns"]`), "report.peak_resolutions[0]", "1ms..1h"},
		{"peak resolution of 1h", edgeTop, report(`"peak_resolutions": ["1h"]`), "", ""},
		{"peak resolution past 1h", edgeTop, report(`"peak_resolutions": ["3600001ms"]`), "report.peak_resolutions[0]", "1ms..1h"},
		{"series bucket of 1ms", edgeTop, report(`"series_bucket": "1ms"`), "", ""},
		{"series bucket under 1ms", edgeTop, report(`"series_bucket": "999999ns"`), "report.series_bucket", "1ms..1h"},
		{"series bucket of 1h", edgeTop, report(`"series_bucket": "1h"`), "", ""},
		{"series bucket past 1h", edgeTop, report(`"series_bucket": "3600001ms"`), "report.series_bucket", "1ms..1h"},
		{"3 focus metrics", edgeTop, focus(3), "", ""},
		{"4 focus metrics", edgeTop, focus(4), "report.focus", "lists 4 metrics; at most 3"},
		{"8 thresholds", edgeTop, thresholds(MaxThresholds), "", ""},
		{"9 thresholds", edgeTop, thresholds(MaxThresholds + 1), "report.thresholds", "lists 9 thresholds; at most 8"},
		{"a rate threshold of 1", edgeTop, threshold("success_rate", "1"), "", ""},
		{"a rate threshold past 1", edgeTop, threshold("success_rate", "1.000001"), "report.thresholds[0].value", "1.000001 is out of range"},
		{"a rate threshold of 0", edgeTop, threshold("success_rate", "0"), "", ""},
		{"a rate threshold under 0", edgeTop, threshold("success_rate", "-1e-9"), "report.thresholds[0].value", "-1e-09 is out of range"},
		{"a count threshold of 0", edgeTop, threshold("amplification", "0"), "", ""},
		{"a count threshold under 0", edgeTop, threshold("amplification", "-1e-9"), "report.thresholds[0].value", "-1e-09 is out of range"},
		{"a sweep of 1 value", edgeTop, sweep(1), "", ""},
		{"a sweep of no value", edgeTop, sweep(0), "sweep.values", "lists 0 values; give 1..50"},
		{"a sweep of 50 values", edgeTop, sweep(MaxSweepValues), "", ""},
		{"a sweep of 51 values", edgeTop, sweep(MaxSweepValues + 1), "sweep.values", "lists 51 values; give 1..50"},
	})
}

// TestMoreRangesAtTheirEdges: the same for the checks left: load error
// points in order, a script's counts, a strategy's other ranges, and the
// index of a sweep's path.
func TestMoreRangesAtTheirEdges(t *testing.T) {
	dep := func(s string) string { return edgeDep + ", " + s }
	st := func(s string) string { return edgeStr + ", " + s }
	const sp = "strategies[0]."
	points := func(a, b string) string {
		return dep(`"load_errors": {"points": [{"load": ` + a + `, "rate": 0.1}, {"load": ` + b + `, "rate": 0.2}]}`)
	}
	answers := func(n int) string {
		return dep(`"script": {"answers": [` + strings.TrimSuffix(strings.Repeat(`{"status": 200},`, n), ",") + `]}`)
	}
	operations := func(n int) string {
		return dep(`"script": {"operations": [` + strings.TrimSuffix(strings.Repeat(`[],`, n), ",") + `]}`)
	}
	fixed := func(n int) string {
		return st(fmt.Sprintf(`"client_rate_limit": {"kind": "fixed-window", "limit_for_period": %d, "refresh_period": "1s"}`, n))
	}
	breaker := func(s string) string {
		return st(`"breaker": {"kind": "ratio", "ratio": 0.5, "break": "1s", "min_throughput": 1, ` + s + `}`)
	}
	jitter := func(f string) string {
		return st(`"backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "proportional", "fraction": ` + f + `}`)
	}
	adaptive := func(f string) string {
		return st(`"backoff": {"kind": "constant", "base": "10ms"}, "adaptive": {"window": "10s", "above": 0.5, "factor": ` + f + `}`)
	}
	sweep := func(path string) string {
		return `"sweep": {"path": "` + path + `", "values": [2]}, ` + edgeTop
	}
	checkEdges(t, []edgeCase{
		{"load error points 1e-6 apart", edgeDep, points("1", "1.000001"), "", ""},
		{"load error points at the same load", edgeDep, points("1", "1"), "dependency.load_errors.points[1].load", "1 is not above the previous point's load 1"},
		{"a script of the most answers", edgeDep, answers(MaxScript), "", ""},
		{"a script of the most operations", edgeDep, operations(MaxScript), "", ""},
		{"a script of one operation too many", edgeDep, operations(MaxScript + 1), "dependency.script.operations", "lists 100001 operations; at most 100000"},
		{"limit for period 1", edgeStr, fixed(1), "", ""},
		{"limit for period 0", edgeStr, fixed(0), sp + "client_rate_limit.limit_for_period", "0 is out of range"},
		{"limit for period at the cap", edgeStr, fixed(1_000_000), "", ""},
		{"limit for period past the cap", edgeStr, fixed(1_000_001), sp + "client_rate_limit.limit_for_period", "1000001 is out of range"},
		{"window calls at the cap", edgeStr, breaker(`"window_calls": 100000`), "", ""},
		{"window calls past the cap", edgeStr, breaker(`"window_calls": 100001`), sp + "breaker.window_calls", "100001 is out of range"},
		{"open multiplier 1", edgeStr, breaker(`"window": "10s", "open_multiplier": 1`), "", ""},
		{"open multiplier under 1", edgeStr, breaker(`"window": "10s", "open_multiplier": 0.999`), sp + "breaker.open_multiplier", "0.999 is out of range"},
		{"open multiplier 100", edgeStr, breaker(`"window": "10s", "open_multiplier": 100`), "", ""},
		{"open multiplier past 100", edgeStr, breaker(`"window": "10s", "open_multiplier": 100.001`), sp + "breaker.open_multiplier", "100.001 is out of range"},
		{"half-open failures as many as its calls", edgeStr, breaker(`"window": "10s", "half_open_calls": 5, "half_open_failures": 5`), "", ""},
		{"half-open failures more than its calls", edgeStr, breaker(`"window": "10s", "half_open_calls": 5, "half_open_failures": 6`), sp + "breaker.half_open_failures", "6 is out of range"},
		{"jitter fraction 1", edgeStr, jitter("1"), "", ""},
		{"jitter fraction past 1", edgeStr, jitter("1.000001"), sp + "jitter.fraction", "1.000001 is out of range"},
		{"adaptive factor 1", edgeStr, adaptive("1"), "", ""},
		{"adaptive factor under 1", edgeStr, adaptive("0.999"), sp + "adaptive.factor", "0.999 is out of range"},
		{"adaptive factor 1000", edgeStr, adaptive("1000"), "", ""},
		{"adaptive factor past 1000", edgeStr, adaptive("1000.001"), sp + "adaptive.factor", "1000.001 is out of range"},
		{"hedging of 0 copies", edgeStr, `"max_attempts": 0, "hedging": {"delay": "10ms"}`, sp + "max_attempts", "0 is the number of copies"},
		{"a sweep path of the last index", edgeTop, sweep("strategies[0].max_attempts"), "", ""},
		{"a sweep path one index past the list", edgeTop, sweep("strategies[1].max_attempts"), "sweep.values[0]", "has index [1], which does not exist"},
		{"a sweep path index of 6 digits", edgeTop, sweep("strategies[999999].max_attempts"), "sweep.values[0]", "has index [999999], which does not exist"},
		{"a sweep path index of 7 digits", edgeTop, sweep("strategies[1000000].max_attempts"), "sweep.values[0]", "an index must be a number in brackets"},
	})
}
