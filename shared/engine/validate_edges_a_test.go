package engine

import (
	"fmt"
	"strings"
	"testing"
)

// edgeCaseA changes one fragment of a scenario document and says whether
// the value it gives is refused at path. A refused case's message names
// the value (msg, when given).
type edgeCaseA struct {
	desc    string
	old     string
	new     string
	path    string
	refused bool
	msg     string // a fragment of the refusal: the value as it is named
}

// checkEdgesA applies each case to the document base.
func checkEdgesA(t *testing.T, base string, cases []edgeCaseA) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			at, err := parseEdited(t, base, tc.old, tc.new, tc.path)
			switch {
			case !tc.refused && len(at) > 0:
				t.Errorf("refused at %s: %v", tc.path, at)
			case tc.refused && len(at) == 0:
				t.Errorf("not refused at %s; got:\n%v", tc.path, err)
			case tc.refused && tc.msg != "" && !strings.Contains(strings.Join(at, "\n"), tc.msg):
				t.Errorf("the refusal at %s does not name %q: %v", tc.path, tc.msg, at)
			}
		})
	}
}

// joinItemsA joins n items made by item(i) with commas.
func joinItemsA(n int, item func(i int) string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = item(i)
	}
	return strings.Join(s, ", ")
}

// TestScenarioRangesAtTheirEdges walks the top-level and workload
// checks: each edge is paired with the value one step past it.
func TestScenarioRangesAtTheirEdges(t *testing.T) {
	const name = `"name": "v",`
	const clients = `"clients": 10`
	const rate = `"rate": 10`
	const dur = `"duration": "10s"`
	const strat = `{"name": "a", "max_attempts": 3}`
	seeds := func(n int) string {
		return name + ` "seeds": [` + joinItemsA(n, func(i int) string { return fmt.Sprint(i) }) + `],`
	}
	strategies := func(n int) string {
		return strat + ", " + joinItemsA(n-1, func(i int) string { return fmt.Sprintf(`{"name": "s%d"}`, i) })
	}
	layers := func(n int) string {
		return `"max_attempts": 3, "layers": [` + joinItemsA(n, func(int) string { return `{"max_attempts": 1}` }) + `]`
	}
	closed := func(think string) string {
		return `"arrival": "closed", "duration": "10s", "think_time": "` + think + `"`
	}
	fleets := func(n, clients int) string {
		return dur + `, "fleets": [` + joinItemsA(n, func(i int) string {
			return fmt.Sprintf(`{"name": "f%d", "clients": %d, "rate": 1, "max_attempts": 1}`, i, clients)
		}) + `]`
	}
	phases := func(n int) string {
		return dur + `, "load": [` + joinItemsA(n, func(int) string {
			return `{"kind": "spike", "from": "1s", "to": "2s", "rate": 5}`
		}) + `]`
	}
	phase := func(fields string) string {
		return dur + `, "load": [{"from": "1s", "to": "2s", ` + fields + `}]`
	}
	cases := []edgeCaseA{
		{"seed 0", name, name + ` "seed": 0,`, "seed", false, ""},
		{"seed -1", name, name + ` "seed": -1,`, "seed", true, "-1"},
		{"seed at the largest", name, name + ` "seed": 9007199254740991,`, "seed", false, ""},
		{"seed past the largest", name, name + ` "seed": 9007199254740992,`, "seed", true, "9007199254740992"},
		{"runs 0", name, name + ` "runs": 0,`, "runs", false, ""},
		{"runs -1", name, name + ` "runs": -1,`, "runs", true, "-1"},
		{"runs 1000", name, name + ` "runs": 1000,`, "runs", false, ""},
		{"runs 1001", name, name + ` "runs": 1001,`, "runs", true, "1001"},
		{"1000 seeds", name, seeds(1000), "seeds", false, ""},
		{"1001 seeds", name, seeds(1001), "seeds", true, "1001"},
		{"listed seed 0", name, name + ` "seeds": [0],`, "seeds[0]", false, ""},
		{"listed seed -1", name, name + ` "seeds": [-1],`, "seeds[0]", true, "-1"},
		{"listed seed at the largest", name, name + ` "seeds": [9007199254740991],`, "seeds[0]", false, ""},
		{"listed seed past the largest", name, name + ` "seeds": [9007199254740992],`, "seeds[0]", true, "9007199254740992"},
		{"runs equal to the seeds", name, name + ` "runs": 2, "seeds": [1, 2],`, "runs", false, ""},
		{"runs other than the seeds", name, name + ` "runs": 3, "seeds": [1, 2],`, "runs", true, "3"},
		{"20 strategies", strat, strategies(20), "strategies", false, ""},
		{"21 strategies", strat, strategies(21), "strategies", true, "21"},
		{"strategy name of 100 characters", `"name": "a"`, `"name": "` + strings.Repeat("é", 100) + `"`, "strategies[0].name", false, ""},
		{"strategy name of 101 characters", `"name": "a"`, `"name": "` + strings.Repeat("é", 101) + `"`, "strategies[0].name", true, "101"},
		{"scenario name of 200 characters", `"name": "v"`, `"name": "` + strings.Repeat("x", 200) + `"`, "name", false, ""},
		{"scenario name of 201 characters", `"name": "v"`, `"name": "` + strings.Repeat("x", 201) + `"`, "name", true, "201"},
		{"8 layers", `"max_attempts": 3`, layers(8), "strategies[0].layers", false, ""},
		{"9 layers", `"max_attempts": 3`, layers(9), "strategies[0].layers", true, "9"},

		{"1 client", clients, `"clients": 1`, "workload.clients", false, ""},
		{"0 clients", clients, `"clients": 0`, "workload.clients", true, "0 is out of range"},
		{"the most clients", clients, `"clients": 1000000`, "workload.clients", false, ""},
		{"one client too many", clients, `"clients": 1000001`, "workload.clients", true, "1000001"},
		{"duration of 24h", dur, `"duration": "24h"`, "workload.duration", false, ""},
		{"duration past 24h", dur, `"duration": "24h0m0.001s"`, "workload.duration", true, "24h0m0.001s"},
		{"operations 0", dur, dur + `, "operations": 0`, "workload.operations", false, ""},
		{"operations -1", dur, dur + `, "operations": -1`, "workload.operations", true, "-1"},
		{"the most operations", dur, dur + `, "operations": 10000000`, "workload.operations", false, ""},
		{"one operation too many", dur, dur + `, "operations": 10000001`, "workload.operations", true, "10000001"},
		{"the lowest rate", rate, `"rate": 1e-6`, "workload.rate", false, ""},
		{"rate under the lowest", rate, `"rate": 9.99e-7`, "workload.rate", true, "9.99e-07"},
		{"the highest rate", rate, `"rate": 1e6`, "workload.rate", false, ""},
		{"rate over the highest", rate, `"rate": 1000000.5`, "workload.rate", true, "1.0000005e+06"},
		{"the lowest rate per client", rate, `"rate_per_client": 1e-9`, "workload.rate_per_client", false, ""},
		{"rate per client under the lowest", rate, `"rate_per_client": 9.99e-10`, "workload.rate_per_client", true, "9.99e-10"},
		{"rate per client totalling 1e6", rate, `"rate_per_client": 100000`, "workload.rate_per_client", false, ""},
		{"rate per client totalling past 1e6", rate, `"rate_per_client": 100000.5`, "workload.rate_per_client", true, "100000.5"},
		{"one client at the highest rate per client", clients + `, "arrival": "poisson", ` + rate, `"clients": 1, "rate_per_client": 1e6`, "workload.rate_per_client", false, ""},
		{"one client over the highest rate per client", clients + `, "arrival": "poisson", ` + rate, `"clients": 1, "rate_per_client": 1000000.5`, "workload.rate_per_client", true, "1.0000005e+06"},
		{"closed think time of 1ms", `"arrival": "poisson", "rate": 10, "duration": "10s"`, closed("1ms"), "workload.think_time", false, ""},
		{"closed think time under 1ms", `"arrival": "poisson", "rate": 10, "duration": "10s"`, closed("999.999µs"), "workload.think_time", true, "999.999µs"},
		{"negative think time", `"arrival": "poisson", "rate": 10, "duration": "10s"`, closed("-1ms"), "workload.think_time", true, "-1ms"},
		{"mix non_idempotent 0", dur, dur + `, "mix": {"non_idempotent": 0}`, "workload.mix.non_idempotent", false, ""},
		{"mix non_idempotent under 0", dur, dur + `, "mix": {"non_idempotent": -0.001}`, "workload.mix.non_idempotent", true, "-0.001"},
		{"mix non_idempotent 1", dur, dur + `, "mix": {"non_idempotent": 1}`, "workload.mix.non_idempotent", false, ""},
		{"mix non_idempotent past 1", dur, dur + `, "mix": {"non_idempotent": 1.001}`, "workload.mix.non_idempotent", true, "1.001"},
		{"mix keyed 0", dur, dur + `, "mix": {"keyed": 0}`, "workload.mix.keyed", false, ""},
		{"mix keyed under 0", dur, dur + `, "mix": {"keyed": -0.001}`, "workload.mix.keyed", true, "-0.001"},
		{"mix keyed 1", dur, dur + `, "mix": {"keyed": 1}`, "workload.mix.keyed", false, ""},
		{"mix keyed past 1", dur, dur + `, "mix": {"keyed": 1.001}`, "workload.mix.keyed", true, "1.001"},
		{"mix unreadable 0", dur, dur + `, "mix": {"unreadable": 0}`, "workload.mix.unreadable", false, ""},
		{"mix unreadable under 0", dur, dur + `, "mix": {"unreadable": -0.001}`, "workload.mix.unreadable", true, "-0.001"},
		{"mix unreadable 1", dur, dur + `, "mix": {"unreadable": 1}`, "workload.mix.unreadable", false, ""},
		{"mix unreadable past 1", dur, dur + `, "mix": {"unreadable": 1.001}`, "workload.mix.unreadable", true, "1.001"},

		{"8 fleets", dur, fleets(8, 1), "workload.fleets", false, ""},
		{"9 fleets", dur, fleets(9, 1), "workload.fleets", true, "9"},
		{"fleet of 1 client", dur, fleets(1, 1), "workload.fleets[0].clients", false, ""},
		{"fleet of 0 clients", dur, fleets(1, 0), "workload.fleets[0].clients", true, "0"},
		{"fleet of the most clients", dur, fleets(1, 1000000), "workload.fleets[0].clients", false, ""},
		{"fleet of one client too many", dur, fleets(1, 1000001), "workload.fleets[0].clients", true, "1000001"},
		{"fleets up to the most clients", clients + `, "arrival": "poisson", ` + rate + ", " + dur, `"clients": 999999, "arrival": "poisson", "rate": 10, ` + fleets(1, 1), "workload.fleets", false, ""},
		{"fleets past the most clients", clients + `, "arrival": "poisson", ` + rate + ", " + dur, `"clients": 1000000, "arrival": "poisson", "rate": 10, ` + fleets(1, 1), "workload.fleets", true, "1000001"},
		{"fleet at the lowest rate", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 1e-6, "max_attempts": 1}]`, "workload.fleets[0].rate", false, ""},
		{"fleet under the lowest rate", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 9.99e-7, "max_attempts": 1}]`, "workload.fleets[0].rate", true, "9.99e-07"},
		{"fleet at the highest rate", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 1e6, "max_attempts": 1}]`, "workload.fleets[0].rate", false, ""},
		{"fleet over the highest rate", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 1000000.5, "max_attempts": 1}]`, "workload.fleets[0].rate", true, "1.0000005e+06"},
		{"fleet at the lowest rate per client", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate_per_client": 1e-9, "max_attempts": 1}]`, "workload.fleets[0].rate_per_client", false, ""},
		{"fleet under the lowest rate per client", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate_per_client": 9.99e-10, "max_attempts": 1}]`, "workload.fleets[0].rate_per_client", true, "9.99e-10"},

		{"description of 10000 characters", name, name + ` "description": "` + strings.Repeat("x", 10000) + `",`, "description", false, ""},
		{"description of 10001 characters", name, name + ` "description": "` + strings.Repeat("x", 10001) + `",`, "description", true, "10001"},
		{"strategy description of 10000 characters", `"name": "a"`, `"name": "a", "description": "` + strings.Repeat("x", 10000) + `"`, "strategies[0].description", false, ""},
		{"strategy description of 10001 characters", `"name": "a"`, `"name": "a", "description": "` + strings.Repeat("x", 10001) + `"`, "strategies[0].description", true, "10001"},
		{"fleet name of 100 characters", dur, dur + `, "fleets": [{"name": "` + strings.Repeat("f", 100) + `", "clients": 1, "rate": 1, "max_attempts": 1}]`, "workload.fleets[0].name", false, ""},
		{"fleet name of 101 characters", dur, dur + `, "fleets": [{"name": "` + strings.Repeat("f", 101) + `", "clients": 1, "rate": 1, "max_attempts": 1}]`, "workload.fleets[0].name", true, "101"},
		{"own fleet name of 100 characters", dur, dur + `, "fleet": "` + strings.Repeat("o", 100) + `", "fleets": [{"name": "f", "clients": 1, "rate": 1, "max_attempts": 1}]`, "workload.fleet", false, ""},
		{"own fleet name of 101 characters", dur, dur + `, "fleet": "` + strings.Repeat("o", 101) + `", "fleets": [{"name": "f", "clients": 1, "rate": 1, "max_attempts": 1}]`, "workload.fleet", true, "101"},
		{"fleet of 8 layers", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 1, "max_attempts": 1, "layers": [` + joinItemsA(8, func(int) string { return `{"max_attempts": 1}` }) + `]}]`, "workload.fleets[0].layers", false, ""},
		{"fleet of 9 layers", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate": 1, "max_attempts": 1, "layers": [` + joinItemsA(9, func(int) string { return `{"max_attempts": 1}` }) + `]}]`, "workload.fleets[0].layers", true, "9"},
		{"fleet at the highest rate per client", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate_per_client": 1e6, "max_attempts": 1}]`, "workload.fleets[0].rate_per_client", false, ""},
		{"fleet over the highest rate per client", dur, dur + `, "fleets": [{"name": "f", "clients": 1, "rate_per_client": 1000000.5, "max_attempts": 1}]`, "workload.fleets[0].rate_per_client", true, "1.0000005e+06"},
		{"burst at 24h", `"arrival": "poisson", "rate": 10, "duration": "10s"`, `"arrival": "burst", "duration": "10s", "burst_at": "24h"`, "workload.burst_at", false, ""},
		{"burst past 24h", `"arrival": "poisson", "rate": 10, "duration": "10s"`, `"arrival": "burst", "duration": "10s", "burst_at": "24h0m0.001s"`, "workload.burst_at", true, "24h0m0.001s"},
		{"20 load phases", dur, phases(20), "workload.load", false, ""},
		{"21 load phases", dur, phases(21), "workload.load", true, "21"},
		{"phase starting just before the end", dur, dur + `, "load": [{"kind": "spike", "from": "9.999s", "to": "10s", "rate": 5}]`, "workload.load[0].from", false, ""},
		{"phase starting at the end", dur, dur + `, "load": [{"kind": "spike", "from": "10s", "to": "11s", "rate": 5}]`, "workload.load[0].from", true, "10s"},
		{"step factor 0", dur, phase(`"kind": "step", "factor": 0`), "workload.load[0].factor", false, ""},
		{"step factor under 0", dur, phase(`"kind": "step", "factor": -0.001`), "workload.load[0].factor", true, "-0.001"},
		{"step factor 100", dur, phase(`"kind": "step", "factor": 100`), "workload.load[0].factor", false, ""},
		{"step factor past 100", dur, phase(`"kind": "step", "factor": 100.001`), "workload.load[0].factor", true, "100.001"},
		{"step factor just over 1", dur, phase(`"kind": "step", "factor": 1.001`), "workload.load[0].factor", false, ""},
		{"step factor 1", dur, phase(`"kind": "step", "factor": 1`), "workload.load[0].factor", true, "1 is out of range"},
		{"ramp factor 0", dur, phase(`"kind": "ramp", "factor": 0`), "workload.load[0].factor", false, ""},
		{"ramp factor under 0", dur, phase(`"kind": "ramp", "factor": -0.001`), "workload.load[0].factor", true, "-0.001"},
		{"ramp factor 100", dur, phase(`"kind": "ramp", "factor": 100`), "workload.load[0].factor", false, ""},
		{"ramp factor past 100", dur, phase(`"kind": "ramp", "factor": 100.001`), "workload.load[0].factor", true, "100.001"},
		{"ramp factor just under 1", dur, phase(`"kind": "ramp", "factor": 0.999`), "workload.load[0].factor", false, ""},
		{"ramp factor 1", dur, phase(`"kind": "ramp", "factor": 1`), "workload.load[0].factor", true, "1 is out of range"},
		{"daily amplitude just over 0", dur, phase(`"kind": "daily", "amplitude": 0.001, "period": "24h"`), "workload.load[0].amplitude", false, ""},
		{"daily amplitude 0", dur, phase(`"kind": "daily", "amplitude": 0, "period": "24h"`), "workload.load[0].amplitude", true, "0 is out of range"},
		{"daily period of 1s", dur, phase(`"kind": "daily", "amplitude": 0.5, "period": "1s"`), "workload.load[0].period", false, ""},
		{"daily period under 1s", dur, phase(`"kind": "daily", "amplitude": 0.5, "period": "999ms"`), "workload.load[0].period", true, "999ms"},
		{"daily period of 24h", dur, phase(`"kind": "daily", "amplitude": 0.5, "period": "24h"`), "workload.load[0].period", false, ""},
		{"daily period past 24h", dur, phase(`"kind": "daily", "amplitude": 0.5, "period": "24h0m1s"`), "workload.load[0].period", true, "24h0m1s"},
		{"spike at the lowest rate", dur, phase(`"kind": "spike", "rate": 1e-6`), "workload.load[0].rate", false, ""},
		{"spike under the lowest rate", dur, phase(`"kind": "spike", "rate": 9.99e-7`), "workload.load[0].rate", true, "9.99e-07"},
		{"spike at the highest rate", dur, phase(`"kind": "spike", "rate": 1e6`), "workload.load[0].rate", false, ""},
		{"spike over the highest rate", dur, phase(`"kind": "spike", "rate": 1000000.5`), "workload.load[0].rate", true, "1.0000005e+06"},
		{"flash of 1 operation", dur, phase(`"kind": "flash", "operations": 1`), "workload.load[0].operations", false, ""},
		{"flash of 0 operations", dur, phase(`"kind": "flash", "operations": 0`), "workload.load[0].operations", true, "0 is out of range"},
		{"flash of the most operations", dur, phase(`"kind": "flash", "operations": 10000000`), "workload.load[0].operations", false, ""},
		{"flash of one operation too many", dur, phase(`"kind": "flash", "operations": 10000001`), "workload.load[0].operations", true, "10000001"},
	}
	checkEdgesA(t, valid, cases)
}

// TestDependencyAndStrategyRangesAtTheirEdges walks the checks of a
// dependency, of the plan and of a strategy's pool and bulkheads: each
// edge is paired with the value one step past it.
func TestDependencyAndStrategyRangesAtTheirEdges(t *testing.T) {
	const dep = `"queue_capacity": 5`
	const depObj = `"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5}`
	const dur = `"duration": "10s"`
	const attempts = `"max_attempts": 3`
	const mean = `"service_time": {"kind": "constant", "mean": "10ms"}`
	d := func(fields string) string { return dep + ", " + fields }
	law := func(fields string) string { return d(`"load_latency": {` + fields + `}`) }
	service := func(st string) string { return `"service_time": {` + st + `}` }
	deps := func(n int) string {
		return `"dependencies": [` + joinItemsA(n, func(i int) string {
			return fmt.Sprintf(`{"name": "d%d", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}}`, i)
		}) + `]`
	}
	plan := func(n int) string {
		return dur + `, "plan": [{"calls": [` + joinItemsA(n, func(i int) string {
			return fmt.Sprintf(`{"dependency": "dependency", "name": "c%d"}`, i)
		}) + `]}]`
	}
	points := func(n int) string {
		return d(`"load_errors": {"points": [` + joinItemsA(n, func(i int) string {
			return fmt.Sprintf(`{"load": %d, "rate": 0.5}`, i+1)
		}) + `]}`)
	}
	point := func(load, rate string) string {
		return d(`"load_errors": {"points": [{"load": ` + load + `, "rate": ` + rate + `}]}`)
	}
	pool := func(fields string) string { return attempts + `, "pool": {` + fields + `}` }
	const p = "dependency."
	const le = p + "load_errors."
	const ll = p + "load_latency."
	cases := []edgeCaseA{
		{"1 worker", `"workers": 2`, `"workers": 1`, p + "workers", false, ""},
		{"0 workers", `"workers": 2`, `"workers": 0`, p + "workers", true, "0 is out of range"},
		{"the most workers", `"workers": 2`, `"workers": 100000`, p + "workers", false, ""},
		{"one worker too many", `"workers": 2`, `"workers": 100001`, p + "workers", true, "100001"},
		{"queue capacity 0", dep, `"queue_capacity": 0`, p + "queue_capacity", false, ""},
		{"queue capacity -1", dep, `"queue_capacity": -1`, p + "queue_capacity", true, "-1"},
		{"the largest queue", dep, `"queue_capacity": 10000000`, p + "queue_capacity", false, ""},
		{"a queue one too large", dep, `"queue_capacity": 10000001`, p + "queue_capacity", true, "10000001"},
		{"queue-full status 100", dep, d(`"queue_full_status": 100`), p + "queue_full_status", false, ""},
		{"queue-full status 99", dep, d(`"queue_full_status": 99`), p + "queue_full_status", true, "99"},
		{"queue-full status 599", dep, d(`"queue_full_status": 599`), p + "queue_full_status", false, ""},
		{"queue-full status 600", dep, d(`"queue_full_status": 600`), p + "queue_full_status", true, "600"},
		{"error status 100", dep, d(`"error_rate": 0.1, "error_status": 100`), p + "error_status", false, ""},
		{"error status 99", dep, d(`"error_rate": 0.1, "error_status": 99`), p + "error_status", true, "99"},
		{"error status 599", dep, d(`"error_rate": 0.1, "error_status": 599`), p + "error_status", false, ""},
		{"error status 600", dep, d(`"error_rate": 0.1, "error_status": 600`), p + "error_status", true, "600"},
		{"error rate 0", dep, d(`"error_rate": 0`), p + "error_rate", false, ""},
		{"error rate under 0", dep, d(`"error_rate": -0.001`), p + "error_rate", true, "-0.001"},
		{"error rate 1", dep, d(`"error_rate": 1`), p + "error_rate", false, ""},
		{"error rate past 1", dep, d(`"error_rate": 1.001`), p + "error_rate", true, "1.001"},
		{"constant service time of 0s", mean, service(`"kind": "constant", "mean": "0s"`), p + "service_time.mean", false, ""},
		{"constant service time of 24h", mean, service(`"kind": "constant", "mean": "24h"`), p + "service_time.mean", false, ""},
		{"constant service time past 24h", mean, service(`"kind": "constant", "mean": "24h0m0.001s"`), p + "service_time.mean", true, "24h0m0.001s"},
		{"constant service time under 0s", mean, service(`"kind": "constant", "mean": "-1ms"`), p + "service_time.mean", true, "-1ms"},
		{"exponential service time of 1ns", mean, service(`"kind": "exponential", "mean": "1ns"`), p + "service_time.mean", false, ""},
		{"exponential service time of 0s", mean, service(`"kind": "exponential", "mean": "0s"`), p + "service_time.mean", true, "0s"},
		{"lognormal p99 equal to p50", mean, service(`"kind": "lognormal", "p50": "10ms", "p99": "10ms"`), p + "service_time.p99", false, ""},
		{"lognormal p99 under p50", mean, service(`"kind": "lognormal", "p50": "10ms", "p99": "9.999ms"`), p + "service_time.p99", true, "9.999ms"},
		{"lognormal p50 of 0s", mean, service(`"kind": "lognormal", "p50": "0s", "p99": "10ms"`), p + "service_time.p50", true, "0s"},

		{"linear slope just over 0", dep, law(`"law": "linear", "slope": 0.001`), ll + "slope", false, ""},
		{"linear slope under 0", dep, law(`"law": "linear", "slope": -0.001`), ll + "slope", true, "-0.001"},
		{"linear slope 1000", dep, law(`"law": "linear", "slope": 1000`), ll + "slope", false, ""},
		{"linear slope past 1000", dep, law(`"law": "linear", "slope": 1000.001`), ll + "slope", true, "1000.001"},
		{"knee 1000", dep, law(`"law": "linear", "slope": 1, "knee": 1000`), ll + "knee", false, ""},
		{"knee past 1000", dep, law(`"law": "linear", "slope": 1, "knee": 1000.001`), ll + "knee", true, "1000.001"},
		{"knee under 0", dep, law(`"law": "linear", "slope": 1, "knee": -0.001`), ll + "knee", true, "-0.001"},
		{"polynomial power 10", dep, law(`"law": "polynomial", "slope": 1, "power": 10`), ll + "power", false, ""},
		{"polynomial power past 10", dep, law(`"law": "polynomial", "slope": 1, "power": 10.001`), ll + "power", true, "10.001"},
		{"polynomial power just over 0", dep, law(`"law": "polynomial", "slope": 1, "power": 0.001`), ll + "power", false, ""},
		{"polynomial power 0", dep, law(`"law": "polynomial", "slope": 1, "power": 0`), ll + "power", true, "0 is out of range"},
		{"linear slope 0", dep, law(`"law": "linear", "slope": 0`), ll + "slope", true, "0 is out of range"},
		{"polynomial power under 0", dep, law(`"law": "polynomial", "slope": 1, "power": -0.001`), ll + "power", true, "-0.001"},
		{"usl sigma 1", dep, law(`"law": "usl", "sigma": 1`), ll + "sigma", false, ""},
		{"usl sigma past 1", dep, law(`"law": "usl", "sigma": 1.001`), ll + "sigma", true, "1.001"},
		{"usl sigma under 0", dep, law(`"law": "usl", "sigma": -0.001, "kappa": 0.1`), ll + "sigma", true, "-0.001"},
		{"usl kappa 1", dep, law(`"law": "usl", "kappa": 1`), ll + "kappa", false, ""},
		{"usl kappa past 1", dep, law(`"law": "usl", "kappa": 1.001`), ll + "kappa", true, "1.001"},
		{"usl kappa under 0", dep, law(`"law": "usl", "sigma": 0.1, "kappa": -0.001`), ll + "kappa", true, "-0.001"},
		{"max factor 1", dep, law(`"law": "linear", "slope": 1, "max_factor": 1`), ll + "max_factor", false, ""},
		{"max factor under 1", dep, law(`"law": "linear", "slope": 1, "max_factor": 0.999`), ll + "max_factor", true, "0.999"},
		{"max factor 1000", dep, law(`"law": "linear", "slope": 1, "max_factor": 1000`), ll + "max_factor", false, ""},
		{"max factor past 1000", dep, law(`"law": "linear", "slope": 1, "max_factor": 1000.001`), ll + "max_factor", true, "1000.001"},

		{"load errors window of 0s", dep, d(`"load_errors": {"window": "0s", "points": [{"load": 1, "rate": 0.5}]}`), le + "window", false, ""},
		{"load errors window of 24h", dep, d(`"load_errors": {"window": "24h", "points": [{"load": 1, "rate": 0.5}]}`), le + "window", false, ""},
		{"load errors window past 24h", dep, d(`"load_errors": {"window": "24h0m0.001s", "points": [{"load": 1, "rate": 0.5}]}`), le + "window", true, "24h0m0.001s"},
		{"load errors window under 0s", dep, d(`"load_errors": {"window": "-1ms", "points": [{"load": 1, "rate": 0.5}]}`), le + "window", true, "-1ms"},
		{"load errors status 100", dep, d(`"load_errors": {"status": 100, "points": [{"load": 1, "rate": 0.5}]}`), le + "status", false, ""},
		{"load errors status 99", dep, d(`"load_errors": {"status": 99, "points": [{"load": 1, "rate": 0.5}]}`), le + "status", true, "99"},
		{"load errors status 599", dep, d(`"load_errors": {"status": 599, "points": [{"load": 1, "rate": 0.5}]}`), le + "status", false, ""},
		{"load errors status 600", dep, d(`"load_errors": {"status": 600, "points": [{"load": 1, "rate": 0.5}]}`), le + "status", true, "600"},
		{"1 load errors point", dep, points(1), le + "points", false, ""},
		{"0 load errors points", dep, points(0), le + "points", true, "lists 0 points"},
		{"100 load errors points", dep, points(100), le + "points", false, ""},
		{"101 load errors points", dep, points(101), le + "points", true, "lists 101 points"},
		{"point load 0", dep, point("0", "0.5"), le + "points[0].load", false, ""},
		{"point load under 0", dep, point("-0.001", "0.5"), le + "points[0].load", true, "-0.001"},
		{"point load 1e9", dep, point("1e9", "0.5"), le + "points[0].load", false, ""},
		{"point load past 1e9", dep, point("1000000000.5", "0.5"), le + "points[0].load", true, "1.0000000005e+09"},
		{"point rate 0", dep, point("1", "0"), le + "points[0].rate", false, ""},
		{"point rate under 0", dep, point("1", "-0.001"), le + "points[0].rate", true, "-0.001"},
		{"point rate 1", dep, point("1", "1"), le + "points[0].rate", false, ""},
		{"point rate past 1", dep, point("1", "1.001"), le + "points[0].rate", true, "1.001"},

		{"dependency name of 200 characters", dep, d(`"name": "` + strings.Repeat("x", 200) + `"`), p + "name", false, ""},
		{"dependency name of 201 characters", dep, d(`"name": "` + strings.Repeat("x", 201) + `"`), p + "name", true, "201"},
		{"16 dependencies", depObj, deps(16), "dependencies", false, ""},
		{"17 dependencies", depObj, deps(17), "dependencies", true, "17"},
		{"16 plan calls", dur, plan(16), "workload.plan", false, ""},
		{"17 plan calls", dur, plan(17), "workload.plan", true, "17"},
		{"call share 1", dur, dur + `, "plan": [{"calls": [{"dependency": "dependency", "share": 1}]}]`, "workload.plan[0].calls[0].share", false, ""},
		{"call share past 1", dur, dur + `, "plan": [{"calls": [{"dependency": "dependency", "share": 1.001}]}]`, "workload.plan[0].calls[0].share", true, "1.001"},
		{"call share just over 0", dur, dur + `, "plan": [{"calls": [{"dependency": "dependency", "share": 0.001}]}]`, "workload.plan[0].calls[0].share", false, ""},
		{"call share 0", dur, dur + `, "plan": [{"calls": [{"dependency": "dependency", "share": 0}]}]`, "workload.plan[0].calls[0].share", true, "0 is out of range"},

		{"pool of 1 slot", attempts, pool(`"slots": 1`), "strategies[0].pool.slots", false, ""},
		{"pool of 0 slots", attempts, pool(`"slots": 0`), "strategies[0].pool.slots", true, "0 is out of range"},
		{"pool of the most slots", attempts, pool(`"slots": 100000`), "strategies[0].pool.slots", false, ""},
		{"pool of one slot too many", attempts, pool(`"slots": 100001`), "strategies[0].pool.slots", true, "100001"},
		{"pool max waiting 0", attempts, pool(`"slots": 1, "max_waiting": 0`), "strategies[0].pool.max_waiting", false, ""},
		{"pool max waiting -1", attempts, pool(`"slots": 1, "max_waiting": -1`), "strategies[0].pool.max_waiting", true, "-1"},
		{"pool max waiting at the most", attempts, pool(`"slots": 1, "max_waiting": 10000000`), "strategies[0].pool.max_waiting", false, ""},
		{"pool max waiting one too many", attempts, pool(`"slots": 1, "max_waiting": 10000001`), "strategies[0].pool.max_waiting", true, "10000001"},
		{"pool max wait of 24h", attempts, pool(`"slots": 1, "max_waiting": 1, "max_wait": "24h"`), "strategies[0].pool.max_wait", false, ""},
		{"pool max wait past 24h", attempts, pool(`"slots": 1, "max_waiting": 1, "max_wait": "24h0m0.001s"`), "strategies[0].pool.max_wait", true, "24h0m0.001s"},
		{"pool max wait with 1 waiting", attempts, pool(`"slots": 1, "max_waiting": 1, "max_wait": "1s"`), "strategies[0].pool.max_wait", false, ""},
		{"pool max wait with none waiting", attempts, pool(`"slots": 1, "max_waiting": 0, "max_wait": "1s"`), "strategies[0].pool.max_wait", true, "1s"},
		{"pool max wait 0 with none waiting", attempts, pool(`"slots": 1, "max_waiting": 0, "max_wait": "0s"`), "strategies[0].pool.max_wait", false, ""},
		{"fallback latency 0", attempts, attempts + `, "fallbacks": [{"call": "dependency", "latency": "0s"}]`, "strategies[0].fallbacks[0].latency", false, ""},
		{"fallback latency under 0", attempts, attempts + `, "fallbacks": [{"call": "dependency", "latency": "-1ns"}]`, "strategies[0].fallbacks[0].latency", true, "-1ns"},
	}
	checkEdgesA(t, valid, cases)

	const mc = `"max_concurrent": 2`
	const b = "strategies[0].bulkheads[0]."
	checkEdgesA(t, validMulti, []edgeCaseA{
		{"bulkhead of 1", mc, `"max_concurrent": 1`, b + "max_concurrent", false, ""},
		{"bulkhead of 0", mc, `"max_concurrent": 0`, b + "max_concurrent", true, "0 is out of range"},
		{"bulkhead of the most", mc, `"max_concurrent": 100000`, b + "max_concurrent", false, ""},
		{"bulkhead of one too many", mc, `"max_concurrent": 100001`, b + "max_concurrent", true, "100001"},
		{"bulkhead max waiting -1", `"max_waiting": 4, "max_wait": "500ms"`, `"max_waiting": -1`, b + "max_waiting", true, "-1"},
		{"bulkhead max waiting at the most", `"max_waiting": 4`, `"max_waiting": 10000000`, b + "max_waiting", false, ""},
		{"bulkhead max waiting one too many", `"max_waiting": 4`, `"max_waiting": 10000001`, b + "max_waiting", true, "10000001"},
		{"bulkhead max wait with none waiting", `"max_waiting": 4`, `"max_waiting": 0`, b + "max_wait", true, "500ms"},
		{"multi call share 1", `"share": 0.5`, `"share": 1`, "workload.plan[1].calls[0].share", false, ""},
		{"multi call share past 1", `"share": 0.5`, `"share": 1.001`, "workload.plan[1].calls[0].share", true, "1.001"},
	})
}
