package view

import (
	"fmt"

	"github.com/retrylab/retrylab/shared/engine"
)

// RequirementsForm is the playground form's box for report.thresholds:
// what each seed of every strategy should meet ("success rate in the
// affected window at least 95%"). A requirement takes a metric among
// Metrics, an Op among Ops and a value in the metric's unit as the form
// shows it (a rate as a percentage: divide by its Scale for the
// scenario); at most Max of them.
type RequirementsForm struct {
	Intro   string       `json:"intro"`
	Metrics []FormMetric `json:"metrics"`
	Ops     []FormOp     `json:"ops"`
	Max     int          `json:"max"`
}

// RequirementsFormOf returns the requirements box of the playground's
// form.
func RequirementsFormOf() RequirementsForm {
	return RequirementsForm{
		Intro: fmt.Sprintf("What each seed should meet, for every strategy: the comparison counts on how many seeds each strategy crosses each requirement, and says it under the comparison table. At most %d.",
			engine.MaxThresholds),
		Metrics: formMetrics(), Ops: formOps(), Max: engine.MaxThresholds,
	}
}

// A FormMetric is a metric a constraint may bound: its key, its label,
// the unit the form's value is in, and Scale, the form's value for 1 of
// the metric's own (100 for a rate, shown in percent).
type FormMetric struct {
	Key   string  `json:"key"`
	Label string  `json:"label"`
	Unit  string  `json:"unit,omitempty"`
	Scale float64 `json:"scale"`
}

// A FormOp is a comparison a constraint makes, in words.
type FormOp struct {
	Value engine.Op `json:"value"`
	Label string    `json:"label"`
}

// formMetrics lists the metrics a form's bounds may name, each with the
// scale its value is shown in (a rate as a percentage).
func formMetrics() []FormMetric {
	var out []FormMetric
	for _, m := range engine.MetricInfos {
		scale := 1.0
		if m.Unit == "%" {
			scale = 100
		}
		out = append(out, FormMetric{Key: m.Key, Label: m.Label, Unit: m.Unit, Scale: scale})
	}
	return out
}

// formOps lists the comparisons a form's bounds make, in words.
func formOps() []FormOp {
	return []FormOp{{engine.OpAtMost, "at most"}, {engine.OpAtLeast, "at least"}}
}
