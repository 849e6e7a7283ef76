package convert

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// Envoy's defaults (api/envoy/config/route/v3/route_components.proto,
// api/envoy/config/cluster/v3/circuit_breaker.proto).
const (
	// envoyRouteTimeout is RouteAction.timeout when it is not set.
	envoyRouteTimeout = engine.Duration(15e9)
	// envoyBaseInterval is the back-off's base_interval without
	// retry_back_off; max_interval defaults to 10 × base_interval.
	envoyBaseInterval = engine.Duration(25e6)
	// envoyMaxRetries is a threshold's max_retries when not set.
	envoyMaxRetries = 3
	// envoyMaxLimit is a threshold's max_connections,
	// max_pending_requests and max_requests when not set.
	envoyMaxLimit = 1024
	// envoyRateLimitedMax is rate_limited_retry_back_off.max_interval
	// when not set.
	envoyRateLimitedMax = engine.Duration(300e9)
	// envoyNoLimit is the largest uint32: a threshold set to it is
	// effectively off (Envoy's FAQ "How do I disable circuit breaking?").
	envoyNoLimit = math.MaxUint32
	// envoyDocs is the route retry policy's reference.
	envoyDocs = "https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto"
)

// envoyRetry returns the envoy-retry preset's policy: what a retry_policy
// with retry_on 5xx and nothing else is.
func envoyRetry() engine.Policy {
	return engine.Policy{
		BasedOn:     "envoy-retry",
		MaxAttempts: 2,
		Deadline:    envoyRouteTimeout,
		Backoff:     engine.Backoff{Kind: engine.BackoffExponential, Base: envoyBaseInterval, Multiplier: 2, Max: 10 * envoyBaseInterval},
		Jitter:      engine.Jitter{Kind: engine.JitterFull},
		RetryOn:     &engine.RetryOn{StatusRanges: []string{"500-599"}, Timeout: true, Connection: true},
	}
}

// envoyRetryOn is what each retry_on condition retries in RetryLab's
// terms (router_filter.rst x-envoy-retry-on and x-envoy-retry-grpc-on;
// retry_state_impl.cc wouldRetryFromHeaders and wouldRetryFromReset, as
// conformance/envoy_test.go encodes them).
var envoyRetryOn = map[string]struct {
	statuses            []int
	all5xx              bool
	timeout, connection bool
	note                string
}{
	"5xx":             {all5xx: true, timeout: true, connection: true},
	"gateway-error":   {statuses: []int{502, 503, 504}, timeout: true, connection: true},
	"reset":           {timeout: true, connection: true},
	"connect-failure": {connection: true},
	"reset-before-request": {connection: true,
		note: "retries a reset before the request reached the server: RetryLab's connection errors are those; a reset after is not retried"},
	"retriable-4xx": {statuses: []int{409}},
	// gRPC statuses (x-envoy-retry-grpc-on): Envoy tests them on the
	// answer's grpc-status header only, which RetryLab's HTTP dependency
	// never sends (see envoyGRPCNote).
	"cancelled":          {note: envoyGRPCNote("CANCELLED", 499)},
	"deadline-exceeded":  {note: envoyGRPCNote("DEADLINE_EXCEEDED", 504)},
	"internal":           {note: envoyGRPCNote("INTERNAL", 500)},
	"resource-exhausted": {note: envoyGRPCNote("RESOURCE_EXHAUSTED", 429)},
	"unavailable":        {note: envoyGRPCNote("UNAVAILABLE", 503)},
}

// envoyGRPCNote says how a gRPC condition of x-envoy-retry-grpc-on is
// read, by Envoy and Istio alike: Envoy's router docs
// (https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter#x-envoy-retry-grpc-on)
// and retry_state_impl.cc's wouldRetryFromHeaders test the gRPC status in
// the grpc-status header (or trailer) of the answer, never its HTTP
// status: an HTTP service's 503 is not "unavailable". RetryLab's
// dependency answers HTTP statuses without grpc-status, so the condition
// retries nothing it simulates; the note says how to get the gRPC reading.
func envoyGRPCNote(code string, status int) string {
	return fmt.Sprintf("checks the grpc-status header only (Envoy's x-envoy-retry-grpc-on), which RetryLab's HTTP dependency never sends: it retries nothing here. For a gRPC service, whose %s RetryLab answers as HTTP %d (google.rpc.Code's mapping, as the grpc format reads it), add %d to the strategy's retry_on.statuses", code, status, status)
}

// envoyNotSimulated are the retry_on conditions RetryLab has no outcome
// for, with why.
var envoyNotSimulated = map[string]string{
	"refused-stream":             "retries an HTTP/2 REFUSED_STREAM; RetryLab's dependency never refuses a stream: not simulated",
	"envoy-ratelimited":          "retries answers carrying x-envoy-ratelimited, set by Envoy's own rate limit filter; not simulated",
	"http3-post-connect-failure": "retries HTTP/3 failures after the connection was made; not simulated",
	"retriable-headers":          "retries answers matching retriable_headers; RetryLab's answers have no headers to match: not simulated",
}

// envoyRoute is a route found in the document, with what it inherits.
type envoyRoute struct {
	path  string
	m     map[string]any
	retry any    // the virtual host's retry_policy, nil if none
	rpath string // its path
}

type envoyReader struct {
	n        *notes
	routes   []*envoyRoute
	clusters map[string]string // name → path
	cmaps    map[string]map[string]any
	warned   map[string]bool
	budgets  map[string]*engine.Budget           // by cluster path and priority
	limits   map[string]*engine.ConnectionLimits // likewise
	// The RouteConfigurations read, by name, and the rds references to
	// check against them once the document is read: a config dump holds
	// the routes an HttpConnectionManager's rds names.
	routeConfigs map[string]bool
	rds          []envoyRDS
	// The backends of the first cluster of an imported route with
	// outlier_detection, and that cluster's name.
	backends     *engine.Backends
	backendsOf   string
	backendsRead map[string]bool // the clusters whose backends were read
}

// An envoyRDS is an HttpConnectionManager's rds: where, and the
// route_config_name it asks for.
type envoyRDS struct{ path, name string }

func importEnvoy(data []byte) (*Imported, error) {
	docs, err := decodeYAML(data)
	if err != nil {
		return nil, err
	}
	var n notes
	r := &envoyReader{n: &n, clusters: map[string]string{}, cmaps: map[string]map[string]any{}, warned: map[string]bool{}, budgets: map[string]*engine.Budget{}, limits: map[string]*engine.ConnectionLimits{}, routeConfigs: map[string]bool{}, backendsRead: map[string]bool{}}
	camel := false
	for i := range docs {
		docs[i] = envoySnakeKeys(docs[i], &camel)
	}
	if camel {
		n.info("", "Envoy's JSON names in camelCase (retryPolicy) are read as their proto names (retry_policy), which the paths in these notes use")
	}
	for i, d := range docs {
		path := ""
		if len(docs) > 1 {
			path = "[document " + strconv.Itoa(i+1) + "]"
		}
		if list, ok := d.([]any); ok {
			// A list of resources, as Envoy Gateway's translator output
			// and egctl give them: each is read as a document.
			for j, x := range list {
				if _, ok := x.(map[string]any); !ok {
					n.fail(index(path, j), x, "is not an object; allowed a list of Envoy RouteConfigurations, VirtualHosts, Routes or Clusters")
					continue
				}
				r.walk(index(path, j), x, true)
			}
			continue
		}
		if _, ok := d.(map[string]any); !ok {
			n.fail(path, d, "is not an object; allowed an Envoy bootstrap, RouteConfiguration, VirtualHost, Route or Cluster, a list of them, or /config_dump's output")
			continue
		}
		r.walk(path, d, true)
	}
	for _, d := range r.rds {
		if !r.routeConfigs[d.name] || d.name == "" {
			n.warn(d.path, "the routes are discovered by RDS and are not in the document; give the RouteConfiguration too (another YAML document after ---)")
		}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	var sts []engine.Strategy
	var from []*envoyRoute // the route of each strategy
	used := map[string]int{}
	for _, rt := range r.routes {
		st, ok := r.strategy(rt, used)
		if ok {
			sts = append(sts, st)
			from = append(from, rt)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(used)) {
		if k := used[name]; k > 1 {
			n.info(r.clusters[name], "is the cluster of %d imported routes: Envoy's circuit breakers and retry budget are the cluster's, shared by its routes; each strategy has its own", k)
		}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	if len(sts) == 0 {
		msg := "has no route with a retry_policy (route.retry_policy, or the virtual host's retry_policy); nothing to import" + formatHint(docs, Envoy)
		if len(r.clusters) > 0 {
			msg += ": a cluster's circuit_breakers limit the retries of the routes to it; give the route too (a RouteConfiguration, as another YAML document after ---)"
		}
		errs := engine.Errors{{Path: "routes", Value: "the document", Message: msg}}
		// The warnings may say why: a retry_policy misplaced or misspelt.
		for _, w := range n.list {
			if w.Level == Warning {
				errs = append(errs, engine.FieldError{Path: w.Path, Message: w.Message})
			}
		}
		return nil, errs
	}
	if r.backends == nil {
		// A retry that avoids previous hosts needs hosts to choose among.
		for i := range sts {
			if st := &sts[i]; st.RetryHostPredicate != "" {
				n.warn(from[i].path, "retries on hosts not tried yet (retry_host_predicate previous_hosts), but the document does not say its cluster has several hosts (no Cluster with outlier_detection or with several lb_endpoints): not simulated; give the scenario's dependency backends to simulate it")
				st.RetryHostPredicate, st.HostSelectionRetryMaxAttempts = "", 0
			}
		}
	}
	n.list = dedupNotes(n.list)
	return &Imported{Strategies: sts, Backends: r.backends, Notes: n.list}, nil
}

// dedupNotes drops repeats: a virtual host's retry_policy is read for
// each route that inherits it.
func dedupNotes(list []Note) []Note {
	seen := map[Note]bool{}
	out := list[:0]
	for _, x := range list {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// envoySnakeKeys renames the keys of v written in lowerCamelCase, as
// protobuf's JSON mapping lets Envoy's configuration be written
// (retryPolicy, virtualHosts), to the proto names (retry_policy), and
// says in camel whether it renamed one. Keys that are not field names
// ("@type", filter names with dots, header names) stay as they are.
func envoySnakeKeys(v any, camel *bool) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = envoySnakeKeys(v[i], camel)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if s := envoySnake(k); s != k {
				if _, taken := v[s]; !taken {
					*camel = true
					k = s
				}
			}
			out[k] = envoySnakeKeys(x, camel)
		}
		return out
	}
	return v
}

// envoySnake returns a lowerCamelCase field name's proto name, or k.
func envoySnake(k string) string {
	if k == "" || k[0] < 'a' || k[0] > 'z' || !strings.ContainsAny(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return k
	}
	var b strings.Builder
	for _, c := range k {
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte('_')
			b.WriteRune(c + 'a' - 'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			return k // not a field name
		}
	}
	return b.String()
}

// The fields of Envoy's Route, VirtualHost and RouteAction messages
// (route_components.proto, v3): a key not among them is a misspelling or
// a misplaced field, which would otherwise be dropped silently.
var (
	envoyRouteFields = []string{"name", "match", "route", "redirect", "direct_response", "filter_action",
		"non_forwarding_action", "metadata", "decorator", "typed_per_filter_config", "request_headers_to_add",
		"request_headers_to_remove", "response_headers_to_add", "response_headers_to_remove", "tracing",
		"per_request_buffer_limit_bytes", "stat_prefix", "request_body_buffer_limit"}
	envoyVirtualHostFields = []string{"name", "domains", "routes", "matcher", "require_tls", "virtual_clusters",
		"rate_limits", "request_headers_to_add", "request_headers_to_remove", "response_headers_to_add",
		"response_headers_to_remove", "cors", "typed_per_filter_config", "include_request_attempt_count_in_response",
		"include_attempt_count_in_response", "retry_policy", "retry_policy_typed_config", "hedge_policy",
		"include_is_timeout_retry_header", "per_request_buffer_limit_bytes", "request_mirror_policies", "metadata",
		"request_body_buffer_limit"}
	envoyRouteActionFields = []string{"cluster", "cluster_header", "weighted_clusters", "cluster_specifier_plugin",
		"inline_cluster_specifier_plugin", "cluster_not_found_response_code", "metadata_match", "prefix_rewrite",
		"regex_rewrite", "path_rewrite_policy", "path_matcher", "host_rewrite_literal", "auto_host_rewrite",
		"host_rewrite_header", "host_rewrite_path_regex", "append_x_forwarded_host", "timeout", "idle_timeout",
		"flush_timeout", "early_data_policy", "retry_policy", "retry_policy_typed_config", "request_mirror_policies",
		"priority", "rate_limits", "include_vh_rate_limits", "hash_policy", "cors", "max_grpc_timeout",
		"grpc_timeout_offset", "upgrade_configs", "internal_redirect_policy", "internal_redirect_action",
		"max_internal_redirects", "hedge_policy", "max_stream_duration"}
)

// envoyUnknown warns about every key of m that is not a field of the
// message what names, in name order, with a hint where the field belongs
// when it is one RetryLab reads elsewhere.
func envoyUnknown(n *notes, path string, m map[string]any, fields []string, what string) {
	o := &object{path: path, m: m}
	for _, k := range o.sortedKeys() {
		if slices.Contains(fields, k) {
			continue
		}
		hint := ""
		switch {
		case what == "Route" && slices.Contains(envoyRouteActionFields, k):
			hint = "; it belongs in the route's route: (RouteAction), where it would be read"
		case what == "VirtualHost" && slices.Contains(envoyRouteActionFields, k):
			hint = "; it belongs in a route's route: (RouteAction)"
		}
		n.warn(join(path, k), "is not a field of Envoy's %s (%s); not read%s", what, envoyDocs, hint)
	}
}

func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// isEnvoyCluster reports whether m looks like a Cluster.
func isEnvoyCluster(m map[string]any) bool {
	if t, _ := m["@type"].(string); strings.HasSuffix(t, ".Cluster") {
		return true
	}
	return has(m, "circuit_breakers", "outlier_detection", "load_assignment", "connect_timeout", "lb_policy", "cluster_type", "eds_cluster_config")
}

// walk finds the route configurations, virtual hosts, routes and
// clusters under v, whatever holds them: a bootstrap's listeners and
// static_resources, an HttpConnectionManager's route_config, an xDS
// file's resources, or the document itself.
func (r *envoyReader) walk(path string, v any, top bool) {
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			r.walk(index(path, i), x, false)
		}
	case map[string]any:
		switch {
		case has(v, "virtual_hosts"):
			if name, ok := v["name"].(string); ok {
				r.routeConfigs[name] = true
			}
			if vhs, ok := v["virtual_hosts"].([]any); ok {
				for i, vh := range vhs {
					r.vhost(index(join(path, "virtual_hosts"), i), vh)
				}
			} else {
				r.n.fail(join(path, "virtual_hosts"), v["virtual_hosts"], "is not an array of virtual hosts")
			}
			if _, ok := v["vhds"]; ok {
				r.n.warn(join(path, "vhds"), "virtual hosts discovered by VHDS are not in the document; not read")
			}
		case has(v, "routes") && has(v, "domains"):
			r.vhost(path, v)
		case has(v, "match") && has(v, "route", "direct_response", "redirect"):
			r.routes = append(r.routes, &envoyRoute{path: path, m: v})
		case isEnvoyCluster(v) && (top || has(v, "name")):
			r.cluster(path, v)
		default:
			o := &object{path: path, m: v}
			for _, k := range o.sortedKeys() {
				p := join(path, k)
				switch k {
				case "clusters":
					if cs, ok := v[k].([]any); ok {
						for i, c := range cs {
							if cm, ok := c.(map[string]any); ok {
								r.cluster(index(p, i), cm)
							}
						}
					}
				case "rds":
					name := ""
					if m, ok := v[k].(map[string]any); ok {
						name, _ = m["route_config_name"].(string)
					}
					r.rds = append(r.rds, envoyRDS{p, name})
				case "scoped_routes":
					r.n.warn(p, "scoped routes are not read; give the RouteConfiguration too (another YAML document after ---)")
				case "cds_config":
					r.n.info(p, "clusters discovered by CDS are not in the document; give the Cluster as another YAML document after --- to read its circuit_breakers")
				default:
					r.walk(p, v[k], false)
				}
			}
		}
	}
}

func (r *envoyReader) vhost(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		r.n.fail(path, v, "is not a virtual host object")
		return
	}
	envoyUnknown(r.n, path, m, envoyVirtualHostFields, "VirtualHost")
	retry, hasRetry := m["retry_policy"]
	rpath := ""
	if hasRetry {
		rpath = join(path, "retry_policy")
	}
	if _, ok := m["hedge_policy"]; ok {
		r.n.warn(join(path, "hedge_policy"), "Envoy's hedging (on per-try timeouts, across hosts) is not simulated; not read")
	}
	routes, ok := m["routes"].([]any)
	if !ok {
		if _, present := m["routes"]; present {
			r.n.fail(join(path, "routes"), m["routes"], "is not an array of routes")
		}
		return
	}
	for i, rt := range routes {
		p := index(join(path, "routes"), i)
		rm, ok := rt.(map[string]any)
		if !ok {
			r.n.fail(p, rt, "is not a route object")
			continue
		}
		r.routes = append(r.routes, &envoyRoute{path: p, m: rm, retry: retry, rpath: rpath})
	}
}

func (r *envoyReader) cluster(path string, m map[string]any) {
	name, _ := m["name"].(string)
	if prev, ok := r.clusters[name]; ok {
		r.n.warn(path, "has the name %q of the cluster at %s; the first is read", name, cmpOr(prev, "the document"))
		return
	}
	r.clusters[name] = path
	r.cmaps[name] = m
}

// envoyRouteName names a route's strategy: its name, or its match.
func envoyRouteName(m map[string]any) string {
	if s, ok := m["name"].(string); ok && s != "" {
		return s
	}
	if match, ok := m["match"].(map[string]any); ok {
		for _, k := range []string{"prefix", "path", "path_separated_prefix"} {
			if s, ok := match[k].(string); ok {
				return s
			}
		}
		if re, ok := match["safe_regex"].(map[string]any); ok {
			if s, ok := re["regex"].(string); ok {
				return s
			}
		}
	}
	return "route"
}

// strategy reads one route into a strategy; ok is false for a route
// without a retry policy (or with errors).
func (r *envoyReader) strategy(rt *envoyRoute, used map[string]int) (engine.Strategy, bool) {
	n := r.n
	st := engine.Strategy{Name: envoyRouteName(rt.m)}
	av, apath, _ := (&object{path: rt.path, m: rt.m, read: map[string]bool{}}).get("route", false)
	if av == nil {
		n.info(rt.path, "answers without an upstream (direct_response or redirect); not imported")
		return st, false
	}
	envoyUnknown(n, rt.path, rt.m, envoyRouteFields, "Route")
	a, ok := asObject(n, apath, av)
	if !ok {
		return st, false
	}
	envoyUnknown(n, apath, a.m, envoyRouteActionFields, "RouteAction")
	before := len(n.errs)
	retry, rpath := rt.retry, rt.rpath
	if v, p, ok := a.get("retry_policy", false); ok {
		retry, rpath = v, p
	}
	if retry == nil {
		n.info(rt.path, "has no retry_policy, nor has its virtual host: Envoy retries nothing (unless the request carries x-envoy-retry-on); not imported")
		return st, false
	}
	st.Policy = envoyRetry()
	if v, p, ok := a.get("timeout", false); ok {
		d, _ := parseGRPCDuration(n, p, v)
		st.Deadline = d
		if d == 0 {
			n.info(p, "is 0: the route has no timeout; no deadline")
		}
	} else {
		n.info(join(apath, "timeout"), "is not set: Envoy's default route timeout, 15 s, applies to the whole call, retries included (deadline 15s)")
	}
	for _, k := range []string{"idle_timeout", "max_stream_duration", "hedge_policy", "retry_policy_typed_config"} {
		if _, p, ok := a.get(k, false); ok {
			n.warn(p, "is not simulated; not read")
		}
	}
	priority := "DEFAULT"
	if v, p, ok := a.get("priority", false); ok {
		if s, ok := v.(string); ok && (s == "DEFAULT" || s == "HIGH") {
			priority = s
		} else {
			n.fail(p, v, "is not a routing priority; allowed DEFAULT or HIGH")
		}
	}
	envoyRetryPolicy(n, rpath, retry, &st.Policy)
	// The cluster and its circuit breakers.
	cluster, cpath := "", ""
	if v, p, ok := a.get("cluster", false); ok {
		cluster, _ = v.(string)
		cpath = p
	} else if v, p, ok := a.get("weighted_clusters", false); ok {
		cpath = p
		if wc, ok := v.(map[string]any); ok {
			if cs, ok := wc["clusters"].([]any); ok && len(cs) > 0 {
				if c0, ok := cs[0].(map[string]any); ok {
					cluster, _ = c0["name"].(string)
				}
			}
		}
		n.warn(p, "splits the route's requests among clusters; RetryLab's dependency is one: the circuit breakers read are the first cluster's, %q", cluster)
	} else {
		for _, k := range []string{"cluster_header", "cluster_specifier_plugin", "inline_cluster_specifier_plugin"} {
			if _, p, ok := a.get(k, false); ok {
				n.warn(p, "chooses the cluster per request: its circuit breakers are unknown, and Envoy's default (max_retries 3: at most 3 retries in progress to the cluster) is not simulated")
			}
		}
	}
	if cpath != "" && cluster != "" {
		if m, ok := r.cmaps[cluster]; ok {
			used[cluster]++
			key := r.clusters[cluster] + " " + priority
			b, ok := r.budgets[key]
			if !ok {
				b, r.limits[key] = r.budget(r.clusters[cluster], m, priority)
				r.budgets[key] = b
			}
			st.Budget = copyBudget(b)
			if cl := r.limits[key]; cl != nil {
				c := *cl
				st.ConnectionLimits = &c
			}
			engine.Relabel(&st)
			r.readBackends(cluster, m, st.RetryHostPredicate != "")
		} else {
			n.warn(cpath, "cluster %q is not in the document: its circuit breakers are unknown, and Envoy's default (max_retries 3: at most 3 retries in progress to the cluster) is not simulated; give the Cluster too (another YAML document after ---)", cluster)
		}
	}
	return st, len(n.errs) == before
}

// budget reads a cluster's circuit breaker threshold of the route's
// priority into a concurrency budget, and its limits on connections and
// requests into connection limits (nil when it sets none).
func (r *envoyReader) budget(path string, m map[string]any, priority string) (*engine.Budget, *engine.ConnectionLimits) {
	var cl *engine.ConnectionLimits
	b := r.thresholds(path, m, priority, &cl)
	return b, cl
}

// thresholds reads the budget as budget says, and sets *cl to the
// threshold's connection limits.
func (r *envoyReader) thresholds(path string, m map[string]any, priority string, cl **engine.ConnectionLimits) *engine.Budget {
	n := r.n
	once := !r.warned[path]
	r.warned[path] = true
	def := &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: envoyMaxRetries, ShareOf: engine.ShareAttempts}
	cbv, cbp, ok := (&object{path: path, m: m, read: map[string]bool{}}).get("circuit_breakers", false)
	if !ok {
		if once {
			n.info(path, "has no circuit_breakers: Envoy's default threshold allows 3 retries in progress to the cluster (max_retries 3): budget concurrency, min_concurrency 3")
		}
		return def
	}
	cb, ok := asObject(n, cbp, cbv)
	if !ok {
		return nil
	}
	var found *object
	if v, p, ok := cb.get("thresholds", false); ok {
		ts, ok := v.([]any)
		if !ok {
			n.fail(p, v, "is not an array of thresholds")
			return nil
		}
		for i, tv := range ts {
			t, ok := asObject(n, index(p, i), tv)
			if !ok {
				continue
			}
			pr := "DEFAULT"
			if v, pp, ok := t.get("priority", false); ok {
				s, _ := v.(string)
				if s != "DEFAULT" && s != "HIGH" {
					n.fail(pp, v, "is not a routing priority; allowed DEFAULT or HIGH")
					continue
				}
				pr = s
			}
			if pr != priority {
				if once {
					n.info(t.path, "is the threshold of %s priority routes; the route is of %s priority: not read", pr, priority)
				}
				continue
			}
			if found != nil {
				n.warn(t.path, "is a second threshold for %s priority; Envoy reads the first", pr)
				continue
			}
			found = t
		}
	}
	if _, p, ok := cb.get("per_host_thresholds", false); ok && once {
		n.warn(p, "limit each host's connections (Envoy reads only max_connections there); RetryLab's connection limits are the cluster's: not simulated, not read")
	}
	if once {
		cb.unread(n, "is not a circuit_breakers field; not read")
	}
	if found == nil {
		if once {
			n.info(cbp, "has no threshold for %s priority: Envoy's default allows 3 retries in progress to the cluster (max_retries 3): budget concurrency, min_concurrency 3", priority)
		}
		return def
	}
	t := found
	b := &engine.Budget{Kind: engine.BudgetConcurrency, ShareOf: engine.ShareAttempts}
	rv, rp, hasBudget := t.get("retry_budget", false)
	mv, mp, hasMax := t.get("max_retries", false)
	*cl = r.connectionLimits(t, m, once)
	if _, p, ok := t.get("max_connection_pools", false); ok && once {
		n.warn(p, "limits the cluster's %s; RetryLab has one pool per cluster: not simulated", envoyLimitWhat["max_connection_pools"])
	}
	t.get("track_remaining", false) // statistics only
	if once {
		t.unread(n, "is not a threshold field; not read")
	}
	switch {
	case hasBudget:
		if hasMax && once {
			n.info(mp, "is ignored: the retry_budget overrides max_retries (circuit_breaker.proto)")
		}
		o, ok := asObject(n, rp, rv)
		if !ok {
			return nil
		}
		b.Ratio, b.MinConcurrency = 0.2, envoyMaxRetries
		if v, p, ok := o.get("budget_percent", false); ok {
			if po, ok := asObject(n, p, v); ok {
				if v, pp, ok := po.get("value", false); ok {
					if f, ok := number(n, pp, v, false); ok {
						if f < 0 || f > 100 {
							n.fail(pp, v, "is out of range; allowed a percentage from 0 to 100")
						}
						b.Ratio = envoyRound(f / 100)
					}
				} else {
					b.Ratio = 0
				}
				po.unread(n, "is not a Percent field; not read")
			}
		}
		if v, p, ok := o.get("min_retry_concurrency", false); ok {
			b.MinConcurrency, _ = integer(n, p, v, false, 0, 1_000_000)
		}
		o.unread(n, "is not a retry_budget field; not read")
	case hasMax:
		k, ok := integer(n, mp, mv, false, 0, envoyNoLimit)
		if !ok {
			return nil
		}
		if k > 1_000_000 {
			n.info(mp, "is %d, effectively no limit (Envoy's FAQ, https://www.envoyproxy.io/docs/envoy/latest/faq/load_balancing/disable_circuit_breaking): no budget", k)
			return nil
		}
		b.MinConcurrency = k
	default:
		if once {
			n.info(t.path, "sets no max_retries: Envoy's default allows 3 retries in progress to the cluster: budget concurrency, min_concurrency 3")
		}
		return def
	}
	return b
}

// envoyLimitsFor writes connection limits cl into threshold th: a limit
// of 0 (none) as the largest uint32, and max_pending_requests only with
// max_connections, which the line waits for. Without cl it writes none of
// them, and Envoy's defaults (1024 each) apply, which an import does not
// simulate either.
func envoyLimitsFor(th *envoyThreshold, cl *engine.ConnectionLimits) {
	if cl == nil {
		return
	}
	limit := func(k int) *int64 {
		v := int64(k)
		if k == 0 {
			v = envoyNoLimit
		}
		return &v
	}
	th.MaxConnections, th.MaxRequests = limit(cl.MaxConnections), limit(cl.MaxRequests)
	if cl.MaxConnections > 0 {
		p := int64(cl.MaxPending)
		th.MaxPendingRequests = &p
	}
}

// connectionLimits reads threshold t's max_connections,
// max_pending_requests and max_requests (each 1024 when not set) into
// connection limits, nil when it sets none of them: Envoy's defaults are
// then not simulated. Cluster m's HTTP/2 multiplexes its requests over a
// connection, so that its max_connections and max_pending_requests do not
// limit attempts once connected.
func (r *envoyReader) connectionLimits(t *object, m map[string]any, once bool) *engine.ConnectionLimits {
	n := r.n
	cl := &engine.ConnectionLimits{}
	set := false
	var notSet []string
	for _, f := range []struct {
		key string
		dst *int
	}{{"max_connections", &cl.MaxConnections}, {"max_pending_requests", &cl.MaxPending}, {"max_requests", &cl.MaxRequests}} {
		v, p, ok := t.get(f.key, false)
		if !ok {
			*f.dst = envoyMaxLimit
			notSet = append(notSet, f.key)
			continue
		}
		k, ok := integer(n, p, v, false, 0, envoyNoLimit)
		if !ok {
			continue
		}
		set = true
		switch {
		case k > engine.MaxConnectionLimit:
			if once {
				n.info(p, "is %d, effectively no limit: connection_limits.%s 0 (no limit)", k, envoyLimitField[f.key])
			}
		case k == 0 && f.key != "max_pending_requests":
			if once {
				n.warn(p, "is 0: Envoy lets no request through (every one overflows); RetryLab's connection limits cannot refuse everything: read as no limit")
			}
		default:
			*f.dst = k
		}
	}
	if !set {
		if once {
			n.info(t.path, "sets none of max_connections, max_pending_requests, max_requests: Envoy's defaults (1024 each) are not simulated")
		}
		return nil
	}
	if len(notSet) > 0 && once {
		n.info(t.path, "sets no %s: Envoy's default, 1024, is simulated", strings.Join(notSet, ", "))
	}
	if envoyHTTP2(m) {
		if once && (cl.MaxConnections != 0 || cl.MaxPending != 0) {
			n.info(t.path, "is a limit of an HTTP/2 cluster, whose requests share a connection: max_connections and max_pending_requests do not limit its attempts once connected (RetryLab's connections take no time to open): only max_requests is simulated")
		}
		cl.MaxConnections, cl.MaxPending = 0, 0
	}
	if cl.MaxConnections == 0 {
		cl.MaxPending = 0 // no connection to wait for
	}
	if *cl == (engine.ConnectionLimits{}) {
		return nil
	}
	return cl
}

// envoyLimitField is the connection_limits field of each threshold field.
var envoyLimitField = map[string]string{
	"max_connections":      "max_connections",
	"max_pending_requests": "max_pending",
	"max_requests":         "max_requests",
}

// envoyHTTP2 reports whether cluster m speaks HTTP/2 to its hosts: the
// deprecated http2_protocol_options, or an HttpProtocolOptions of
// typed_extension_protocol_options whose explicit_http_config has
// http2_protocol_options.
func envoyHTTP2(m map[string]any) bool {
	if _, ok := m["http2_protocol_options"]; ok {
		return true
	}
	opts, _ := m["typed_extension_protocol_options"].(map[string]any)
	for _, v := range opts {
		o, _ := v.(map[string]any)
		ex, _ := o["explicit_http_config"].(map[string]any)
		if _, ok := ex["http2_protocol_options"]; ok {
			return true
		}
	}
	return false
}

// envoyRound rounds to 12 significant digits, so that a percentage and a
// ratio convert back and forth exactly.
func envoyRound(f float64) float64 {
	g, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	return g
}

// envoyMs reads a back-off interval as Envoy does: whole milliseconds,
// below 1 ms rounded up to 1 ms.
func envoyMs(n *notes, path string, v any) (engine.Duration, bool) {
	d, ok := parseGRPCDuration(n, path, v)
	if !ok {
		return 0, false
	}
	if d <= 0 {
		n.fail(path, v, "is not above 0; Envoy requires an interval above 0")
		return 0, false
	}
	ms := max(d/1e6*1e6, 1e6)
	if ms != d {
		n.info(path, "Envoy counts back-off intervals in whole milliseconds (at least 1 ms): read as %s", ms)
	}
	return ms, true
}

// envoyRetryPolicy reads a RetryPolicy onto pol, which holds Envoy's
// defaults.
func envoyRetryPolicy(n *notes, path string, v any, pol *engine.Policy) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	if v, p, ok := o.get("num_retries", false); ok {
		if k, ok := integer(n, p, v, false, 0, engine.MaxAttempts-1); ok {
			pol.MaxAttempts = k + 1
		}
	}
	if v, p, ok := o.get("per_try_timeout", false); ok {
		pol.AttemptTimeout, _ = parseGRPCDuration(n, p, v)
	}
	var codes []int
	codesPath := ""
	if v, p, ok := o.get("retriable_status_codes", false); ok {
		codesPath = p
		list, ok := v.([]any)
		if !ok {
			n.fail(p, v, "is not an array of HTTP status codes")
		}
		for i, c := range list {
			k, ok := integer(n, index(p, i), c, false, 0, math.MaxUint32)
			if !ok {
				continue
			}
			if k < 100 || k > 599 {
				n.warn(index(p, i), "is not an HTTP status RetryLab's dependency answers (100-599); not read")
				continue
			}
			codes = append(codes, k)
		}
	}
	ro := &engine.RetryOn{}
	all5xx := false
	var statuses []int
	if v, p, ok := o.get("retry_on", false); ok {
		s, ok := v.(string)
		if !ok {
			n.fail(p, v, "is not a string; allowed conditions separated by commas, such as \"5xx,reset\"")
		}
		usesCodes := false
		for _, c := range strings.Split(s, ",") {
			c = strings.TrimSpace(c)
			if c == "" {
				continue
			}
			if c == "retriable-status-codes" {
				usesCodes = true
				statuses = append(statuses, codes...)
				if codesPath == "" {
					n.warn(p, "retriable-status-codes without retriable_status_codes retries no status")
				}
				continue
			}
			if why, ok := envoyNotSimulated[c]; ok {
				n.warn(p, "%q %s", c, why)
				continue
			}
			m, ok := envoyRetryOn[c]
			if !ok {
				n.warn(p, "%q is not a retry_on condition Envoy knows (%s); Envoy ignores it: not read", c, envoyDocs)
				continue
			}
			if m.note != "" {
				n.warn(p, "%q %s", c, m.note)
			}
			all5xx = all5xx || m.all5xx
			statuses = append(statuses, m.statuses...)
			ro.Timeout = ro.Timeout || m.timeout
			ro.Connection = ro.Connection || m.connection
		}
		if codesPath != "" && !usesCodes {
			n.warn(codesPath, "is not read by Envoy without retriable-status-codes in retry_on; not read")
		}
	} else {
		n.warn(join(path, "retry_on"), "is not set: Envoy retries nothing unless the request carries x-envoy-retry-on: imported as retrying nothing")
	}
	slices.Sort(statuses)
	statuses = slices.Compact(statuses)
	if all5xx {
		ro.StatusRanges = []string{"500-599"}
		statuses = slices.DeleteFunc(statuses, func(s int) bool { return s >= 500 && s <= 599 })
	}
	ro.Statuses = statuses
	pol.RetryOn = ro
	if v, p, ok := o.get("retry_back_off", false); ok {
		envoyBackOff(n, p, v, &pol.Backoff)
	}
	if v, p, ok := o.get("rate_limited_retry_back_off", false); ok {
		envoyRateLimited(n, p, v, pol)
	}
	if v, p, ok := o.get("retry_host_predicate", false); ok {
		envoyHostPredicates(n, p, v, pol)
	}
	if v, p, ok := o.get("host_selection_retry_max_attempts", false); ok {
		if k, ok := integer(n, p, v, true, 0, 100); ok {
			if pol.RetryHostPredicate == "" {
				n.info(p, "chooses again only a host a retry_host_predicate rejects; without one it has no effect: not read")
			} else {
				pol.HostSelectionRetryMaxAttempts = k
			}
		}
	}
	if _, p, ok := o.get("retry_priority", false); ok {
		n.warn(p, "chooses the priority level of a retry's host; RetryLab's backends have one priority: not simulated")
	}
	for _, k := range []string{"retriable_headers", "retriable_request_headers"} {
		if _, p, ok := o.get(k, false); ok {
			n.warn(p, "matches headers; RetryLab's requests and answers have none: not simulated")
		}
	}
	if _, p, ok := o.get("retry_options_predicates", false); ok {
		n.warn(p, "is an extension; not simulated")
	}
	if _, p, ok := o.get("per_try_idle_timeout", false); ok {
		n.warn(p, "is not simulated: RetryLab's answers do not stall midway; not read")
	}
	o.unread(n, "is not a RetryPolicy field ("+envoyDocs+"); not read")
}

func envoyBackOff(n *notes, path string, v any, b *engine.Backoff) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	base := envoyBaseInterval
	if v, p, ok := o.get("base_interval", false); ok {
		if d, ok := envoyMs(n, p, v); ok {
			base = d
		}
	} else {
		n.fail(join(path, "base_interval"), nil, "is missing; Envoy requires base_interval in retry_back_off")
	}
	maxI := 10 * base
	if v, p, ok := o.get("max_interval", false); ok {
		if d, ok := envoyMs(n, p, v); ok {
			if d < base {
				n.fail(p, v, "is below base_interval; Envoy requires max_interval at or above base_interval")
			}
			maxI = d
		}
	}
	o.unread(n, "is not a RetryBackOff field; not read")
	*b = engine.Backoff{Kind: engine.BackoffExponential, Base: base, Multiplier: 2, Max: maxI}
}

func envoyRateLimited(n *notes, path string, v any, pol *engine.Policy) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	maxI := envoyRateLimitedMax
	if v, p, ok := o.get("max_interval", false); ok {
		if d, ok := parseGRPCDuration(n, p, v); ok {
			maxI = d
		}
	}
	v, p, ok := o.get("reset_headers", false)
	o.unread(n, "is not a RateLimitedRetryBackOff field; not read")
	if !ok {
		n.fail(join(path, "reset_headers"), nil, "is missing; Envoy requires at least one reset header")
		return
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		n.fail(p, v, "is not a non-empty array of reset headers; Envoy requires at least one")
		return
	}
	for i, hv := range list {
		h, ok := asObject(n, index(p, i), hv)
		if !ok {
			continue
		}
		name, format := "", "SECONDS"
		if v, pp, ok := h.get("name", false); ok {
			name, _ = v.(string)
			if name == "" {
				n.fail(pp, v, "is not a header name")
			}
		} else {
			n.fail(join(h.path, "name"), nil, "is missing; Envoy requires the header's name")
		}
		if v, pp, ok := h.get("format", false); ok {
			format, _ = v.(string)
			if format != "SECONDS" && format != "UNIX_TIMESTAMP" {
				n.fail(pp, v, "is not a reset header format; allowed SECONDS or UNIX_TIMESTAMP")
			}
		}
		h.unread(n, "is not a ResetHeader field; not read")
		switch {
		case strings.EqualFold(name, "Retry-After") && format == "SECONDS":
			pol.HonorRetryAfter = true
			pol.RetryAfter = &engine.RetryAfterUse{Mode: engine.RetryAfterReplace}
			n.warn(h.path, "Envoy waits a random time from the Retry-After to 1.5 times it (backoff_strategy.cc JitteredLowerBoundBackOffStrategy), and ignores a Retry-After above max_interval (%s), waiting its exponential back-off instead; RetryLab waits the Retry-After itself (retry_after replace)", maxI)
		case name != "":
			n.warn(h.path, "RetryLab's dependency sends a Retry-After in seconds and no other reset header: %s (%s) is not simulated", name, format)
		}
	}
}

// Envoy export: a bootstrap (static_resources) as Envoy's quick start
// writes it, one listener whose route carries the retry policy to the
// cluster "dependency", and that cluster with its circuit breaker.

type envoyBootstrap struct {
	StaticResources envoyStatic `yaml:"static_resources"`
}

type envoyStatic struct {
	Listeners []envoyListener `yaml:"listeners"`
	Clusters  []envoyCluster  `yaml:"clusters"`
}

type envoyListener struct {
	Name         string             `yaml:"name"`
	Address      envoyAddress       `yaml:"address"`
	FilterChains []envoyFilterChain `yaml:"filter_chains"`
}

type envoyAddress struct {
	SocketAddress envoySocket `yaml:"socket_address"`
}

type envoySocket struct {
	Address   string `yaml:"address"`
	PortValue int    `yaml:"port_value"`
}

type envoyFilterChain struct {
	Filters []envoyFilter `yaml:"filters"`
}

type envoyFilter struct {
	Name        string `yaml:"name"`
	TypedConfig any    `yaml:"typed_config"`
}

type envoyTyped struct {
	Type string `yaml:"@type"`
}

type envoyHCM struct {
	Type        string           `yaml:"@type"`
	StatPrefix  string           `yaml:"stat_prefix"`
	RouteConfig envoyRouteConfig `yaml:"route_config"`
	HTTPFilters []envoyFilter    `yaml:"http_filters"`
}

type envoyRouteConfig struct {
	Name         string             `yaml:"name"`
	VirtualHosts []envoyVirtualHost `yaml:"virtual_hosts"`
}

type envoyVirtualHost struct {
	Name    string          `yaml:"name"`
	Domains []string        `yaml:"domains,flow"`
	Routes  []envoyRouteOut `yaml:"routes"`
}

type envoyRouteOut struct {
	Name  string      `yaml:"name"`
	Match envoyMatch  `yaml:"match"`
	Route envoyAction `yaml:"route"`
}

type envoyMatch struct {
	Prefix string `yaml:"prefix"`
}

type envoyAction struct {
	Cluster     string         `yaml:"cluster"`
	Timeout     string         `yaml:"timeout"`
	RetryPolicy envoyRetryJSON `yaml:"retry_policy"`
}

type envoyRetryJSON struct {
	RetryOn              string               `yaml:"retry_on,omitempty"`
	NumRetries           int                  `yaml:"num_retries"`
	PerTryTimeout        string               `yaml:"per_try_timeout,omitempty"`
	RetriableStatusCodes []int                `yaml:"retriable_status_codes,omitempty,flow"`
	RetryBackOff         envoyBackOffJSON     `yaml:"retry_back_off"`
	RateLimited          *envoyRateLimitedOut `yaml:"rate_limited_retry_back_off,omitempty"`
	RetryHostPredicate   []envoyExtension     `yaml:"retry_host_predicate,omitempty"`
	HostSelectionMax     int                  `yaml:"host_selection_retry_max_attempts,omitempty"`
}

// An envoyExtension is a typed extension config: a name and its config.
type envoyExtension struct {
	Name        string     `yaml:"name"`
	TypedConfig envoyTyped `yaml:"typed_config"`
}

type envoyBackOffJSON struct {
	BaseInterval string `yaml:"base_interval"`
	MaxInterval  string `yaml:"max_interval"`
}

type envoyRateLimitedOut struct {
	ResetHeaders []envoyResetHeader `yaml:"reset_headers"`
	MaxInterval  string             `yaml:"max_interval"`
}

type envoyResetHeader struct {
	Name   string `yaml:"name"`
	Format string `yaml:"format"`
}

type envoyCluster struct {
	Name             string                 `yaml:"name"`
	Type             string                 `yaml:"type"`
	LbPolicy         string                 `yaml:"lb_policy,omitempty"`
	LoadAssignment   envoyLoadAssignment    `yaml:"load_assignment"`
	CircuitBreakers  envoyCircuitBreakers   `yaml:"circuit_breakers"`
	OutlierDetection *envoyOutlierDetection `yaml:"outlier_detection,omitempty"`
	CommonLbConfig   *envoyCommonLbConfig   `yaml:"common_lb_config,omitempty"`
}

// envoyOutlierDetection is the part of a cluster's outlier_detection an
// export writes.
type envoyOutlierDetection struct {
	Consecutive5xx                     *int    `yaml:"consecutive_5xx,omitempty"`
	EnforcingConsecutive5xx            *int    `yaml:"enforcing_consecutive_5xx,omitempty"`
	ConsecutiveGatewayFailure          *int    `yaml:"consecutive_gateway_failure,omitempty"`
	EnforcingConsecutiveGatewayFailure *int    `yaml:"enforcing_consecutive_gateway_failure,omitempty"`
	EnforcingSuccessRate               int     `yaml:"enforcing_success_rate"`
	Interval                           string  `yaml:"interval,omitempty"`
	BaseEjectionTime                   string  `yaml:"base_ejection_time,omitempty"`
	MaxEjectionTime                    string  `yaml:"max_ejection_time,omitempty"`
	MaxEjectionPercent                 *uint32 `yaml:"max_ejection_percent,omitempty"`
}

type envoyCommonLbConfig struct {
	HealthyPanicThreshold envoyPercent `yaml:"healthy_panic_threshold"`
}

type envoyLoadAssignment struct {
	ClusterName string          `yaml:"cluster_name"`
	Endpoints   []envoyLocality `yaml:"endpoints"`
}

type envoyLocality struct {
	LbEndpoints []envoyLbEndpoint `yaml:"lb_endpoints"`
}

type envoyLbEndpoint struct {
	Endpoint envoyEndpoint `yaml:"endpoint"`
}

type envoyEndpoint struct {
	Address envoyAddress `yaml:"address"`
}

type envoyCircuitBreakers struct {
	Thresholds []envoyThreshold `yaml:"thresholds"`
}

type envoyThreshold struct {
	Priority           string            `yaml:"priority"`
	MaxConnections     *int64            `yaml:"max_connections,omitempty"`
	MaxPendingRequests *int64            `yaml:"max_pending_requests,omitempty"`
	MaxRequests        *int64            `yaml:"max_requests,omitempty"`
	MaxRetries         int64             `yaml:"max_retries,omitempty"`
	RetryBudget        *envoyRetryBudget `yaml:"retry_budget,omitempty"`
}

type envoyRetryBudget struct {
	BudgetPercent       envoyPercent `yaml:"budget_percent"`
	MinRetryConcurrency int          `yaml:"min_retry_concurrency"`
}

type envoyPercent struct {
	Value float64 `yaml:"value"`
}

func exportEnvoy(st *engine.Strategy, b *engine.Backends, n *notes) []byte {
	unsupported(n, st, "An Envoy route and cluster", "max_attempts", "attempt_timeout", "deadline", "backoff", "jitter",
		"retry_on", "honor_retry_after", "retry_after", "budget", "breaker", "connection_limits")
	if st.Breaker != nil {
		n.warn("breaker", "Envoy has no circuit breaker of this kind: its circuit_breakers are concurrency limits, and outlier_detection ejects a host from load balancing (an only host still gets traffic below the healthy panic threshold); not exported")
	}
	name := cmpOr(st.Name, "retry")
	rp := envoyRetryJSON{}
	switch {
	case st.MaxAttempts == 0:
		n.warn("max_attempts", "is unlimited; Envoy needs num_retries: written as %d (RetryLab's most attempts, %d)", engine.MaxAttempts-1, engine.MaxAttempts)
		rp.NumRetries = engine.MaxAttempts - 1
	default:
		rp.NumRetries = st.MaxAttempts - 1
	}
	timeout := "0s"
	if st.Deadline > 0 {
		timeout = grpcDuration(st.Deadline)
	} else {
		n.info("deadline", "is not set: written as timeout 0s, which turns off Envoy's default 15 s route timeout")
	}
	if st.AttemptTimeout > 0 {
		rp.PerTryTimeout = grpcDuration(st.AttemptTimeout)
	}
	rp.RetryOn, rp.RetriableStatusCodes = envoyRetryOnFor(n, st.RetryOn)
	rp.RetryBackOff = envoyBackOffFor(n, st)
	if st.RetryHostPredicate == engine.HostPreviousHosts {
		rp.RetryHostPredicate = []envoyExtension{{Name: envoyPreviousHosts, TypedConfig: envoyTyped{Type: envoyPreviousHostsType}}}
		rp.HostSelectionMax = st.HostSelectionRetryMaxAttempts
	}
	if st.HonorRetryAfter {
		rp.RateLimited = &envoyRateLimitedOut{ResetHeaders: []envoyResetHeader{{Name: "Retry-After", Format: "SECONDS"}}, MaxInterval: grpcDuration(engine.MaxSpan)}
		if ra := st.RetryAfter; ra == nil || ra.Mode != engine.RetryAfterReplace {
			n.warn("retry_after", "Envoy's wait after a Retry-After replaces the back-off, without starting it over (replace); that is what the exported policy does")
		}
		if ra := st.RetryAfter; ra != nil && len(ra.Statuses) > 0 {
			n.warn("retry_after.statuses", "Envoy reads the Retry-After of any answer it retries; not exported")
		}
		n.warn("honor_retry_after", "Envoy waits a random time from the Retry-After to 1.5 times it (JitteredLowerBoundBackOffStrategy), not the Retry-After itself; max_interval is written as %s so that none is ignored", grpcDuration(engine.MaxSpan))
	}
	th := envoyThreshold{Priority: "DEFAULT"}
	if b := st.Budget; b == nil {
		th.MaxRetries = envoyNoLimit
		n.info("budget", "is not set: Envoy's default circuit breaker allows 3 retries in progress to the cluster (max_retries 3); written as max_retries %d, effectively no limit (https://www.envoyproxy.io/docs/envoy/latest/faq/load_balancing/disable_circuit_breaking)", uint32(envoyNoLimit))
	} else if b.Kind != engine.BudgetConcurrency {
		th.MaxRetries = envoyNoLimit
		n.warn("budget", "Envoy's only retry budget limits the retries in progress (retry_budget, max_retries); a %q budget is not exported: written as max_retries %d, no limit", b.Kind, uint32(envoyNoLimit))
	} else {
		if b.ShareOf != engine.ShareAttempts {
			n.warn("budget.share_of", "Envoy's budget_percent is a share of the cluster's active and pending requests (\"attempts\"), not of the executions; written as that")
		}
		if b.Scope == engine.ScopeClient {
			n.warn("budget.scope", "Envoy's retry budget is the cluster's (one dependency); a budget for all of a client's calls is not exported")
		}
		if b.Ratio == 0 {
			th.MaxRetries = int64(b.MinConcurrency)
			if b.MinConcurrency == 0 {
				// max_retries 0 is left out by omitempty: write a budget.
				th.RetryBudget = &envoyRetryBudget{}
			}
		} else {
			th.RetryBudget = &envoyRetryBudget{BudgetPercent: envoyPercent{Value: envoyRound(b.Ratio * 100)}, MinRetryConcurrency: b.MinConcurrency}
		}
	}
	envoyLimitsFor(&th, st.ConnectionLimits)
	cluster := envoyCluster{Name: "dependency", Type: "STRICT_DNS", CircuitBreakers: envoyCircuitBreakers{Thresholds: []envoyThreshold{th}}}
	hosts := []envoyLbEndpoint{{Endpoint: envoyEndpoint{Address: envoyAddress{SocketAddress: envoySocket{Address: "dependency", PortValue: 80}}}}}
	if b == nil {
		n.info("", "the cluster's endpoint, dependency:80, stands for your service: put its address there")
	} else {
		hosts = nil
		for k := range b.Count {
			hosts = append(hosts, envoyLbEndpoint{Endpoint: envoyEndpoint{Address: envoyAddress{SocketAddress: envoySocket{Address: envoyHostName(k), PortValue: 80}}}})
		}
		cluster.LbPolicy = envoyLbPolicyFor(n, b.Balancer)
		cluster.OutlierDetection, cluster.CommonLbConfig = envoyOutliersFor(n, b.OutlierDetection)
		n.info("", "the cluster's %d endpoints, %s to %s:80, stand for your service's hosts: put their addresses there", b.Count, envoyHostName(0), envoyHostName(b.Count-1))
	}
	cluster.LoadAssignment = envoyLoadAssignment{ClusterName: "dependency", Endpoints: []envoyLocality{{LbEndpoints: hosts}}}
	route := envoyRouteOut{Name: name, Match: envoyMatch{Prefix: "/"},
		Route: envoyAction{Cluster: "dependency", Timeout: timeout, RetryPolicy: rp}}
	boot := envoyBootstrap{StaticResources: envoyStatic{
		Listeners: []envoyListener{{
			Name:    "listener_0",
			Address: envoyAddress{SocketAddress: envoySocket{Address: "0.0.0.0", PortValue: 10000}},
			FilterChains: []envoyFilterChain{{Filters: []envoyFilter{{
				Name: "envoy.filters.network.http_connection_manager",
				TypedConfig: envoyHCM{
					Type:       "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
					StatPrefix: "ingress_http",
					RouteConfig: envoyRouteConfig{Name: "local_route", VirtualHosts: []envoyVirtualHost{{
						Name: "dependency", Domains: []string{"*"}, Routes: []envoyRouteOut{route}}}},
					HTTPFilters: []envoyFilter{{Name: "envoy.filters.http.router",
						TypedConfig: envoyTyped{Type: "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}},
				},
			}}}},
		}},
		Clusters: []envoyCluster{cluster},
	}}
	return encodeYAML(boot)
}

// envoyRetryOnFor writes what the policy retries as retry_on conditions
// and retriable_status_codes.
func envoyRetryOnFor(n *notes, ro *engine.RetryOn) (string, []int) {
	statuses, timeout, connection := retried(ro)
	set := map[int]bool{}
	for _, s := range statuses {
		set[s] = true
	}
	all := func(lo, hi int) bool {
		for s := lo; s <= hi; s++ {
			if !set[s] {
				return false
			}
		}
		return true
	}
	drop := func(lo, hi int) {
		for s := lo; s <= hi; s++ {
			delete(set, s)
		}
	}
	var conds []string
	covered := false // timeouts and connection errors
	switch {
	case timeout && connection && all(500, 599):
		conds = append(conds, "5xx")
		drop(500, 599)
		covered = true
	case timeout && connection && all(502, 504):
		conds = append(conds, "gateway-error")
		drop(502, 504)
		covered = true
	}
	switch {
	case covered:
	case timeout && connection:
		conds = append(conds, "reset")
	case connection:
		conds = append(conds, "connect-failure")
	case timeout:
		conds = append(conds, "reset")
		n.warn("retry_on", "Envoy retries a per-try timeout under reset, 5xx or gateway-error, each of which retries connection failures too: written as reset")
	}
	if set[409] {
		conds = append(conds, "retriable-4xx")
		delete(set, 409)
	}
	var codes []int
	for s := range set {
		codes = append(codes, s)
	}
	slices.Sort(codes)
	if len(codes) > 0 {
		conds = append(conds, "retriable-status-codes")
	}
	if len(conds) == 0 {
		n.info("retry_on", "retries nothing: retry_on is left out, and Envoy retries nothing")
	}
	return strings.Join(conds, ","), codes
}

// envoyMsFor rounds d to Envoy's whole milliseconds (at least 1).
func envoyMsFor(n *notes, path string, d engine.Duration) engine.Duration {
	ms := max((d+5e5)/1e6*1e6, 1e6)
	if ms != d {
		n.warn(path, "is %s; Envoy counts back-off intervals in whole milliseconds (at least 1 ms): written as %s", d, ms)
	}
	return ms
}

func envoyBackOffFor(n *notes, st *engine.Strategy) envoyBackOffJSON {
	b := st.Backoff
	attempts := st.MaxAttempts
	if attempts == 0 {
		attempts = engine.MaxAttempts
	}
	switch b.Kind {
	case engine.BackoffExponential:
		if b.Multiplier != 0 && b.Multiplier != 2 {
			n.warn("backoff.multiplier", "is %v; Envoy's back-off doubles: written with Envoy's doubling", b.Multiplier)
		}
	case engine.BackoffConstant:
		b.Max = b.Base
		n.info("backoff.kind", "constant: written as Envoy's back-off with max_interval equal to base_interval, which never grows")
	case engine.BackoffLinear:
		if b.Max == 0 {
			b.Max = b.Base * engine.Duration(max(attempts-1, 1))
		}
		n.warn("backoff.kind", "Envoy's back-off is exponential: linear backoff is written as a doubling one from %s capped at %s", b.Base, b.Max)
	default:
		b.Base, b.Max = 1e6, 1e6
		n.warn("backoff.kind", "Envoy always waits between attempts: retrying at once is written as the shortest back-off, 1 ms")
	}
	if b.ThrottleBase != 0 {
		n.warn("backoff.throttle_base", "Envoy has no other base after throttling; not exported")
	}
	base := envoyMsFor(n, "backoff.base", b.Base)
	if b.Max == 0 {
		// The longest interval the attempts reach: the cap changes nothing.
		m := base
		for k := 2; k < attempts && m < engine.MaxSpan; k++ {
			m *= 2
		}
		b.Max = min(m, engine.MaxSpan)
		n.info("backoff.max", "is not set; Envoy caps its back-off (at 10 times the base by default): written as %s, the longest interval %d attempts reach", b.Max, attempts)
	}
	maxI := envoyMsFor(n, "backoff.max", b.Max)
	if maxI < base {
		n.info("backoff.max", "is below the base: every wait is capped at it, so both are written as %s", maxI)
		base = maxI
	}
	if st.Jitter.Kind != engine.JitterFull {
		n.warn("jitter", "Envoy's back-off is always fully jittered (a random wait from 0 to the interval, backoff_strategy.cc); this jitter is not exported")
	}
	return envoyBackOffJSON{BaseInterval: grpcDuration(base), MaxInterval: grpcDuration(maxI)}
}
