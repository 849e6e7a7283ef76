package convert

import (
	"os"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestBackendsIntoEveryBuiltin: a configuration with backends (an Istio
// DestinationRule's outlier detection: 3 backends assumed) imported into
// each built-in gives a scenario that validates, or an error that says
// why that built-in's dependency cannot be backends. An autoscaler over
// workers becomes one over backends (autoscale-lag's 10..40 workers are
// 3..8 backends of 3), since over backends min and max count backends.
func TestBackendsIntoEveryBuiltin(t *testing.T) {
	data, err := os.ReadFile("testdata/import/istio-destinationrule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(Istio, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range scenarios.All() {
		sc, err := im.Scenario(b.Slug, Istio, "")
		if err != nil {
			// A contended row lives on one server; a built-in of several
			// dependencies does not say which one the backends are.
			if msg := err.Error(); !strings.Contains(msg, "dependency.contention: is given together with backends") &&
				!strings.Contains(msg, "import into a built-in with one dependency") {
				t.Errorf("%s: %v", b.Slug, err)
			}
			continue
		}
		if sc.Dependency.Backends == nil && len(sc.Dependencies) == 0 {
			t.Errorf("%s: no backends", b.Slug)
		}
		if b.Slug == "autoscale-lag" {
			a := sc.Dependency.Autoscale
			if a == nil || a.Min != 3 || a.Max != engine.MaxBackends {
				t.Errorf("autoscale-lag: autoscaler %+v, want 3..%d backends", a, engine.MaxBackends)
			}
		}
	}
}
