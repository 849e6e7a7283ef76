//go:build !nosearch

// The form of a one-click search: the playground's "What should I ship?"
// shows it beside a strategy. Left out, with the rest of the search's
// view, from builds without searches (only the playground's engine, which
// has them, asks for it).

package view

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/retrylab/retrylab/shared/engine"
)

// A SearchForm is what the playground's "What should I ship?" shows for
// one strategy: the default search the engine chooses for it
// (engine.DefaultSearchFor), as a form a reader can change without
// writing JSON. Every knob lists its values, each a checkbox (ticked: the
// default search tries it); every objective is a choice among Choices;
// the page writes the search from what is ticked and chosen (a knob with
// nothing ticked is left out, the strategy keeping its own setting; an
// objective left at "" is left out) and runs it.
type SearchForm struct {
	Strategy string `json:"strategy"`
	// Heading names the form; Intro says what the search does, in words.
	Heading string     `json:"heading"`
	Intro   string     `json:"intro"`
	Knobs   []FormKnob `json:"knobs"`
	// Objectives are the default's, then empty slots up to
	// engine.MaxObjectives: each holds the Value of one of Choices, or ""
	// (the first one may not be "").
	Objectives []FormObjective `json:"objectives"`
	Choices    []FormChoice    `json:"choices"`
	// Budget is the most candidates the search may try (the product of
	// the ticked values' counts): engine.DefaultSearchBudget.
	Budget int `json:"budget"`
	// Constraints are FormConstraints empty slots (Metric ""; the default
	// search has no constraints): each takes a metric among Metrics, an Op
	// among Ops and a value in the metric's Unit as the form shows it.
	Constraints []FormConstraint `json:"constraints"`
	Metrics     []FormMetric     `json:"metrics"`
	Ops         []FormOp         `json:"ops"`
	// Within names the library whose limits the knobs' values keep to
	// (engine.Search.Within), when the strategy is based on one: the page
	// writes it into the search, and Intro says so.
	Within string `json:"within,omitempty"`
}

// A FormKnob is a knob of the search: its path, what the form calls it,
// and its values.
type FormKnob struct {
	Path   string      `json:"path"`
	Label  string      `json:"label"`
	Values []FormValue `json:"values"`
}

// A FormValue is a value a knob may take: the JSON the search gives it,
// its words, and whether the default search tries it.
type FormValue struct {
	Value   json.RawMessage `json:"value"`
	Label   string          `json:"label"`
	Checked bool            `json:"checked"`
}

// A FormObjective is a slot for an objective: its label and the Value of
// the choice it holds.
type FormObjective struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// FormConstraints is how many constraint slots the form offers.
const FormConstraints = 2

// A FormConstraint is a slot for a constraint: the metric's key ("" for
// none), the comparison, and the bound in the unit the form shows (a
// rate in percent: the page divides by the metric's Scale).
type FormConstraint struct {
	Label  string    `json:"label"`
	Metric string    `json:"metric"`
	Op     engine.Op `json:"op"`
	Value  float64   `json:"value"`
}

// A FormChoice is an objective the form offers: a metric with a
// direction in which it improves, in words ("highest success rate in the
// affected window").
type FormChoice struct {
	Value  string      `json:"value"`
	Label  string      `json:"label"`
	Metric string      `json:"metric"`
	Goal   engine.Goal `json:"goal"`
}

// SearchFormOf returns the form of the default search from strategy name
// of sc, or an error when sc has no such strategy.
func SearchFormOf(sc *engine.Scenario, name string) (*SearchForm, error) {
	if !slices.ContainsFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == name }) {
		return nil, fmt.Errorf("the scenario has no strategy %q", name)
	}
	s := engine.DefaultSearchFor(sc, name)
	f := &SearchForm{
		Strategy: name,
		Heading:  "What should I ship? Settings for " + name,
		Budget:   engine.DefaultSearchBudget,
		Choices:  objectiveChoices(),
	}
	n := 1
	for _, k := range s.Knobs {
		fk := FormKnob{Path: k.Path, Label: knobLabel(k.Path)}
		for _, v := range k.Values {
			fk.Values = append(fk.Values, FormValue{Value: v, Label: knobValueLabel(k.Path, v), Checked: true})
		}
		n *= len(k.Values)
		f.Knobs = append(f.Knobs, fk)
	}
	var goals []string
	for i := 0; i < engine.MaxObjectives; i++ {
		o := FormObjective{Label: "Then"}
		if i == 0 {
			o.Label = "First objective (the recommendation is chosen by it)"
		}
		if i < len(s.Objectives) {
			o.Value = choiceValue(s.Objectives[i].Metric, s.Objectives[i].Goal)
			if c := f.choice(o.Value); c != nil {
				goals = append(goals, c.Label)
			}
		}
		f.Objectives = append(f.Objectives, o)
	}
	f.Metrics, f.Ops = formMetrics(), formOps()
	for i := range FormConstraints { // the default search has none
		f.Constraints = append(f.Constraints, FormConstraint{Label: fmt.Sprintf("Constraint %d", i+1), Op: engine.OpAtMost})
	}
	f.Intro = fmt.Sprintf("The search tries every combination of the values ticked below (%s as the default ticks them) on every seed of the scenario, by successive halving, and recommends the settings with the %s. Untick a value to leave it out; a knob with nothing ticked keeps %s's own setting. At most %d candidates.",
		countWords(n, "candidate"), listThen(goals), name, f.Budget)
	if lib := engine.LibraryNamed(s.Within); lib != nil {
		f.Within = lib.Name
		f.Intro += " " + name + " came from " + lib.Label + ", so its values are kept within " + lib.Label + "'s limits, and the recommendation exports as " + lib.Format + " exactly: " + lib.Limits + "."
	}
	return f, nil
}

// choice returns the choice with the given value, or nil.
func (f *SearchForm) choice(v string) *FormChoice {
	for i := range f.Choices {
		if f.Choices[i].Value == v {
			return &f.Choices[i]
		}
	}
	return nil
}

// choiceValue is a choice's Value: "max affected_success_rate".
func choiceValue(metric string, g engine.Goal) string { return string(g) + " " + metric }

// objectiveChoices lists the metrics that have a direction, each in the
// direction it improves, in the tables' order.
func objectiveChoices() []FormChoice {
	var out []FormChoice
	for _, m := range engine.MetricInfos {
		g, word := engine.GoalMax, "highest "
		switch m.Better {
		case 0:
			continue
		case -1:
			g, word = engine.GoalMin, "lowest "
		}
		out = append(out, FormChoice{Value: choiceValue(m.Key, g), Label: word + lowerFirst(m.Label), Metric: m.Key, Goal: g})
	}
	return out
}

// knobLabel names a knob for the form: "Max attempts", "Backoff at
// every level", "The level that retries"; a path it has no name for as
// itself.
func knobLabel(path string) string {
	if path == engine.RetryLevel {
		return "The level that retries"
	}
	if rest, level, ok := levelKnob(path); ok {
		return knobLabel(rest) + " at " + level
	}
	if l, ok := knobLabels[path]; ok {
		return l
	}
	return path
}

// knobLabels name the default searches' knobs.
var knobLabels = map[string]string{
	"max_attempts": "Max attempts",
	"backoff":      "Backoff",
	"jitter":       "Jitter",
	"budget":       "Retry budget",

	"attempt_timeout":          "Attempt timeout",
	"deadline":                 "Deadline",
	"breaker.failures":         "Failures that open the breaker",
	"breaker.ratio":            "Failure ratio that opens the breaker",
	"breaker.placement":        "Breaker around each attempt or the whole call",
	"hedging.delay":            "Hedging delay",
	"hedging.delay_percentile": "Hedging delay percentile",
}

// knobValueLabel writes a knob's value for its checkbox: "4 attempts",
// "exponential 1 s → 10 s", "none", "every level".
func knobValueLabel(path string, raw json.RawMessage) string {
	if path == engine.RetryLevel {
		return RetryLevelCell(raw)
	}
	if rest, _, ok := levelKnob(path); ok {
		path = rest
	}
	if path == "max_attempts" {
		return settingWords(path, raw)
	}
	return valueWords(raw)
}

// listThen writes "a", "a, then b" or "a, then b, then c".
func listThen(ws []string) string {
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += ", then "
		}
		s += w
	}
	return s
}

func lowerFirst(s string) string {
	if s == "" || (len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}
