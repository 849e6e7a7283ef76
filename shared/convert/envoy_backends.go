package convert

import (
	"fmt"
	"math"
	"reflect"

	"github.com/retrylab/retrylab/shared/engine"
)

// envoyLimitWhat says what each circuit_breakers threshold RetryLab does
// not simulate limits.
var envoyLimitWhat = map[string]string{
	"max_connections":      "connections to its hosts (max_connections)",
	"max_pending_requests": "requests waiting for a connection (max_pending_requests)",
	"max_requests":         "requests in progress to its hosts (max_requests)",
	"max_connection_pools": "connection pools (max_connection_pools)",
}

// envoyPreviousHosts is the name of Envoy's previous-hosts retry host
// predicate, and the type of its typed_config.
const (
	envoyPreviousHosts     = "envoy.retry_host_predicates.previous_hosts"
	envoyPreviousHostsType = "type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate"
)

// envoyHostPredicates reads a route retry_policy's retry_host_predicate
// list: the previous-hosts predicate is the engine's; the others (omit
// canary hosts, omit host metadata) choose by what RetryLab's backends do
// not have, with a warning.
func envoyHostPredicates(n *notes, path string, v any, pol *engine.Policy) {
	list, ok := v.([]any)
	if !ok {
		n.fail(path, v, "is not an array of retry host predicates ({name, typed_config})")
		return
	}
	for i, x := range list {
		o, ok := asObject(n, index(path, i), x)
		if !ok {
			continue
		}
		name, _ := o.m["name"].(string)
		o.get("name", false)
		typ := ""
		if tv, tp, ok := o.get("typed_config", false); ok {
			if t, ok := asObject(n, tp, tv); ok {
				typ, _ = t.m["@type"].(string)
			}
		}
		o.unread(n, "is not a field of a retry host predicate (name, typed_config); not read")
		if name == envoyPreviousHosts || typ == envoyPreviousHostsType {
			pol.RetryHostPredicate = engine.HostPreviousHosts
			continue
		}
		n.warn(o.path, "%s chooses hosts by canary status or metadata, which RetryLab's backends do not have: not simulated", cmpOr(name, typ))
	}
}

// readBackends reads the backends of cluster (its document m) into the
// import's when it has outlier_detection, or when hostPredicate (a route
// to it retries on other hosts) and it lists several hosts: its hosts, lb_policy, outlier_detection and
// healthy panic threshold. The import's dependency is one: the first
// such cluster's backends are read, and another's differing ones are a
// warning.
func (r *envoyReader) readBackends(cluster string, m map[string]any, hostPredicate bool) {
	_, od := m["outlier_detection"]
	if r.backendsRead[cluster] || !od && !(hostPredicate && envoyHosts(m) >= 2) {
		return
	}
	r.backendsRead[cluster] = true
	var scratch notes
	n := r.n
	if r.backends != nil {
		n = &scratch // read to compare, noted once
	}
	path := r.clusters[cluster]
	c := &object{path: path, m: m, read: map[string]bool{}}
	var counted notes // said once the cluster's backends are read
	b := hostsBackends(&counted, join(path, "load_assignment"), envoyHosts(m))
	if v, p, ok := c.get("lb_policy", false); ok {
		switch s, _ := v.(string); s {
		case "ROUND_ROBIN":
		case "RANDOM":
			b.Balancer = engine.BalanceRandom
		case "LEAST_REQUEST":
			b.Balancer = engine.BalancePowerOfTwo
			if lv, lp, ok := c.get("least_request_lb_config", false); ok {
				if lo, ok := asObject(n, lp, lv); ok {
					if cv, cp, ok := lo.get("choice_count", false); ok {
						if k, ok := integer(n, cp, cv, false, 2, 1<<31); ok && k != 2 {
							n.warn(cp, "draws %d hosts; RetryLab's least-request balancers draw 2 (power_of_two_choices) or scan all (least_request): read as power_of_two_choices", k)
						}
					}
					lo.unread(n, "is not simulated; not read")
				}
			}
		default:
			n.warn(p, "is %v; RetryLab's balancers are round robin, random and least request: read as round_robin", v)
		}
	}
	if _, p, ok := c.get("load_balancing_policy", false); ok {
		n.warn(p, "is not read (RetryLab reads lb_policy): the balancer is round_robin unless lb_policy says otherwise")
	}
	if v, p, ok := c.get("outlier_detection", false); ok {
		b.OutlierDetection = envoyOutliers(n, p, v, b.Count)
		if b.OutlierDetection == nil && !hostPredicate {
			return // it ejects nothing: one server, as before
		}
	}
	if b.OutlierDetection != nil {
		if lv, _, ok := c.get("common_lb_config", false); ok {
			if lo, ok := asObject(n, join(path, "common_lb_config"), lv); ok {
				if hv, hp, ok := lo.get("healthy_panic_threshold", false); ok {
					if ho, ok := asObject(n, hp, hv); ok {
						if vv, vp, ok := ho.get("value", false); ok {
							if f, ok := number(n, vp, vv, false); ok {
								if f < 0 || f > 100 {
									n.fail(vp, vv, "is out of range; allowed a percentage from 0 to 100")
								} else {
									b.OutlierDetection.MinHealthPercent = &f
								}
							}
						}
					}
				}
			}
		}
	}
	n.list = append(n.list, counted.list...)
	if r.backends == nil {
		r.backends, r.backendsOf = b, cluster
	} else if !reflect.DeepEqual(r.backends, b) {
		r.n.warn(path, "has other backends than cluster %q; RetryLab's imported dependency is one: its backends are %q's", r.backendsOf, r.backendsOf)
	}
}

// envoyHosts counts the hosts a cluster's load_assignment lists: 0 when
// it lists none, or names a DNS name its type resolves to several.
func envoyHosts(m map[string]any) int {
	if t, _ := m["type"].(string); t == "EDS" {
		return 0
	}
	la, _ := m["load_assignment"].(map[string]any)
	locs, _ := la["endpoints"].([]any)
	count := 0
	for _, l := range locs {
		lm, _ := l.(map[string]any)
		eps, _ := lm["lb_endpoints"].([]any)
		count += len(eps)
	}
	if count < 2 {
		return 0
	}
	return count
}

// envoyOutlierUnsimulated are the fields of Envoy's OutlierDetection
// (outlier_detection.proto) that RetryLab does not simulate, with why.
var envoyOutlierUnsimulated = map[string]string{
	"split_external_local_origin_errors":          "local-origin errors are not told apart from the answers",
	"consecutive_local_origin_failure":            "local-origin errors are not told apart from the answers",
	"enforcing_consecutive_local_origin_failure":  "local-origin errors are not told apart from the answers",
	"enforcing_local_origin_success_rate":         "local-origin errors are not told apart from the answers",
	"enforcing_failure_percentage_local_origin":   "local-origin errors are not told apart from the answers",
	"success_rate_minimum_hosts":                  "success-rate ejection is not simulated",
	"success_rate_request_volume":                 "success-rate ejection is not simulated",
	"success_rate_stdev_factor":                   "success-rate ejection is not simulated",
	"failure_percentage_threshold":                "failure-percentage ejection is not simulated",
	"failure_percentage_minimum_hosts":            "failure-percentage ejection is not simulated",
	"failure_percentage_request_volume":           "failure-percentage ejection is not simulated",
	"max_ejection_time_jitter":                    "ejections end at an analysis sweep, without jitter",
	"successful_active_health_check_uneject_host": "active health checks are not simulated",
	"monitors":              "outlier detection extensions are not simulated",
	"detect_degraded_hosts": "degraded hosts are not simulated",
	"always_eject_one_host": "at least one host can always be ejected, as without it",
}

// envoyOutliers reads a cluster's outlier_detection at path, for count
// backends: nil when it ejects nothing.
func envoyOutliers(n *notes, path string, v any, count int) *engine.OutlierDetection {
	od := &engine.OutlierDetection{}
	o, ok := asObject(n, path, v)
	if !ok {
		return od
	}
	u32 := func(key string, hi int) (int, bool) {
		if v, p, ok := o.get(key, false); ok {
			return integer(n, p, v, false, 0, hi)
		}
		return 0, false
	}
	if k, ok := u32("consecutive_5xx", 1000); ok {
		if k == 0 {
			n.fail(join(path, "consecutive_5xx"), 0, "ejects at the first 5xx of every host, which RetryLab does not simulate; allowed 1..1000")
		}
		od.Consecutive5xx = k
	}
	if k, ok := u32("enforcing_consecutive_5xx", 100); ok {
		switch k {
		case 100:
		case 0:
			od.EnforcingConsecutive5xx = &k
		default:
			n.warn(join(path, "enforcing_consecutive_5xx"), "is %d%%: a chance of ejecting is not simulated; read as 100 (always)", k)
		}
	}
	gateway, _ := u32("consecutive_gateway_failure", 1000)
	if _, ok := o.m["consecutive_gateway_failure"]; !ok {
		gateway = 5 // outlier_detection.proto's default
	}
	if k, ok := u32("enforcing_consecutive_gateway_failure", 100); ok && k > 0 {
		if k != 100 {
			n.warn(join(path, "enforcing_consecutive_gateway_failure"), "is %d%%: a chance of ejecting is not simulated; read as 100 (always)", k)
		}
		od.ConsecutiveGatewayFailure = gateway
	} else if _, set := o.m["consecutive_gateway_failure"]; set {
		n.info(join(path, "consecutive_gateway_failure"), "ejects nothing: enforcing_consecutive_gateway_failure is 0, Envoy's default")
	}
	for _, f := range []struct {
		key string
		d   *engine.Duration
	}{{"interval", &od.Interval}, {"base_ejection_time", &od.BaseEjectionTime}, {"max_ejection_time", &od.MaxEjectionTime}} {
		if v, p, ok := o.get(f.key, false); ok {
			*f.d, _ = parseGRPCDuration(n, p, v)
		}
	}
	if k, ok := u32("max_ejection_percent", 100); ok {
		pc := float64(k)
		od.MaxEjectionPercent = &pc
	}
	rate, set := u32("enforcing_success_rate", 100)
	if (!set || rate > 0) && count >= 5 {
		n.warn(join(path, "enforcing_success_rate"), "is 100%% unless set to 0: with 5 hosts or more Envoy also ejects by success rate, which RetryLab does not simulate")
	}
	if k, _ := u32("enforcing_failure_percentage", 100); k > 0 { // 0 by default
		n.warn(join(path, "enforcing_failure_percentage"), "ejects by failure percentage, which RetryLab does not simulate")
	}
	for _, k := range o.sortedKeys() {
		if why, ok := envoyOutlierUnsimulated[k]; ok {
			o.get(k, false)
			n.warn(join(path, k), "is not simulated: %s", why)
		}
	}
	o.unread(n, "is not an outlier_detection field (outlier_detection.proto); not read")
	if od.EnforcingConsecutive5xx != nil && od.ConsecutiveGatewayFailure == 0 {
		n.warn(path, "ejects nothing (enforcing_consecutive_5xx and enforcing_consecutive_gateway_failure are 0): not simulated")
		return nil
	}
	return od
}

// envoyLbPolicyFor is the lb_policy an export writes for a balancer, and
// a warning when it is not the same.
func envoyLbPolicyFor(n *notes, k engine.BalancerKind) string {
	switch k {
	case "", engine.BalanceRoundRobin:
		return "ROUND_ROBIN"
	case engine.BalanceRandom:
		return "RANDOM"
	case engine.BalancePowerOfTwo:
		return "LEAST_REQUEST"
	case engine.BalanceLeastRequest:
		n.warn("dependency.backends.balancer", "is least_request (a full scan); Envoy's LEAST_REQUEST lb_policy draws 2 hosts (power_of_two_choices), and a full scan is an option of load_balancing_policy's least_request extension (selection_method FULL_SCAN): written as LEAST_REQUEST")
		return "LEAST_REQUEST"
	}
	n.warn("dependency.backends.balancer", "is %q, which this export does not write: written as ROUND_ROBIN, Envoy's default", k)
	return "ROUND_ROBIN"
}

// envoyHostName is the name of backend k of an export's cluster.
func envoyHostName(k int) string { return fmt.Sprintf("dependency-%d", k) }

// envoyOutliersFor writes an outlier detection (nil: none) as a cluster's
// outlier_detection and, for its min_health_percent, common_lb_config.
// Success-rate ejection, on by default in Envoy from 5 hosts, is turned
// off (enforcing_success_rate 0): the engine does not simulate it.
func envoyOutliersFor(n *notes, od *engine.OutlierDetection) (*envoyOutlierDetection, *envoyCommonLbConfig) {
	if od == nil {
		return nil, nil
	}
	out := &envoyOutlierDetection{EnforcingConsecutive5xx: od.EnforcingConsecutive5xx}
	if od.Consecutive5xx != 0 {
		out.Consecutive5xx = &od.Consecutive5xx
	}
	if od.ConsecutiveGatewayFailure != 0 {
		all := 100
		out.ConsecutiveGatewayFailure, out.EnforcingConsecutiveGatewayFailure = &od.ConsecutiveGatewayFailure, &all
	}
	for _, f := range []struct {
		d   engine.Duration
		out *string
	}{{od.Interval, &out.Interval}, {od.BaseEjectionTime, &out.BaseEjectionTime}, {od.MaxEjectionTime, &out.MaxEjectionTime}} {
		if f.d != 0 {
			*f.out = grpcDuration(f.d)
		}
	}
	if p := od.MaxEjectionPercent; p != nil {
		pc := uint32(math.Round(*p))
		if float64(pc) != *p {
			n.warn("dependency.backends.outlier_detection.max_ejection_percent", "is %v; Envoy's is a whole percentage: written as %d", *p, pc)
		}
		out.MaxEjectionPercent = &pc
	}
	var lb *envoyCommonLbConfig
	if p := od.MinHealthPercent; p != nil {
		lb = &envoyCommonLbConfig{HealthyPanicThreshold: envoyPercent{Value: *p}}
	}
	return out, lb
}
