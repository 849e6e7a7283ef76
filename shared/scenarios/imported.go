package scenarios

import (
	"fmt"
	"path/filepath"

	"github.com/retrylab/retrylab/shared/engine"
)

// ImportWorkload is the built-in whose workload, dependency, seeds and
// report an imported configuration's strategies are put on: E03-B's
// freeze, a backlog answered 503 and five seconds at half capacity, where
// how a policy retries decides how the dependency recovers.
const ImportWorkload = "e03b-synchronized-recovery"

// Imported puts strategies imported from a configuration (format,
// as convert names it; source, the file it came from or "") on
// ImportWorkload's workload and dependency, marked as the user's own
// (report.yours): a valid scenario the user then edits.
func Imported(strategies []engine.Strategy, format, source string) (*engine.Scenario, error) {
	b, ok := Get(ImportWorkload)
	if !ok {
		return nil, fmt.Errorf("the built-in %s is missing", ImportWorkload)
	}
	sc, err := b.Parse()
	if err != nil {
		return nil, err
	}
	sc.Name = "Imported from " + format
	sc.Description = fmt.Sprintf("The retry policies of a configuration in the %s format, on the workload and dependency of the built-in %s (a 1.5 s freeze, its backlog answered 503, then 5 s at half capacity): edit them to match your service.", format, ImportWorkload)
	if source != "" && source != "-" {
		sc.Description = fmt.Sprintf("The retry policies of %s (in the %s format), on the workload and dependency of the built-in %s (a 1.5 s freeze, its backlog answered 503, then 5 s at half capacity): edit them to match your service.", filepath.Base(source), format, ImportWorkload)
	}
	sc.Strategies = strategies
	sc.Report.Yours = nil
	for _, st := range strategies {
		sc.Report.Yours = append(sc.Report.Yours, st.Name)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}
