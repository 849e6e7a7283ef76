package scenarios

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestImported: imported strategies land on ImportWorkload's workload and
// dependency, named after the format and, when given, the file; what the
// description says of that dependency (a 1.5 s freeze, its backlog
// answered 503, then 5 s at half capacity) is what the built-in has; an
// invalid strategy is refused with the engine's errors.
func TestImported(t *testing.T) {
	b, ok := Get(ImportWorkload)
	if !ok {
		t.Fatal("no " + ImportWorkload)
	}
	base, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	ph := base.Dependency.Phases
	if len(ph) != 2 || ph[0].Kind != engine.PhaseFreeze || ph[0].To.D()-ph[0].From.D() != 1500e6 || ph[0].Status != 503 ||
		ph[1].Kind != engine.PhaseCapacity || ph[1].From != ph[0].To || ph[1].To.D()-ph[1].From.D() != 5e9 || 2*ph[1].Workers != base.Dependency.Workers {
		t.Errorf("the description no longer says what %s's phases are: %+v", ImportWorkload, ph)
	}
	st := []engine.Strategy{{Name: "cart", Policy: engine.Policy{MaxAttempts: 3}}}
	sc, err := Imported(st, "grpc", "configs/service.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "Imported from grpc" || !strings.HasPrefix(sc.Description, "The retry policies of service.json (in the grpc format)") ||
		len(sc.Strategies) != 1 || sc.Strategies[0].Name != "cart" || !reflect.DeepEqual(sc.Workload, base.Workload) || !reflect.DeepEqual(sc.Dependency, base.Dependency) {
		t.Errorf("imported: %q, %q, %d strategies", sc.Name, sc.Description, len(sc.Strategies))
	}
	if sc, err := Imported(st, "envoy", "-"); err != nil || !strings.HasPrefix(sc.Description, "The retry policies of a configuration in the envoy format") {
		t.Errorf("from standard input: %v, %q", err, sc.Description)
	}
	if _, err := Imported([]engine.Strategy{{Name: "", Policy: engine.Policy{MaxAttempts: 3}}}, "grpc", ""); engine.AsErrors(err) == nil {
		t.Errorf("a strategy without a name: %v, want the engine's errors", err)
	}
}
