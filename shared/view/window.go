package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// windowNote returns the sentence that says which operations the run
// counted as affected, from engine.AffectedWindow (the window the
// simulation judged), and rewrites the explanations of the table's rows
// of the affected window to name it.
func windowNote(sc *engine.Scenario, groups []Group) string {
	span := Window(sc)
	for g := range groups {
		for r := range groups[g].Rows {
			switch row := &groups[g].Rows[r]; row.Key {
			case "affected_operations":
				row.Explain = "Operations that started in the affected window: " + span + "."
			case "affected_success_rate":
				row.Explain = "Share of the operations started in the affected window (" + span + ") that succeeded."
			}
		}
	}
	return "Affected window: " + span + "."
}

// Window says the affected window of sc (engine.AffectedWindow) and what
// sets it: "operations started from 10s to 30s, the span of the
// dependency's phases". The view's sentence and the playground's form say
// it in these words.
func Window(sc *engine.Scenario) string {
	w := sc.AffectedWindow()
	phases := "the dependency's phases"
	if len(sc.Dependencies) > 1 {
		phases = "the dependencies' phases"
	}
	deps := len(sc.Dependency.Phases) > 0
	for _, d := range sc.Dependencies {
		deps = deps || len(d.Phases) > 0
	}
	if slices.ContainsFunc(sc.Workload.Load, func(lp engine.LoadPhase) bool { return lp.Raises() }) {
		// The load phases that raise the load are a trigger too.
		if deps {
			phases += " and the load increases"
		} else {
			phases = "the load increases"
		}
	}
	switch {
	case w.Whole:
		return "every operation, since no dependency has a phase, no load phase raises the load, and report.affected_from and affected_to are not set"
	case w.Pinned:
		s := fmt.Sprintf("operations started from %s to %s, pinned by report.affected_from and affected_to", w.From, w.To)
		if w.Phases != nil && (w.Phases.From != w.From || w.Phases.To != w.To) {
			s += fmt.Sprintf(" (%s span %s to %s)", phases, w.Phases.From, w.Phases.To)
		}
		return s
	}
	return fmt.Sprintf("operations started from %s to %s, the span of %s", w.From, w.To, phases)
}

// WindowVaries reports whether sc's affected window can differ from one
// value of its sweep to the next: the sweep sets a dependency's phases or
// the report. One window is not said of such a scenario.
func WindowVaries(sc *engine.Scenario) bool {
	if sc.Sweep == nil {
		return false
	}
	p := sc.Sweep.Path
	return strings.Contains(p, "phases") || strings.HasPrefix(p, "report") || p == "dependency" || strings.HasPrefix(p, "dependencies") && !strings.Contains(p, ".")
}

// WindowVariesText says, for a scenario whose window varies with its
// sweep (WindowVaries), why no one window is said.
func WindowVariesText(sc *engine.Scenario) string {
	return fmt.Sprintf("the affected window varies with the sweep of %s: each value's phases or report set its own", sc.Sweep.Path)
}
