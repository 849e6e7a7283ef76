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

// TestImportedInto: imported strategies take the place of every
// built-in's strategies, on its workload and dependencies, marked as the
// user's and named after the format and the built-in; the built-in's
// search, of a strategy no longer there, is left out; a slug that is no
// built-in's is an error saying how to list them.
func TestImportedInto(t *testing.T) {
	st := []engine.Strategy{{Name: "cart", Policy: engine.Policy{MaxAttempts: 3}}}
	for _, b := range All() {
		base, err := b.Parse()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ImportedInto(b.Slug, st, "grpc", "configs/service.json")
		if err != nil {
			t.Errorf("%s: %v", b.Slug, err)
			continue
		}
		if len(sc.Strategies) != 1 || sc.Strategies[0].Name != "cart" || !reflect.DeepEqual(sc.Report.Yours, []string{"cart"}) || sc.Search != nil ||
			!reflect.DeepEqual(sc.Workload, base.Workload) || !reflect.DeepEqual(sc.Dependency, base.Dependency) || !reflect.DeepEqual(sc.Dependencies, base.Dependencies) ||
			!reflect.DeepEqual(sc.Seeds, base.Seeds) || sc.Runs != base.Runs {
			t.Errorf("%s: %d strategies, yours %v, search %v", b.Slug, len(sc.Strategies), sc.Report.Yours, sc.Search)
		}
		if b.Slug != ImportWorkload && (sc.Name != "Imported from grpc into "+b.Slug || !strings.Contains(sc.Description, "service.json (in the grpc format), in place of the strategies of the built-in "+b.Slug)) {
			t.Errorf("%s: %q, %q", b.Slug, sc.Name, sc.Description)
		}
	}
	into, err := ImportedInto(ImportWorkload, st, "grpc", "service.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := Imported(st, "grpc", "service.json"); !reflect.DeepEqual(sc, into) {
		t.Errorf("Imported is not ImportedInto %s", ImportWorkload)
	}
	if _, err := ImportedInto("e03b", st, "grpc", ""); err == nil || !strings.Contains(err.Error(), `"e03b" is not the slug of a built-in`) || !strings.Contains(err.Error(), "retrylab list") {
		t.Errorf("an unknown slug: %v", err)
	}
}
