package view

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestViewSaysTheAffectedWindow: the view says which operations the run
// counted as affected, pinned or following the phases, as the engine
// decided it (#27, item 7), in its sentence and in the affected rows'
// explanations.
func TestViewSaysTheAffectedWindow(t *testing.T) {
	one := func(edit func(*engine.Scenario)) func(*engine.Scenario) {
		return func(sc *engine.Scenario) {
			sc.Runs, sc.Seeds = 1, nil
			if edit != nil {
				edit(sc)
			}
		}
	}
	d := func(s string) *engine.Duration { v, _ := engine.ParseDuration(s); return &v }
	for _, c := range []struct {
		name string
		edit func(*engine.Scenario)
		want string
	}{
		{"pinned as the phases", nil, "Affected window: operations started from 8.5s to 15s, pinned by report.affected_from and affected_to."},
		{"pinned elsewhere", func(sc *engine.Scenario) { sc.Report.AffectedFrom, sc.Report.AffectedTo = d("5s"), d("25s") },
			"Affected window: operations started from 5s to 25s, pinned by report.affected_from and affected_to (the dependency's phases span 8.5s to 15s)."},
		{"following a moved phase", func(sc *engine.Scenario) {
			sc.Report.AffectedFrom, sc.Report.AffectedTo = nil, nil
			sc.Dependency.Phases[1].To = *d("20s")
		}, "Affected window: operations started from 8.5s to 20s, the span of the dependency's phases."},
		{"no phases", func(sc *engine.Scenario) {
			sc.Report.AffectedFrom, sc.Report.AffectedTo = nil, nil
			sc.Dependency.Phases = nil
		}, "Affected window: every operation, since no dependency has a phase, no load phase raises the load, and report.affected_from and affected_to are not set."},
		{"a load increase", func(sc *engine.Scenario) {
			sc.Report.AffectedFrom, sc.Report.AffectedTo = nil, nil
			sc.Dependency.Phases = nil
			sc.Workload.Load = []engine.LoadPhase{{Kind: engine.LoadStep, From: *d("5s"), To: *d("10s"), Factor: 2}}
		}, "Affected window: operations started from 5s to 10s, the span of the load increases."},
		{"a load increase and phases", func(sc *engine.Scenario) {
			sc.Report.AffectedFrom, sc.Report.AffectedTo = nil, nil
			sc.Workload.Load = []engine.LoadPhase{{Kind: engine.LoadSpike, From: *d("20s"), To: *d("22s"), Rate: 50}}
		}, "Affected window: operations started from 8.5s to 22s, the span of the dependency's phases and the load increases."},
	} {
		_, v := runBuiltin(t, "e03b-synchronized-recovery", one(c.edit))
		if v.Window != c.want {
			t.Errorf("%s: the view says\n%q, want\n%q", c.name, v.Window, c.want)
		}
		found := false
		for _, g := range v.Groups {
			for _, r := range g.Rows {
				if r.Key == "affected_success_rate" {
					found = true
					wantIn(t, c.name+": the row's explanation", r.Explain, c.want[len("Affected window: "):len(c.want)-1])
				}
			}
		}
		if !found {
			t.Errorf("%s: no row affected_success_rate", c.name)
		}
	}
}

// TestWindowVaries: one window is not said of a sweep that moves the
// phases or the report; a sweep of anything else keeps one window.
func TestWindowVaries(t *testing.T) {
	for path, want := range map[string]bool{
		"dependency.phases[0].to":        true,
		"dependencies[1].phases[0].from": true,
		"report.affected_to":             true,
		"dependency":                     true,
		"dependency.error_rate":          false,
		"strategies[0].max_attempts":     false,
		"workload.rate":                  false,
	} {
		sc := &engine.Scenario{Sweep: &engine.Sweep{Path: path}}
		if got := WindowVaries(sc); got != want {
			t.Errorf("sweep of %s: varies %v, want %v", path, got, want)
		}
	}
	if WindowVaries(&engine.Scenario{}) {
		t.Error("a scenario without a sweep varies")
	}
	sc := &engine.Scenario{Sweep: &engine.Sweep{Path: "dependency.phases[0].to"}}
	if got := WindowVariesText(sc); !strings.Contains(got, "varies with the sweep of dependency.phases[0].to") {
		t.Errorf("%q", got)
	}
}

// TestWindowSaysWhoseSpan: the span follows the phases of the dependency,
// one whether given as dependency or as a list of one, or of the
// dependencies when there are several.
func TestWindowSaysWhoseSpan(t *testing.T) {
	outage := func(from, to float64) []engine.Phase {
		return []engine.Phase{{Kind: engine.PhaseOutage, From: engine.Duration(from * 1e9), To: engine.Duration(to * 1e9)}}
	}
	for _, c := range []struct {
		name string
		sc   engine.Scenario
		want string
	}{
		{"the dependency", engine.Scenario{Dependency: engine.Dependency{Phases: outage(2, 5)}},
			"operations started from 2s to 5s, the span of the dependency's phases"},
		{"a list of one", engine.Scenario{Dependencies: []engine.Dependency{{Name: "db", Phases: outage(2, 5)}}},
			"operations started from 2s to 5s, the span of the dependency's phases"},
		{"a list of two", engine.Scenario{Dependencies: []engine.Dependency{{Name: "db", Phases: outage(2, 5)}, {Name: "cache", Phases: outage(4, 9)}}},
			"operations started from 2s to 9s, the span of the dependencies' phases"},
	} {
		if got := Window(&c.sc); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
