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
