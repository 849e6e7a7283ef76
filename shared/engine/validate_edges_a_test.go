package engine

import (
	"fmt"
	"strings"
	"testing"
)

// edgeCase changes one fragment of a scenario document and says whether
// the value it gives is refused at path. A refused case's message names
// the value (msg, when given).
type edgeCase struct {
	desc    string
	old     string
	new     string
	path    string
	refused bool
	msg     string // a fragment of the refusal: the value as it is named
}

// checkEdges applies each case to the document base.
func checkEdges(t *testing.T, base string, cases []edgeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			doc := strings.Replace(base, tc.old, tc.new, 1)
			if doc == base {
				t.Fatalf("the case does not change the scenario")
			}
			_, err := Parse([]byte(doc))
			var at []string
			for _, e := range AsErrors(err) {
				if e.Path == tc.path {
					at = append(at, e.Error())
				}
			}
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

// list joins n items made by item(i) with commas.
func list(n int, item func(i int) string) string {
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
		return name + ` "seeds": [` + list(n, func(i int) string { return fmt.Sprint(i) }) + `],`
	}
	strategies := func(n int) string {
		return strat + ", " + list(n-1, func(i int) string { return fmt.Sprintf(`{"name": "s%d"}`, i) })
	}
	layers := func(n int) string {
		return `"max_attempts": 3, "layers": [` + list(n, func(int) string { return `{"max_attempts": 1}` }) + `]`
	}
	closed := func(think string) string {
		return `"arrival": "closed", "duration": "10s", "think_time": "` + think + `"`
	}
	fleets := func(n, clients int) string {
		return dur + `, "fleets": [` + list(n, func(i int) string {
			return fmt.Sprintf(`{"name": "f%d", "clients": %d, "rate": 1, "max_attempts": 1}`, i, clients)
		}) + `]`
	}
	phases := func(n int) string {
		return dur + `, "load": [` + list(n, func(int) string {
			return `{"kind": "spike", "from": "1s", "to": "2s", "rate": 5}`
		}) + `]`
	}
	phase := func(fields string) string {
		return dur + `, "load": [{"from": "1s", "to": "2s", ` + fields + `}]`
	}
	cases := []edgeCase{
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
	checkEdges(t, valid, cases)
}
