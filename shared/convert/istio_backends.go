package convert

import (
	"math"
	"reflect"

	"github.com/retrylab/retrylab/shared/engine"
)

// istioHostSelections is how many times Istio's retries choose a host
// again when the previous-hosts predicate rejects it: Istio's route
// retry policy sets host_selection_retry_max_attempts to 5 beside
// envoy.retry_host_predicates.previous_hosts, unless the route's
// retryIgnorePreviousHosts is false.
const istioHostSelections = 5

// istioPoolWhy says why each connectionPool.http field RetryLab does not
// simulate is not: what it limits, and that the dependency has no such
// limit.
var istioPoolWhy = map[string]string{
	"maxRequestsPerConnection": "RetryLab's connections take no time to open, so closing one after that many requests changes nothing",
	"idleTimeout":              "RetryLab does not simulate connections",
	"h2UpgradePolicy":          "RetryLab does not simulate connections",
	"useClientProtocol":        "RetryLab does not simulate connections",
	"maxConcurrentStreams":     "RetryLab does not simulate connections",
}

// istioOutliers reads a DestinationRule's outlierDetection at path (nil
// when it ejects nothing) as
// Istio writes it into Envoy's cluster: consecutive5xxErrors (0 turns
// it off), consecutiveGatewayErrors (above 0 turns it on), the
// deprecated consecutiveErrors (502, 503 and 504 only: gateway errors),
// interval, baseEjectionTime, maxEjectionPercent (0: Envoy's 10) and
// minHealthPercent, Envoy's healthy panic threshold, which Istio sets
// always (default 0, no panic).
func istioOutliers(n *notes, path string, v any) *engine.OutlierDetection {
	zero := 0.0
	od := &engine.OutlierDetection{MinHealthPercent: &zero}
	o, ok := asObject(n, path, v)
	if !ok {
		return od
	}
	count := func(key string) (int, bool) {
		if v, p, ok := o.get(key, false); ok {
			return integer(n, p, v, false, 0, 1000)
		}
		return 0, false
	}
	if k, ok := count("consecutive5xxErrors"); ok {
		if k == 0 {
			off := 0
			od.EnforcingConsecutive5xx = &off
		} else {
			od.Consecutive5xx = k
		}
	}
	if k, ok := count("consecutiveGatewayErrors"); ok && k > 0 {
		od.ConsecutiveGatewayFailure = k
	}
	if k, ok := count("consecutiveErrors"); ok && k > 0 {
		n.info(join(path, "consecutiveErrors"), "is deprecated; Istio counts 502, 503 and 504 as its errors: read as consecutive_gateway_failure %d, with consecutive 5xx ejection off", k)
		off := 0
		od.ConsecutiveGatewayFailure, od.EnforcingConsecutive5xx, od.Consecutive5xx = k, &off, 0
	}
	for _, f := range []struct {
		key string
		d   *engine.Duration
	}{{"interval", &od.Interval}, {"baseEjectionTime", &od.BaseEjectionTime}} {
		if v, p, ok := o.get(f.key, false); ok {
			*f.d, _ = istioMs(n, p, v)
		}
	}
	for _, f := range []struct {
		key string
		p   **float64
	}{{"maxEjectionPercent", &od.MaxEjectionPercent}, {"minHealthPercent", &od.MinHealthPercent}} {
		if v, p, ok := o.get(f.key, false); ok {
			if k, ok := integer(n, p, v, false, 0, 100); ok {
				pc := float64(k)
				if f.key == "maxEjectionPercent" && k == 0 {
					n.info(p, "is 0, which Istio does not write (maxEjectionPercent > 0 only): Envoy's default, 10%%")
					continue
				}
				*f.p = &pc
			}
		}
	}
	for _, k := range []string{"splitExternalLocalOriginErrors", "consecutiveLocalOriginFailures"} {
		if _, p, ok := o.get(k, false); ok {
			n.warn(p, "is not simulated: RetryLab does not tell local-origin errors apart from the answers; not read")
		}
	}
	o.unread(n, "is not an outlierDetection field; not read")
	if od.EnforcingConsecutive5xx != nil && od.ConsecutiveGatewayFailure == 0 {
		n.warn(path, "ejects nothing (consecutive5xxErrors is 0 and consecutiveGatewayErrors not above 0): the dependency stays one server")
		return nil
	}
	return od
}

// istioBackends are the backends the DestinationRules drs give the
// dependency: those of the first with outlierDetection, in a number
// hostsBackends assumes (a Kubernetes service does not say how many pods
// it has), with a warning for another's differing outlier detection.
func istioBackends(n *notes, drs []*istioDR) *engine.Backends {
	var b *engine.Backends
	var from *istioDR
	for _, dr := range drs {
		if dr.outliers == nil {
			continue
		}
		if b == nil {
			b, from = hostsBackends(n, dr.odPath, 0), dr
			b.OutlierDetection = dr.outliers
			switch dr.balancer {
			case "":
				b.Balancer = engine.BalancePowerOfTwo
				n.info(dr.path+".trafficPolicy", "sets no loadBalancer: Istio's default since 1.14, LEAST_REQUEST (Envoy's, two hosts drawn): imported as power_of_two_choices")
			case engine.BalanceRoundRobin: // the engine's default
			default:
				b.Balancer = dr.balancer
			}
			continue
		}
		if !reflect.DeepEqual(b.OutlierDetection, dr.outliers) {
			n.warn(dr.odPath, "differs from the outlierDetection of %s; RetryLab's imported dependency is one: its backends are %s's", from.host, from.host)
		}
	}
	for _, dr := range drs {
		if b == nil && dr.balancer != "" {
			n.warn(dr.path+".trafficPolicy.loadBalancer", "chooses among the service's hosts; without an outlierDetection RetryLab's dependency is one server: not simulated")
		}
	}
	return b
}

// istioOutlierSpec is the outlierDetection an export writes, in Istio's
// names.
type istioOutlierSpec struct {
	Consecutive5xxErrors     *int   `yaml:"consecutive5xxErrors,omitempty"`
	ConsecutiveGatewayErrors int    `yaml:"consecutiveGatewayErrors,omitempty"`
	Interval                 string `yaml:"interval,omitempty"`
	BaseEjectionTime         string `yaml:"baseEjectionTime,omitempty"`
	MaxEjectionPercent       int    `yaml:"maxEjectionPercent,omitempty"`
	MinHealthPercent         int    `yaml:"minHealthPercent,omitempty"`
}

// istioOutliersFor writes an outlier detection in Istio's names, with a
// warning for what Istio cannot say.
func istioOutliersFor(n *notes, od *engine.OutlierDetection) *istioOutlierSpec {
	const at = "dependency.backends.outlier_detection."
	out := &istioOutlierSpec{ConsecutiveGatewayErrors: od.ConsecutiveGatewayFailure}
	switch {
	case od.EnforcingConsecutive5xx != nil && *od.EnforcingConsecutive5xx == 0:
		off := 0
		out.Consecutive5xxErrors = &off
	case od.Consecutive5xx != 0:
		k := od.Consecutive5xx
		out.Consecutive5xxErrors = &k
	}
	if od.Interval != 0 {
		out.Interval = istioSpan(n, at+"interval", od.Interval)
	}
	if od.BaseEjectionTime != 0 {
		out.BaseEjectionTime = istioSpan(n, at+"base_ejection_time", od.BaseEjectionTime)
	}
	if od.MaxEjectionTime != 0 {
		n.warn(at+"max_ejection_time", "is not an Istio field; Istio leaves Envoy's default (300 s, or the base ejection time when longer): not exported")
	}
	if p := od.MaxEjectionPercent; p != nil {
		out.MaxEjectionPercent = int(math.Round(*p))
		if *p == 0 {
			n.warn(at+"max_ejection_percent", "is 0, which Istio does not write (it leaves Envoy's 10%%); at least one host can always be ejected either way: not exported")
		} else if float64(out.MaxEjectionPercent) != *p {
			n.warn(at+"max_ejection_percent", "is %v; Istio's is a whole percentage: written as %d", *p, out.MaxEjectionPercent)
		}
	}
	mh := float64(engine.DefaultMinHealthPercent)
	if p := od.MinHealthPercent; p != nil {
		mh = *p
	}
	out.MinHealthPercent = int(math.Round(mh))
	if float64(out.MinHealthPercent) != mh {
		n.warn(at+"min_health_percent", "is %v; Istio's minHealthPercent is a whole percentage: written as %d", mh, out.MinHealthPercent)
	}
	return out
}

// istioBalancerFor is the loadBalancer.simple an export writes for a
// balancer, and a warning when it is not the same.
func istioBalancerFor(n *notes, k engine.BalancerKind) string {
	switch k {
	case "", engine.BalanceRoundRobin:
		return "ROUND_ROBIN" // Istio's default is LEAST_REQUEST
	case engine.BalanceRandom:
		return "RANDOM"
	case engine.BalancePowerOfTwo:
		return "LEAST_REQUEST"
	case engine.BalanceLeastRequest:
		n.warn("dependency.backends.balancer", "is least_request (a full scan); Istio's LEAST_REQUEST is Envoy's, which draws 2 hosts (power_of_two_choices): written as LEAST_REQUEST")
		return "LEAST_REQUEST"
	}
	n.warn("dependency.backends.balancer", "is %q, which this export does not write: written as LEAST_REQUEST, Istio's default", k)
	return "LEAST_REQUEST"
}

// istioBalancer reads a trafficPolicy's loadBalancer at path: its simple
// policy, the balancer of the backends outlierDetection makes.
func istioBalancer(n *notes, path string, v any, dr *istioDR) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	if v, p, ok := o.get("simple", false); ok {
		switch s, _ := v.(string); s {
		case "UNSPECIFIED": // Istio's default
		case "ROUND_ROBIN":
			dr.balancer = engine.BalanceRoundRobin
		case "RANDOM":
			dr.balancer = engine.BalanceRandom
		case "LEAST_REQUEST", "LEAST_CONN":
			dr.balancer = engine.BalancePowerOfTwo
		default:
			n.warn(p, "is %v; RetryLab's balancers are round robin, random and least request: read as ROUND_ROBIN", v)
		}
	}
	o.unread(n, "is not simulated (RetryLab reads loadBalancer.simple); not read")
}
