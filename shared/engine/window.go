package engine

// An AffectedWindow is the span of start times, [From, To), of the
// operations a run counts as affected (affected_operations,
// affected_success_rate).
type AffectedWindow struct {
	From Duration `json:"from"`
	To   Duration `json:"to"`
	// Pinned says that report.affected_from and affected_to set it; else it
	// follows the phases.
	Pinned bool `json:"pinned,omitempty"`
	// Whole says that nothing bounds it (no report bounds and no phase):
	// every operation is affected, and From and To are 0.
	Whole bool `json:"whole,omitempty"`
	// Phases is the span of the dependencies' phases and of the load
	// phases that raise the load, from the earliest phase's from to the
	// latest phase's to, which the window follows unless it is pinned;
	// nil without phases.
	Phases *Span `json:"phases,omitempty"`
}

// A Span of virtual time, [From, To).
type Span struct {
	From Duration `json:"from"`
	To   Duration `json:"to"`
}

// AffectedWindow returns the window sc's runs judge: report.affected_from
// and affected_to when they are set (pinned), else the span of every
// dependency's phases and every load phase that raises the load (a
// trigger), else the whole run. It is the one place that
// decides it: the simulation counts affected operations in it, and the
// form and the view say it. The window does not follow the state a
// phase leaves behind (a queue still full at the phases' end): that is
// what recovery_s measures, from the fault's end. A sweep whose values
// move the phases or the bounds has a window per value, each the
// AffectedWindow of that value's scenario.
func (sc *Scenario) AffectedWindow() AffectedWindow {
	var w AffectedWindow
	deps := sc.Dependencies
	if len(deps) == 0 {
		deps = []Dependency{sc.Dependency}
	}
	for i := range deps {
		for _, ph := range deps[i].Phases {
			if w.Phases == nil {
				w.Phases = &Span{ph.From, ph.To}
			}
			w.Phases.From = min(w.Phases.From, ph.From)
			w.Phases.To = max(w.Phases.To, ph.To)
		}
	}
	for _, lp := range sc.Workload.Load {
		if !lp.Raises() {
			continue
		}
		if w.Phases == nil {
			w.Phases = &Span{lp.From, lp.To}
		}
		w.Phases.From = min(w.Phases.From, lp.From)
		w.Phases.To = max(w.Phases.To, lp.To)
	}
	switch r := &sc.Report; {
	case r.AffectedFrom != nil && r.AffectedTo != nil:
		w.From, w.To, w.Pinned = *r.AffectedFrom, *r.AffectedTo, true
	case w.Phases != nil:
		w.From, w.To = w.Phases.From, w.Phases.To
	default:
		w.Whole = true
	}
	return w
}
