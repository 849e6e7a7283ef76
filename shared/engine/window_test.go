package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAffectedWindow checks the window a run judges: pinned by the
// report's bounds, else the span of every dependency's phases, else the
// whole run; and that the simulation counts in that window.
func TestAffectedWindow(t *testing.T) {
	s := func(d string) Duration { v, _ := ParseDuration(d); return v }
	for _, c := range []struct {
		name, json string
		want       AffectedWindow
	}{
		{"no phases", `{"dependency": {"workers": 1}}`, AffectedWindow{Whole: true}},
		{"one phase", `{"dependency": {"phases": [{"kind": "outage", "from": "10s", "to": "30s"}]}}`,
			AffectedWindow{From: s("10s"), To: s("30s"), Phases: &Span{s("10s"), s("30s")}}},
		{"phases in any order", `{"dependency": {"phases": [
			{"kind": "capacity", "from": "40s", "to": "50s", "workers": 2},
			{"kind": "freeze", "from": "5s", "to": "8s"}]}}`,
			AffectedWindow{From: s("5s"), To: s("50s"), Phases: &Span{s("5s"), s("50s")}}},
		{"several dependencies", `{"dependencies": [
			{"name": "a", "phases": [{"kind": "outage", "from": "20s", "to": "25s"}]},
			{"name": "b"},
			{"name": "c", "phases": [{"kind": "errors", "from": "12s", "to": "18s", "rate": 0.5}]}]}`,
			AffectedWindow{From: s("12s"), To: s("25s"), Phases: &Span{s("12s"), s("25s")}}},
		{"pinned", `{"dependency": {"phases": [{"kind": "outage", "from": "10s", "to": "30s"}]},
			"report": {"affected_from": "10s", "affected_to": "1m"}}`,
			AffectedWindow{From: s("10s"), To: s("1m"), Pinned: true, Phases: &Span{s("10s"), s("30s")}}},
		{"pinned without phases", `{"dependency": {}, "report": {"affected_from": "1s", "affected_to": "2s"}}`,
			AffectedWindow{From: s("1s"), To: s("2s"), Pinned: true}},
	} {
		var sc Scenario
		if err := json.Unmarshal([]byte(c.json), &sc); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := sc.AffectedWindow()
		if got.From != c.want.From || got.To != c.want.To || got.Pinned != c.want.Pinned || got.Whole != c.want.Whole ||
			(got.Phases == nil) != (c.want.Phases == nil) || got.Phases != nil && *got.Phases != *c.want.Phases {
			t.Errorf("%s: AffectedWindow() = %+v (phases %v), want %+v (phases %v)", c.name, got, got.Phases, c.want, c.want.Phases)
		}
		// The simulation judges the same window.
		m := compile(&sc)
		from, to := int64(got.From), int64(got.To)
		if got.Whole {
			from, to = 0, never
		}
		if m.affectedFrom != from || m.affectedTo != to {
			t.Errorf("%s: the simulation judges [%v, %v), AffectedWindow says [%v, %v)", c.name,
				time.Duration(m.affectedFrom), time.Duration(m.affectedTo), time.Duration(from), time.Duration(to))
		}
	}
}

// TestPhasesThatHarmEndTheFault: the fault a run recovers from is the
// phases that harm: a latency phase that slows service (factor over 1)
// and a capacity phase that removes workers; one that speeds service or
// keeps the workers is no fault.
func TestPhasesThatHarmEndTheFault(t *testing.T) {
	for _, tc := range []struct {
		phase string
		want  Duration
	}{
		{`{"kind": "latency", "from": "1s", "to": "3s", "factor": 2}`, Duration(3 * time.Second)},
		{`{"kind": "latency", "from": "1s", "to": "3s", "factor": 1}`, 0},
		{`{"kind": "latency", "from": "1s", "to": "3s", "factor": 0.5}`, 0},
		{`{"kind": "capacity", "from": "1s", "to": "3s", "workers": 1}`, Duration(3 * time.Second)},
		{`{"kind": "capacity", "from": "1s", "to": "3s", "workers": 2}`, 0},
	} {
		sc, err := Parse([]byte(strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [`+tc.phase+`]`, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := FaultEnd(sc); got != tc.want {
			t.Errorf("%s: the fault ends at %s; want %s", tc.phase, got, tc.want)
		}
	}
}
