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
	return ImportedInto(ImportWorkload, strategies, format, source)
}

// ImportedInto puts strategies imported from a configuration (format,
// as convert names it; source, the file it came from or "") in place of
// the strategies of the built-in slug, on its workload, dependencies,
// seeds and report, marked as the user's own (report.yours): the user's
// policy against the built-in's incident. The built-in's search, which
// searches one of its own strategies, is left out (retrylab search adds
// one for an imported strategy). A slug that is not a built-in's is an
// error saying how to list them.
func ImportedInto(slug string, strategies []engine.Strategy, format, source string) (*engine.Scenario, error) {
	b, ok := Get(slug)
	if !ok {
		if slug == ImportWorkload {
			return nil, fmt.Errorf("the built-in %s is missing", ImportWorkload)
		}
		return nil, fmt.Errorf("%q is not the slug of a built-in scenario (retrylab list, or GET /api/scenarios, lists them)", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		return nil, err
	}
	what := "a configuration in the " + format + " format"
	if source != "" && source != "-" {
		what = fmt.Sprintf("%s (in the %s format)", filepath.Base(source), format)
	}
	if slug == ImportWorkload {
		sc.Name = "Imported from " + format
		sc.Description = fmt.Sprintf("The retry policies of %s, on the workload and dependency of the built-in %s (a 1.5 s freeze, its backlog answered 503, then 5 s at half capacity): edit them to match your service.", what, ImportWorkload)
	} else {
		sc.Name = fmt.Sprintf("Imported from %s into %s", format, slug)
		sc.Description = fmt.Sprintf("The retry policies of %s, in place of the strategies of the built-in %s (%s), on its workload and dependency: %s", what, slug, b.Title, b.Summary)
	}
	sc.Strategies = strategies
	sc.Search = nil
	sc.Report.Yours = nil
	for _, st := range strategies {
		sc.Report.Yours = append(sc.Report.Yours, st.Name)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}
