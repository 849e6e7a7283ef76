package convert

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestBackendsRoundTrip: an Envoy cluster and an Istio DestinationRule
// with outlier detection import into backends and strategies that retry
// on other hosts, export back (ExportFrom) to documents that import as
// the same, and make a scenario that runs.
func TestBackendsRoundTrip(t *testing.T) {
	for _, c := range []struct{ format, file string }{{Envoy, "envoy-cluster-outliers.yaml"}, {Istio, "istio-destinationrule.yaml"}} {
		data, err := os.ReadFile("testdata/import/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		im, err := Import(c.format, data)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if im.Backends == nil || im.Backends.OutlierDetection == nil || im.Strategies[0].RetryHostPredicate != engine.HostPreviousHosts {
			t.Fatalf("%s: imported without backends, outlier detection or host predicate:\n%s", c.file, indent(im))
		}
		out, notes, err := ExportFrom(c.format, im.Strategies[0], im.Backends)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			if n.Level == Warning {
				t.Errorf("%s: export warned: %s", c.file, n)
			}
		}
		back, err := Import(c.format, out)
		if err != nil {
			t.Fatalf("%s: the export does not import: %v\n%s", c.file, err, out)
		}
		if !reflect.DeepEqual(back.Backends, im.Backends) || !reflect.DeepEqual(back.Strategies[0].Policy, im.Strategies[0].Policy) {
			t.Errorf("%s: import(export) differs:\n%s\nwas\n%s\nexport:\n%s", c.file, indent(back), indent(im), out)
		}
		sc, err := im.Scenario(scenarios.ImportWorkload, c.format, c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !reflect.DeepEqual(sc.Dependency.Backends, im.Backends) {
			t.Errorf("%s: the scenario's backends are %+v, not the imported ones", c.file, sc.Dependency.Backends)
		}
		if _, err := engine.Run(t.Context(), sc, engine.Options{NoSeries: true}); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
	}
}

// TestHostPredicateNeedsHosts: a previous-hosts predicate on a route to
// a cluster the document does not show with several hosts is a warning,
// not a strategy field the scenario would refuse; and the scenario takes it.
func TestHostPredicateNeedsHosts(t *testing.T) {
	im, err := Import(Envoy, []byte("match: {prefix: /}\nroute:\n  cluster: c\n  timeout: 1s\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 2\n    retry_host_predicate:\n    - name: envoy.retry_host_predicates.previous_hosts\n"))
	if err != nil {
		t.Fatal(err)
	}
	if im.Backends != nil || im.Strategies[0].RetryHostPredicate != "" {
		t.Errorf("imported backends %+v and predicate %q; want neither", im.Backends, im.Strategies[0].RetryHostPredicate)
	}
	warned := false
	for _, n := range im.Notes {
		warned = warned || n.Level == Warning && strings.Contains(n.Message, "retry_host_predicate previous_hosts")
	}
	if !warned {
		t.Errorf("no warning on the predicate: %v", im.Notes)
	}
	if _, err := im.Scenario(scenarios.ImportWorkload, Envoy, ""); err != nil {
		t.Error(err)
	}
}

// TestOutliersThatEjectNothing: an outlier detection that turns off every
// ejection it has is a warning and leaves the dependency one server, in
// Envoy and Istio alike, rather than backends the engine refuses.
func TestOutliersThatEjectNothing(t *testing.T) {
	for _, c := range []struct{ format, doc string }{
		{Envoy, "match: {prefix: /}\nroute:\n  cluster: c\n  timeout: 1s\n  retry_policy: {retry_on: 5xx, num_retries: 2}\n---\nname: c\noutlier_detection: {enforcing_consecutive_5xx: 0}\n"},
		{Istio, "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: c}\nspec:\n  host: c\n  trafficPolicy:\n    outlierDetection: {consecutive5xxErrors: 0}\n"},
	} {
		im, err := Import(c.format, []byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if im.Backends != nil {
			t.Errorf("%s: backends %+v", c.format, im.Backends)
		}
		warned := false
		for _, n := range im.Notes {
			warned = warned || n.Level == Warning && strings.Contains(n.Message, "ejects nothing")
		}
		if !warned {
			t.Errorf("%s: no warning: %v", c.format, im.Notes)
		}
		if _, err := im.Scenario(scenarios.ImportWorkload, c.format, ""); err != nil {
			t.Errorf("%s: %v", c.format, err)
		}
	}
}

// TestBackendsShareCapacity: an Istio DestinationRule with outlier
// detection, imported into E03-B (10 workers, a queue of 100, a capacity
// phase of 5 workers), gives backends that share that capacity, within
// rounding, rather than each having all of it, and a note says the totals
// when the split is not exact.
func TestBackendsShareCapacity(t *testing.T) {
	data, err := os.ReadFile("testdata/import/istio-destinationrule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(Istio, data)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := scenarios.Get("e03b-synchronized-recovery")
	if !ok {
		t.Fatal("no built-in e03b-synchronized-recovery")
	}
	builtin, err := scenarios.Decode(b.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := im.Scenario("e03b-synchronized-recovery", Istio, "")
	if err != nil {
		t.Fatal(err)
	}
	was, d := builtin.Dependency, sc.Dependency
	n := d.Backends.Count
	if n != 3 {
		t.Fatalf("%d backends, want the 3 assumed", n)
	}
	within := func(what string, total, each int) {
		t.Helper()
		if got := each * n; got < total-n/2 || got > total+n/2 || each < 1 {
			t.Errorf("%s: %d backends × %d = %d, want %d within rounding", what, n, each, got, total)
		}
	}
	within("workers", was.Workers, d.Workers)
	within("queue_capacity", was.QueueCapacity, d.QueueCapacity)
	capacity := 0
	for i, p := range was.Phases {
		if p.Kind == engine.PhaseCapacity {
			capacity++
			within(p.Label, p.Workers, d.Phases[i].Workers)
		}
	}
	if capacity == 0 {
		t.Fatal("E03-B has no capacity phase: the test checks none")
	}
	said := false
	for _, nt := range im.Notes {
		said = said || nt.Path == "dependency.workers" && nt.Message == "10 workers over 3 backends: 3 each, 9 in all"
	}
	if !said {
		t.Errorf("no note on the workers' split: %v", im.Notes)
	}
	if _, err := engine.Run(t.Context(), sc, engine.Options{NoSeries: true}); err != nil {
		t.Error(err)
	}
}

// TestShareCapacityTwice: a dependency that has backends already shares
// its totals (its capacity times their count) among the new ones, so an
// import into the playground's scenario twice does not divide twice.
func TestShareCapacityTwice(t *testing.T) {
	d := engine.Dependency{Workers: 5, QueueCapacity: 50, Backends: &engine.Backends{Count: 2}}
	notes := ShareCapacity(&d, engine.Backends{Count: 4})
	if d.Workers != 3 || d.QueueCapacity != 25 || d.Backends.Count != 4 {
		t.Errorf("workers %d, queue %d over %d backends; want 3 and 25 over 4", d.Workers, d.QueueCapacity, d.Backends.Count)
	}
	if len(notes) != 1 || notes[0].Message != "10 workers over 4 backends: 3 each, 12 in all" {
		t.Errorf("notes %v; want one on the workers", notes)
	}
}

// TestEnvoyBackendsEdges: the cluster's healthy panic threshold is a
// percentage from 0 to 100, both taken as they are; with 5 hosts Envoy
// also ejects by success rate, with 4 it does not.
func TestEnvoyBackendsEdges(t *testing.T) {
	cluster := func(hosts int, extra string) string {
		var eps []string
		for i := range hosts {
			eps = append(eps, fmt.Sprintf("{endpoint: {address: {socket_address: {address: h%d, port_value: 80}}}}", i))
		}
		return "match: {prefix: /}\nroute: {cluster: c, timeout: 1s, retry_policy: {retry_on: 5xx}}\n---\nname: c\nload_assignment: {endpoints: [{lb_endpoints: [" +
			strings.Join(eps, ", ") + "]}]}\noutlier_detection: {consecutive_5xx: 5}\n" + extra
	}
	for _, tc := range []struct {
		doc   string
		panic float64 // the min_health_percent read; -1: refused, 50: not set
		note  string  // a warning containing it ("" for none on enforcing_success_rate)
	}{
		{cluster(2, "common_lb_config: {healthy_panic_threshold: {value: 100}}"), 100, ""},
		{cluster(2, "common_lb_config: {healthy_panic_threshold: {value: 0}}"), 0, ""},
		{cluster(2, "common_lb_config: {healthy_panic_threshold: {value: 100.5}}"), -1, "common_lb_config.healthy_panic_threshold.value: 100.5 is out of range; allowed a percentage from 0 to 100"},
		{cluster(2, "common_lb_config: {healthy_panic_threshold: {value: -0.5}}"), -1, "healthy_panic_threshold.value: -0.5 is out of range"},
		{cluster(4, ""), 50, ""},
		{cluster(5, ""), 50, "with 5 hosts or more Envoy also ejects by success rate"},
		{strings.Replace(cluster(5, ""), "consecutive_5xx: 5}", "consecutive_5xx: 5, enforcing_success_rate: 0}", 1), 50, ""},
	} {
		im, err := Import(Envoy, []byte(tc.doc))
		if tc.panic < 0 {
			if err == nil || !strings.Contains(err.Error(), tc.note) {
				t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.note)
			}
			continue
		}
		if err != nil {
			t.Errorf("Import(%s): %v", tc.doc, err)
			continue
		}
		if od := im.Backends.OutlierDetection; tc.panic != 50 && (od == nil || od.MinHealthPercent == nil || *od.MinHealthPercent != tc.panic) {
			t.Errorf("Import(%s): backends %s; want min_health_percent %v", tc.doc, indent(im.Backends), tc.panic)
		}
		warned := false
		for _, n := range im.Notes {
			warned = warned || strings.Contains(n.Path, "enforcing_success_rate")
		}
		if warned != (tc.note != "") {
			t.Errorf("Import(%s): a warning on enforcing_success_rate is %v: %v", tc.doc, warned, im.Notes)
		}
	}
}

// TestShareCapacityAutoscale: an autoscaler of one server, which counts
// workers, gets its bounds in backends of the workers each holds; one over
// backends keeps its bounds; either way they widen to hold the backends
// the dependency starts with, and a note says the bounds.
func TestShareCapacityAutoscale(t *testing.T) {
	for _, tc := range []struct {
		had, n   int // backends before (1: none), after
		workers  int
		min, max int
		want     engine.Autoscale
		note     string // "" for none
	}{
		{1, 3, 12, 12, 24, engine.Autoscale{Min: 3, Max: 6}, "the autoscaler's 12..24 workers become 3..6 backends of 4 workers (12..24 workers): over backends it adds and removes whole backends"},
		{1, 3, 12, 2, 6, engine.Autoscale{Min: 1, Max: 3}, "the autoscaler's 2..6 workers become 1..3 backends of 4 workers (4..12 workers): over backends it adds and removes whole backends"},
		{1, 2, 4, 2, 100000, engine.Autoscale{Min: 1, Max: engine.MaxBackends}, fmt.Sprintf("the autoscaler's 2..100000 workers become 1..%d backends of 2 workers (2..%d workers): over backends it adds and removes whole backends, %d at most", engine.MaxBackends, 2*engine.MaxBackends, engine.MaxBackends)},
		{3, 6, 4, 2, 5, engine.Autoscale{Min: 2, Max: 6}, "the autoscaler's 2..5 backends become 2..6, to hold the 6 it starts with"},
		{3, 4, 4, 2, 5, engine.Autoscale{Min: 2, Max: 5}, ""},
	} {
		d := &engine.Dependency{Workers: tc.workers, Autoscale: &engine.Autoscale{Min: tc.min, Max: tc.max}}
		if tc.had > 1 {
			d.Backends = &engine.Backends{Count: tc.had}
		}
		notes := ShareCapacity(d, engine.Backends{Count: tc.n})
		if got := *d.Autoscale; got != tc.want {
			t.Errorf("%d..%d over %d backends, now %d: autoscale %+v, want %+v", tc.min, tc.max, tc.had, tc.n, got, tc.want)
		}
		said := ""
		for _, nt := range notes {
			if nt.Path == "dependency.autoscale" {
				said = nt.Message
			}
		}
		if said != tc.note {
			t.Errorf("%d..%d over %d backends, now %d: note %q, want %q", tc.min, tc.max, tc.had, tc.n, said, tc.note)
		}
	}
}
