package convert

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// An Istio VirtualService with retries and no retryOn, written for the
// test after https://istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRetry.
const istioReviews = `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: reviews
spec:
  hosts:
  - reviews
  http:
  - name: all
    route:
    - destination:
        host: reviews
    retries:
      attempts: 3
      perTryTimeout: 2s
`

// The route istiod makes of it for the sidecar (Istio ≥ 1.24: its default
// retryOn, no retriable status code; a 25 ms base interval, Envoy's
// default; the previous_hosts predicate), written for the test in the
// shape of a RouteConfiguration of route_components.proto.
const envoyReviews = `name: "80"
virtual_hosts:
- name: reviews.default.svc.cluster.local:80
  domains: ["reviews"]
  routes:
  - name: all
    match:
      prefix: /
    route:
      cluster: outbound|80||reviews.default.svc.cluster.local
      timeout: 0s
      retry_policy:
        retry_on: connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes
        num_retries: 3
        per_try_timeout: 2s
        retry_host_predicate:
        - name: envoy.retry_host_predicates.previous_hosts
        host_selection_retry_max_attempts: "5"
`

// TestIstioAndItsEnvoyRouteAgree: Envoy tests unavailable and cancelled
// on the grpc-status header only, so both imports read Istio's default
// conditions as connection errors for RetryLab's HTTP dependency, with
// the same policy, and make the same retries on the default workload.
func TestIstioAndItsEnvoyRouteAgree(t *testing.T) {
	var sts []engine.Strategy
	for _, c := range []struct{ format, doc string }{{Istio, istioReviews}, {Envoy, envoyReviews}} {
		im, err := Import(c.format, []byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if len(im.Strategies) != 1 {
			t.Fatalf("%s: %d strategies", c.format, len(im.Strategies))
		}
		sts = append(sts, im.Strategies[0])
	}
	is, en := sts[0].Policy, sts[1].Policy
	if !reflect.DeepEqual(is.RetryOn, en.RetryOn) || is.MaxAttempts != en.MaxAttempts || is.AttemptTimeout != en.AttemptTimeout ||
		is.Deadline != en.Deadline || is.Backoff != en.Backoff || is.Jitter != en.Jitter {
		t.Fatalf("Istio reads\n%+v\nEnvoy reads\n%+v", is, en)
	}
	if want := (engine.RetryOn{Connection: true}); !reflect.DeepEqual(*is.RetryOn, want) {
		t.Errorf("retry_on %+v; want connection errors only", *is.RetryOn)
	}
	var retries []float64
	for i, st := range sts {
		sc, err := scenarios.Imported([]engine.Strategy{st}, []string{Istio, Envoy}[i], "reviews.yaml")
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		retries = append(retries, res.Strategies[0].Metrics.Retries)
	}
	if retries[0] != retries[1] {
		t.Errorf("Istio's policy retries %v times, its Envoy route's %v", retries[0], retries[1])
	}
}

// TestGRPCConditionsNote: a gRPC condition retries nothing RetryLab's HTTP
// dependency answers, in Envoy and Istio alike, and the warning says how
// to read it for a gRPC service.
func TestGRPCConditionsNote(t *testing.T) {
	for _, c := range []struct{ format, doc string }{
		{Envoy, "match: {prefix: /}\nroute:\n  cluster: c\n  retry_policy: {retry_on: 'unavailable,connect-failure', num_retries: 2}\n"},
		{Istio, "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec:\n  hosts: [x]\n  http:\n  - route: [{destination: {host: x}}]\n    retries: {attempts: 2, retryOn: 'unavailable,connect-failure'}\n"},
	} {
		im, err := Import(c.format, []byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if ro := im.Strategies[0].RetryOn; len(ro.Statuses) > 0 || len(ro.StatusRanges) > 0 || !ro.Connection {
			t.Errorf("%s: retry_on %+v; want connection errors only", c.format, *ro)
		}
		found := false
		for _, n := range im.Notes {
			found = found || n.Level == Warning && strings.Contains(n.Message, "grpc-status header only") && strings.Contains(n.Message, "add 503 to the strategy's retry_on.statuses")
		}
		if !found {
			t.Errorf("%s: no warning on unavailable: %v", c.format, im.Notes)
		}
	}
}
