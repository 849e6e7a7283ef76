package conformance

import (
	"testing"

	networking "istio.io/api/networking/v1"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// connLimitCases are connection limits an export must write exactly.
var connLimitCases = []engine.ConnectionLimits{
	{MaxConnections: 100, MaxPending: 10, MaxRequests: 200},
	{MaxRequests: 5},
	{MaxConnections: 3, MaxPending: engine.MaxConnectionLimit},
	{MaxConnections: 7, MaxPending: 2},
	{MaxConnections: 1, MaxPending: 0, MaxRequests: 1},
}

// envoyNoLimit is the largest uint32, a threshold effectively off.
const envoyNoLimit = 4294967295

// envoyLimit is how Envoy reads a connection limit of k: 0 is none.
func envoyLimit(k int) uint32 {
	if k == 0 {
		return envoyNoLimit
	}
	return uint32(k)
}

// TestConvertEnvoyConnectionLimits: go-control-plane reads each export's
// threshold max_connections, max_pending_requests and max_requests as
// the strategy's connection limits, and the export imports back the same.
func TestConvertEnvoyConnectionLimits(t *testing.T) {
	for _, cl := range connLimitCases {
		st := engine.Strategy{Name: "limits", Policy: engine.Policy{MaxAttempts: 2, ConnectionLimits: &cl}}
		out, _, err := convert.Export(convert.Envoy, st)
		if err != nil {
			t.Fatal(err)
		}
		_, cluster := envoyExported(t, out)
		th := cluster.GetCircuitBreakers().GetThresholds()[0]
		if th.GetMaxConnections().GetValue() != envoyLimit(cl.MaxConnections) || th.GetMaxRequests().GetValue() != envoyLimit(cl.MaxRequests) {
			t.Errorf("%+v: Envoy reads max_connections %d, max_requests %d", cl, th.GetMaxConnections().GetValue(), th.GetMaxRequests().GetValue())
		}
		// max_pending_requests matters only with a connection limit: an
		// attempt waits only for a connection.
		if cl.MaxConnections > 0 && (th.GetMaxPendingRequests() == nil || th.GetMaxPendingRequests().GetValue() != uint32(cl.MaxPending)) {
			t.Errorf("%+v: Envoy reads max_pending_requests %v", cl, th.GetMaxPendingRequests())
		}
		im, err := convert.Import(convert.Envoy, out)
		if err != nil {
			t.Fatalf("%+v: the export does not import: %v", cl, err)
		}
		if got := im.Strategies[0].ConnectionLimits; got == nil || *got != cl {
			t.Errorf("%+v: re-imported as %+v", cl, got)
		}
	}
}

// TestConvertIstioConnectionLimits: istio.io/api reads each export's
// DestinationRule connectionPool, and Istio's cluster builder
// (applyConnectionPool: a value above 0 replaces the threshold's default,
// 2^32-1) makes of it the threshold the strategy's limits are.
func TestConvertIstioConnectionLimits(t *testing.T) {
	for _, cl := range connLimitCases {
		st := engine.Strategy{Name: "limits", Policy: engine.Policy{MaxAttempts: 2, ConnectionLimits: &cl}}
		out, notes, err := convert.Export(convert.Istio, st)
		if err != nil {
			t.Fatal(err)
		}
		var dr *networking.DestinationRule
		for _, o := range kubeObjects(t, out) {
			if o.Kind != "DestinationRule" {
				continue
			}
			dr = &networking.DestinationRule{}
			if err := istioStrict(o.Spec, dr); err != nil {
				t.Fatalf("%+v: istio.io/api refuses the DestinationRule: %v\n%s", cl, err, out)
			}
		}
		if dr == nil {
			t.Fatalf("%+v: no DestinationRule:\n%s", cl, out)
		}
		cp := dr.GetTrafficPolicy().GetConnectionPool()
		threshold := func(v int32) uint32 {
			if v > 0 {
				return uint32(v)
			}
			return envoyNoLimit
		}
		conns, pending, reqs := threshold(cp.GetTcp().GetMaxConnections()), threshold(cp.GetHttp().GetHttp1MaxPendingRequests()), threshold(cp.GetHttp().GetHttp2MaxRequests())
		if conns != envoyLimit(cl.MaxConnections) || reqs != envoyLimit(cl.MaxRequests) {
			t.Errorf("%+v: Istio writes max_connections %d, max_requests %d", cl, conns, reqs)
		}
		wantPending := envoyLimit(cl.MaxPending)
		if cl.MaxPending >= engine.MaxConnectionLimit {
			wantPending = envoyNoLimit
		}
		if cl.MaxConnections > 0 && cl.MaxPending == 0 {
			// Istio cannot say that none waits: 1, with a warning.
			wantPending = 1
			if !meshWarned(notes, "connection_limits") {
				t.Errorf("%+v: no warning for max_pending 0", cl)
			}
		}
		if cl.MaxConnections > 0 && pending != wantPending {
			t.Errorf("%+v: Istio writes max_pending_requests %d, want %d", cl, pending, wantPending)
		}
		im, err := convert.Import(convert.Istio, out)
		if err != nil {
			t.Fatalf("%+v: the export does not import: %v", cl, err)
		}
		got := im.Strategies[0].ConnectionLimits
		want := cl
		if cl.MaxConnections > 0 && cl.MaxPending == 0 {
			want.MaxPending = 1
		}
		if got == nil || *got != want {
			t.Errorf("%+v: re-imported as %+v", cl, got)
		}
	}
}
