package conformance

import (
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	previoushostsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"
	"google.golang.org/protobuf/proto"
	networking "istio.io/api/networking/v1"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// randomBackends draws backends with outlier detection whose every field
// Envoy and Istio can write (whole percentages, whole milliseconds).
func randomBackends(r *rand.Rand) *engine.Backends {
	b := &engine.Backends{Count: 2 + r.IntN(engine.MaxBackends-1), Balancer: []engine.BalancerKind{"", engine.BalanceRandom, engine.BalancePowerOfTwo}[r.IntN(3)]}
	od := &engine.OutlierDetection{}
	if r.IntN(2) == 0 {
		od.Consecutive5xx = 1 + r.IntN(20)
	}
	if r.IntN(2) == 0 {
		od.ConsecutiveGatewayFailure = 1 + r.IntN(20)
		if r.IntN(3) == 0 {
			off := 0
			od.EnforcingConsecutive5xx, od.Consecutive5xx = &off, 0
		}
	}
	if r.IntN(2) == 0 {
		od.Interval = engine.Duration(time.Duration(1+r.IntN(60000)) * time.Millisecond)
	}
	if r.IntN(2) == 0 {
		od.BaseEjectionTime = engine.Duration(time.Duration(1+r.IntN(60000)) * time.Millisecond)
	}
	if r.IntN(2) == 0 {
		pc := float64(1 + r.IntN(100))
		od.MaxEjectionPercent = &pc
	}
	if r.IntN(2) == 0 {
		pc := float64(r.IntN(101))
		od.MinHealthPercent = &pc
	}
	b.OutlierDetection = od
	return b
}

// TestConvertEnvoyBackendsExportParses: a strategy that retries on other
// hosts, exported with its dependency's backends, is a bootstrap
// go-control-plane reads and validates, whose cluster has the backends'
// hosts, lb_policy, outlier_detection and panic threshold and whose route
// has the previous-hosts predicate; convert.Import reads it back as the
// same backends and policy.
func TestConvertEnvoyBackendsExportParses(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 2))
	for i := range 200 {
		st := randomStrategy(r, i)
		st.RetryHostPredicate = engine.HostPreviousHosts
		st.HostSelectionRetryMaxAttempts = r.IntN(6)
		b := randomBackends(r)
		if r.IntN(4) == 0 {
			b.OutlierDetection = nil
		}
		out, _, err := convert.ExportFrom(convert.Envoy, st, b)
		if err != nil {
			t.Fatal(err)
		}
		route, cluster := envoyExported(t, out)
		rp := route.GetRoute().GetRetryPolicy()
		if hp := rp.GetRetryHostPredicate(); len(hp) != 1 || hp[0].GetName() != "envoy.retry_host_predicates.previous_hosts" || !hp[0].GetTypedConfig().MessageIs(&previoushostsv3.PreviousHostsPredicate{}) {
			t.Errorf("%s: retry_host_predicate %v", st.Name, hp)
		}
		if got := int(rp.GetHostSelectionRetryMaxAttempts()); got != st.HostSelectionRetryMaxAttempts {
			t.Errorf("%s: host_selection_retry_max_attempts %d, want %d", st.Name, got, st.HostSelectionRetryMaxAttempts)
		}
		if n := len(cluster.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()); n != b.Count {
			t.Errorf("%s: %d hosts, want %d", st.Name, n, b.Count)
		}
		wantLb := map[engine.BalancerKind]clusterv3.Cluster_LbPolicy{"": clusterv3.Cluster_ROUND_ROBIN, engine.BalanceRandom: clusterv3.Cluster_RANDOM, engine.BalancePowerOfTwo: clusterv3.Cluster_LEAST_REQUEST}[b.Balancer]
		if cluster.GetLbPolicy() != wantLb {
			t.Errorf("%s: lb_policy %v for %q", st.Name, cluster.GetLbPolicy(), b.Balancer)
		}
		if od := b.OutlierDetection; od != nil {
			c := cluster.GetOutlierDetection()
			if c == nil {
				t.Fatalf("%s: no outlier_detection\n%s", st.Name, out)
			}
			five := 5 // outlier_detection.proto's defaults
			if c.GetConsecutive_5Xx() != nil {
				five = int(c.GetConsecutive_5Xx().GetValue())
			}
			enforcing5 := c.GetEnforcingConsecutive_5Xx() == nil || c.GetEnforcingConsecutive_5Xx().GetValue() == 100
			gateway := 0
			if c.GetEnforcingConsecutiveGatewayFailure().GetValue() == 100 {
				gateway = int(c.GetConsecutiveGatewayFailure().GetValue())
			}
			if want := max(od.Consecutive5xx, 0); enforcing5 && five != cmpOr(want, engine.DefaultConsecutive5xx) ||
				enforcing5 != (od.EnforcingConsecutive5xx == nil) || gateway != od.ConsecutiveGatewayFailure {
				t.Errorf("%s: outlier_detection %v for %+v", st.Name, c, od)
			}
			if c.GetEnforcingSuccessRate() == nil || c.GetEnforcingSuccessRate().GetValue() != 0 {
				t.Errorf("%s: success-rate ejection is not off: %v", st.Name, c.GetEnforcingSuccessRate())
			}
			interval := 10 * time.Second
			if c.GetInterval() != nil {
				interval = c.GetInterval().AsDuration()
			}
			if engine.Duration(interval) != cmpOr(od.Interval, engine.DefaultOutlierInterval) {
				t.Errorf("%s: interval %v for %v", st.Name, interval, od.Interval)
			}
			panic := 50.0
			if p := cluster.GetCommonLbConfig().GetHealthyPanicThreshold(); p != nil {
				panic = p.GetValue()
			}
			if want := engine.DefaultMinHealthPercent; od.MinHealthPercent != nil && *od.MinHealthPercent != panic || od.MinHealthPercent == nil && panic != want {
				t.Errorf("%s: healthy_panic_threshold %v for %v", st.Name, panic, od.MinHealthPercent)
			}
		} else if cluster.GetOutlierDetection() != nil {
			t.Errorf("%s: outlier_detection without one", st.Name)
		}
		im, err := convert.Import(convert.Envoy, out)
		if err != nil {
			t.Fatalf("%s: the export does not import: %v", st.Name, err)
		}
		if !reflect.DeepEqual(im.Backends, b) && !(b.Balancer == "" && im.Backends != nil && reflect.DeepEqual(*im.Backends, *b)) {
			t.Errorf("%s: backends %+v re-imported as %+v\n%s", st.Name, b, im.Backends, out)
		}
		if back := im.Strategies[0]; back.RetryHostPredicate != st.RetryHostPredicate || back.HostSelectionRetryMaxAttempts != st.HostSelectionRetryMaxAttempts {
			t.Errorf("%s: re-imported predicate %q %d", st.Name, back.RetryHostPredicate, back.HostSelectionRetryMaxAttempts)
		}
	}
}

// TestConvertIstioBackendsExportParses: backends with outlier detection
// export as a DestinationRule that Istio's API reads (unknown fields
// refused), with Istio's field names and the values, and that
// convert.Import reads back as the same outlier detection.
func TestConvertIstioBackendsExportParses(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 3))
	for i := range 200 {
		st := randomStrategy(r, i)
		b := randomBackends(r)
		b.Count = 3 // what an Istio import assumes: a DestinationRule has no count
		if b.OutlierDetection.MinHealthPercent == nil {
			zero := 0.0 // Istio's default
			b.OutlierDetection.MinHealthPercent = &zero
		}
		out, _, err := convert.ExportFrom(convert.Istio, st, b)
		if err != nil {
			t.Fatal(err)
		}
		var dr *networking.DestinationRule
		for _, o := range kubeObjects(t, out) {
			var m proto.Message = &networking.VirtualService{}
			if o.Kind == "DestinationRule" {
				dr = &networking.DestinationRule{}
				m = dr
			}
			if err := istioStrict(o.Spec, m); err != nil {
				t.Fatalf("%s: istio.io/api refuses the %s: %v\n%s", st.Name, o.Kind, err, out)
			}
			if vs, ok := m.(*networking.VirtualService); ok && st.MaxAttempts != 1 {
				// Istio's default: retries avoid the hosts tried (the
				// strategy has no predicate, so the export turns it off).
				if ig := vs.Http[0].GetRetries().GetRetryIgnorePreviousHosts(); ig == nil || ig.GetValue() {
					t.Errorf("%s: retryIgnorePreviousHosts %v; the strategy retries on any host", st.Name, ig)
				}
			}
		}
		if dr == nil {
			t.Fatalf("%s: no DestinationRule\n%s", st.Name, out)
		}
		od, got := b.OutlierDetection, dr.GetTrafficPolicy().GetOutlierDetection()
		five := -1 // not set
		if got.GetConsecutive_5XxErrors() != nil {
			five = int(got.GetConsecutive_5XxErrors().GetValue())
		}
		switch {
		case od.EnforcingConsecutive5xx != nil && five != 0,
			od.EnforcingConsecutive5xx == nil && od.Consecutive5xx != 0 && five != od.Consecutive5xx,
			od.EnforcingConsecutive5xx == nil && od.Consecutive5xx == 0 && five != -1,
			int(got.GetConsecutiveGatewayErrors().GetValue()) != od.ConsecutiveGatewayFailure,
			od.Interval != 0 && engine.Duration(got.GetInterval().AsDuration()) != od.Interval,
			od.BaseEjectionTime != 0 && engine.Duration(got.GetBaseEjectionTime().AsDuration()) != od.BaseEjectionTime,
			od.MaxEjectionPercent != nil && float64(got.GetMaxEjectionPercent()) != *od.MaxEjectionPercent,
			float64(got.GetMinHealthPercent()) != *od.MinHealthPercent:
			t.Errorf("%s: outlierDetection %v for %+v", st.Name, got, od)
		}
		im, err := convert.Import(convert.Istio, out)
		if err != nil {
			t.Fatalf("%s: the export does not import: %v", st.Name, err)
		}
		if !reflect.DeepEqual(im.Backends, b) {
			t.Errorf("%s: backends %+v re-imported as %+v\n%s", st.Name, b, im.Backends, out)
		}
	}
}

// TestConvertBackendSamplesParse: the samples with backends are what the
// real schemas take (TestConvertEnvoySamplesParse and
// TestConvertIstioSamplesParse read every sample); here, that the
// fixtures this test relies on exist.
func TestConvertBackendSamplesParse(t *testing.T) {
	for _, f := range []string{"envoy-cluster-outliers.yaml", "istio-destinationrule.yaml"} {
		if _, err := os.Stat("../shared/convert/testdata/import/" + f); err != nil {
			t.Error(err)
		}
	}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
