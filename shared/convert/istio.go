package convert

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// Istio programs Envoy: a VirtualService's http route retries become the
// route's Envoy retry_policy (istio/istio
// pilot/pkg/networking/core/route/retry/retry.go, ConvertPolicy and
// DefaultPolicy), whose back-off is Envoy's. An import is based on the
// istio-retry preset (Istio's defaults), not envoy-retry, so that its
// default search keeps to what a VirtualService and a DestinationRule
// can write (engine.Libraries' "istio": no retry_budget).

const istioDocs = "https://istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRetry"

// istioAPIVersions are the versions of networking.istio.io that serve
// VirtualService and DestinationRule.
var istioAPIVersions = []string{"networking.istio.io/v1", "networking.istio.io/v1beta1", "networking.istio.io/v1alpha3"}

// istioBase is Envoy's default retry back-off base, which Istio keeps
// unless retries.backoff sets it; the cap is 10 × base.
const istioBase = engine.Duration(25e6)

// istioPolicy returns Istio's retry policy with n retries on Istio's
// default conditions, based on the istio-retry preset (which it is with
// 2 retries): back-off exponential from 25 ms doubling to 250 ms, fully
// jittered, as Envoy's; no route timeout (Istio turns Envoy's 15 s off).
func istioPolicy(retries int) engine.Policy {
	return engine.Policy{
		BasedOn:     "istio-retry",
		MaxAttempts: retries + 1,
		Backoff:     engine.Backoff{Kind: engine.BackoffExponential, Base: istioBase, Multiplier: 2, Max: 10 * istioBase},
		Jitter:      engine.Jitter{Kind: engine.JitterFull},
		RetryOn:     istioDefaultRetryOn(),
	}
}

// istioRoutePolicy is the policy of a route of Istio's, before its
// retries are read: Istio's defaults, and its retries prefer hosts not
// tried yet (retryIgnorePreviousHosts defaults to false), with the
// previous-hosts predicate reselecting up to istioHostSelections times.
// importIstioDocs drops the predicate when the document gives the
// dependency no backends.
func istioRoutePolicy() engine.Policy {
	pol := istioPolicy(2)
	pol.RetryHostPredicate, pol.HostSelectionRetryMaxAttempts = engine.HostPreviousHosts, istioHostSelections
	return pol
}

// istioDefaultRetryOn is what Istio retries when retryOn is not set, as
// RetryLab reads it: connection errors. Istio's default conditions are
// connect-failure, refused-stream, unavailable, cancelled and
// retriable-status-codes, the last with no code since Istio 1.24
// (EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY, on by default; 503 before);
// unavailable and cancelled match a gRPC answer's grpc-status, which an
// HTTP service never sends: the default is read for an HTTP service.
func istioDefaultRetryOn() *engine.RetryOn {
	return &engine.RetryOn{Connection: true}
}

const istioDefaultRetryOnText = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"

const istioDefaultNote = "imported as retrying connection errors only, as for an HTTP service; Istio also retries gRPC answers UNAVAILABLE and CANCELLED, which Envoy tests on the grpc-status header only, never sent by RetryLab's HTTP dependency (for a gRPC service, add 503 and 499, their HTTP statuses, to the strategy's retry_on.statuses), and before 1.24 (or with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false) HTTP 503 too"

// istioStatusText are the status codes Go's net/http names
// (http.StatusText): Istio's parseRetryOn takes only those as retriable
// status codes and passes any other number on as a condition name.
var istioStatusText = func() map[int]bool {
	m := map[int]bool{226: true, 421: true, 422: true, 423: true, 424: true, 425: true, 426: true, 428: true,
		429: true, 431: true, 451: true, 510: true, 511: true}
	for _, r := range [][2]int{{100, 103}, {200, 208}, {300, 305}, {307, 308}, {400, 418}, {500, 508}} {
		for s := r[0]; s <= r[1]; s++ {
			m[s] = true
		}
	}
	return m
}()

// istioGRPC are the gRPC conditions of x-envoy-retry-grpc-on, with the
// HTTP status google.rpc.Code's mapping gives each (as the grpc format),
// which the notes name; they are read as Envoy tests them (envoyGRPCNote).
var istioGRPC = map[string]int{"cancelled": 499, "deadline-exceeded": 504, "internal": 500, "resource-exhausted": 429, "unavailable": 503}

// istioGRPCName are the gRPC codes of istioGRPC's conditions.
var istioGRPCName = map[string]string{"cancelled": "CANCELLED", "deadline-exceeded": "DEADLINE_EXCEEDED", "internal": "INTERNAL", "resource-exhausted": "RESOURCE_EXHAUSTED", "unavailable": "UNAVAILABLE"}

// kubeDuration reads a duration as Kubernetes custom resources write them:
// Go's time.ParseDuration ("2s", "0.5s", "100ms", "1m30s"), which Linkerd
// uses and Istio's CRD validation accepts. It must be above 0 and at most
// a day.
func kubeDuration(n *notes, path string, v any) (engine.Duration, bool) {
	s, ok := v.(string)
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if !ok || err != nil {
		n.fail(path, v, "is not a duration; allowed a number with a unit, such as \"2s\", \"0.5s\" or \"100ms\"")
		return 0, false
	}
	if d <= 0 || engine.Duration(d) > engine.MaxSpan {
		n.fail(path, v, "is out of range; allowed above 0, up to %s", engine.MaxSpan)
		return 0, false
	}
	return engine.Duration(d), true
}

// istioMs reads a duration Istio requires to be at least 1 ms, in whole
// milliseconds.
func istioMs(n *notes, path string, v any) (engine.Duration, bool) {
	d, ok := kubeDuration(n, path, v)
	if !ok {
		return 0, false
	}
	if d < engine.Duration(time.Millisecond) {
		n.fail(path, v, "is below 1ms; Istio's validation requires at least 1ms")
		return 0, false
	}
	if d%engine.Duration(time.Millisecond) != 0 {
		n.warn(path, "Istio supports durations to the millisecond only and refuses finer ones; imported as written")
	}
	return d, true
}

// kubeDoc is one Kubernetes document of a stream: its kind, name and
// spec.
type kubeDoc struct {
	path       string
	kind       string
	apiVersion string
	name       string
	spec       *object
	root       *object
}

// kubeDocs reads the documents of a YAML stream as Kubernetes objects.
// A List's items are documents too.
func kubeDocs(n *notes, data []byte) ([]kubeDoc, error) {
	trees, err := decodeYAML(data)
	if err != nil {
		return nil, err
	}
	var docs []kubeDoc
	var add func(path string, v any)
	add = func(path string, v any) {
		o, ok := asObject(n, path, v)
		if !ok {
			return
		}
		d := kubeDoc{path: path, root: o}
		if v, p, ok := o.get("kind", false); ok {
			if s, ok := v.(string); ok {
				d.kind = s
			} else {
				n.fail(p, v, "is not a string")
			}
		}
		if v, _, ok := o.get("apiVersion", false); ok {
			d.apiVersion, _ = v.(string)
		}
		if strings.HasSuffix(d.kind, "List") {
			if v, p, ok := o.get("items", false); ok {
				if items, ok := v.([]any); ok {
					for i, it := range items {
						add(index(p, i), it)
					}
					return
				}
			}
		}
		if v, p, ok := o.get("metadata", false); ok {
			if m, ok := asObject(n, p, v); ok {
				if v, _, ok := m.get("name", false); ok {
					d.name, _ = v.(string)
				}
			}
		}
		if v, p, ok := o.get("spec", false); ok {
			d.spec, _ = asObject(n, p, v)
		}
		docs = append(docs, d)
	}
	for i, t := range trees {
		path := ""
		if len(trees) > 1 {
			path = fmt.Sprintf("documents[%d]", i)
		}
		add(path, t)
	}
	return docs, n.err()
}

// istioDR is what a DestinationRule sets that RetryLab reads.
type istioDR struct {
	host       string
	path       string
	maxRetries int // -1: not set
	used       bool
	// outliers is its trafficPolicy's outlierDetection (nil: none), at
	// odPath.
	outliers *engine.OutlierDetection
	odPath   string
	balancer engine.BalancerKind // loadBalancer.simple's, "" when not set
	// limits are its connectionPool's tcp.maxConnections,
	// http.http1MaxPendingRequests and http.http2MaxRequests (0: not
	// set), at limitsPath; http2 says that h2UpgradePolicy is UPGRADE.
	limits     engine.ConnectionLimits
	limitsPath string
	http2      bool
}

func importIstio(data []byte) (*Imported, error) {
	im, err := importIstioDocs(data)
	return im, kubeNamed(data, err)
}

// kubeNamed adds to each error of a Kubernetes document the kind and
// metadata.name of the document it is in, which a stream of documents
// names better than its index.
func kubeNamed(data []byte, err error) error {
	errs, ok := err.(engine.Errors)
	if !ok {
		return err
	}
	var n notes
	docs, _ := kubeDocs(&n, data)
	for i := range errs {
		e := &errs[i]
		for _, d := range docs {
			if d.name == "" || d.kind == "" || !(d.path == "" || e.Path == d.path || strings.HasPrefix(e.Path, d.path+".")) {
				continue
			}
			e.Message += fmt.Sprintf("; in %s %q", d.kind, d.name)
			break
		}
	}
	return errs
}

func importIstioDocs(data []byte) (*Imported, error) {
	var n notes
	docs, err := kubeDocs(&n, data)
	if err != nil {
		return nil, err
	}
	var drs []*istioDR
	var vss []kubeDoc
	for _, d := range docs {
		at := cmpOr(d.path, "the document")
		switch d.kind {
		case "VirtualService", "DestinationRule":
			if !slices.Contains(istioAPIVersions, d.apiVersion) {
				n.warn(join(d.path, "apiVersion"), "is %q; Istio serves %s as %s: read as networking.istio.io/v1", d.apiVersion, d.kind, strings.Join(istioAPIVersions, ", "))
			}
			if d.spec == nil {
				n.fail(join(d.path, "spec"), nil, "is missing; a %s needs a spec", d.kind)
				continue
			}
			if d.kind == "VirtualService" {
				vss = append(vss, d)
			} else if dr := istioDestinationRule(&n, d); dr != nil {
				drs = append(drs, dr)
			}
		case "":
			n.fail(join(d.path, "kind"), nil, "is missing; allowed Kubernetes documents of kind VirtualService or DestinationRule")
		default:
			n.info(at, "is a %s; not read (RetryLab reads VirtualService and DestinationRule)", d.kind)
		}
	}
	var sts []engine.Strategy
	for _, vs := range vss {
		sts = append(sts, istioVirtualService(&n, vs, drs)...)
	}
	for _, dr := range drs {
		if dr.used {
			continue
		}
		// No VirtualService routes the host: Istio's default route, with
		// its default retries.
		st := engine.Strategy{Name: dr.host, Policy: istioRoutePolicy()}
		n.info(dr.path, "no VirtualService of the document routes %s: Istio's default retry policy applies, 2 retries on %s; %s", dr.host, istioDefaultRetryOnText, istioDefaultNote)
		istioBudget(&n, dr, &st.Policy)
		sts = append(sts, st)
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	if len(sts) == 0 {
		return nil, engine.Errors{{Value: "the document", Message: "has no VirtualService http route nor DestinationRule; nothing to import" + formatHint(kubeTrees(docs), Istio)}}
	}
	b := istioBackends(&n, drs)
	if b != nil && slices.ContainsFunc(sts, func(st engine.Strategy) bool { return st.RetryHostPredicate != "" }) {
		n.info("", "Istio's retries avoid the hosts tried already (retryIgnorePreviousHosts, default true: Envoy's previous_hosts predicate, choosing again up to %d times): imported as retry_host_predicate previous_hosts", istioHostSelections)
	}
	if b == nil {
		// One server: no other host to prefer.
		for i := range sts {
			sts[i].RetryHostPredicate, sts[i].HostSelectionRetryMaxAttempts = "", 0
		}
	}
	return &Imported{Strategies: sts, Backends: b, Notes: n.list}, nil
}

// istioHostMatch reports whether two Istio hosts name the same service: equal, or one the
// short name of the other ("reviews", "reviews.default.svc.cluster.local").
func istioHostMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a != "" && strings.HasPrefix(b, a+".")
}

func istioDestinationRule(n *notes, d kubeDoc) *istioDR {
	dr := &istioDR{path: d.spec.path, maxRetries: -1}
	o := d.spec
	if v, p, ok := o.get("host", false); ok {
		dr.host, _ = v.(string)
		if dr.host == "" {
			n.fail(p, v, "is not a host name")
		}
	} else {
		n.fail(join(o.path, "host"), nil, "is missing; a DestinationRule names its host")
	}
	if v, p, ok := o.get("trafficPolicy", false); ok {
		istioTrafficPolicy(n, p, v, dr)
	}
	for _, k := range []string{"subsets", "exportTo", "workloadSelector"} {
		if _, p, ok := o.get(k, false); ok {
			n.warn(p, "is not read: RetryLab's dependency is one service, without subsets or scopes")
		}
	}
	o.unread(n, "is not a DestinationRule field RetryLab reads; not read")
	return dr
}

func istioTrafficPolicy(n *notes, path string, v any, dr *istioDR) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	if v, p, ok := o.get("outlierDetection", false); ok {
		dr.outliers, dr.odPath = istioOutliers(n, p, v), p
	}
	if v, p, ok := o.get("connectionPool", false); ok {
		if cp, ok := asObject(n, p, v); ok {
			if v, p, ok := cp.get("http", false); ok {
				if h, ok := asObject(n, p, v); ok {
					if v, p, ok := h.get("maxRetries", false); ok {
						if k, ok := integer(n, p, v, false, 0, math.MaxInt32); ok {
							dr.maxRetries = k
						}
					}
					istioLimit(n, h, "http1MaxPendingRequests", &dr.limits.MaxPending)
					istioLimit(n, h, "http2MaxRequests", &dr.limits.MaxRequests)
					if v, _, ok := h.get("h2UpgradePolicy", false); ok {
						dr.http2 = v == "UPGRADE"
					}
					// ConnectionPoolSettings.HTTPSettings' other fields.
					for _, k := range []string{"maxRequestsPerConnection",
						"idleTimeout", "useClientProtocol", "maxConcurrentStreams"} {
						if _, p, ok := h.get(k, false); ok {
							n.warn(p, "is not simulated: %s; not read", istioPoolWhy[k])
						}
					}
					h.unread(n, "is not a field of Istio's connectionPool.http (HTTPSettings); not read")
				}
			}
			if v, p, ok := cp.get("tcp", false); ok {
				if t, ok := asObject(n, p, v); ok {
					istioLimit(n, t, "maxConnections", &dr.limits.MaxConnections)
					t.unread(n, "is not simulated (RetryLab's connections take no time to open and never close); not read")
				}
			}
			dr.limitsPath = p
			cp.unread(n, "is not a connectionPool field; not read")
		}
	}
	if v, p, ok := o.get("loadBalancer", false); ok {
		istioBalancer(n, p, v, dr)
	}
	for _, k := range []string{"tls", "portLevelSettings", "tunnel", "proxyProtocol"} {
		if _, p, ok := o.get(k, false); ok {
			n.warn(p, "is not simulated; not read")
		}
	}
	o.unread(n, "is not a trafficPolicy field; not read")
}

// istioLimit reads field k of o, a connection limit, into *dst: 0 and
// values above engine.MaxConnectionLimit are no limit, as Istio writes
// only a limit above 0 into Envoy's threshold (whose default it sets to
// 2^32-1).
func istioLimit(n *notes, o *object, k string, dst *int) {
	v, p, ok := o.get(k, false)
	if !ok {
		return
	}
	x, ok := integer(n, p, v, false, 0, math.MaxInt32)
	if !ok {
		return
	}
	switch {
	case x == 0:
		n.info(p, "is 0, which Istio treats as not set: no limit, Istio's default (2^32-1)")
	case x > engine.MaxConnectionLimit:
		n.info(p, "is above %d: no limit, as Istio's default (2^32-1)", engine.MaxConnectionLimit)
	default:
		*dst = x
	}
}

// istioConnectionLimits returns the connection limits of DestinationRule
// dr (nil when it sets none), as Istio's cluster builder writes them into
// the threshold of Envoy's circuit_breakers, every other one left at
// 2^32-1, no limit: tcp.maxConnections as max_connections,
// http.http1MaxPendingRequests as max_pending_requests,
// http.http2MaxRequests as max_requests.
func istioConnectionLimits(n *notes, dr *istioDR) *engine.ConnectionLimits {
	cl := dr.limits
	if cl == (engine.ConnectionLimits{}) {
		return nil
	}
	if dr.http2 && (cl.MaxConnections != 0 || cl.MaxPending != 0) {
		n.info(dr.limitsPath, "upgrades to HTTP/2 (h2UpgradePolicy UPGRADE), whose requests share a connection: maxConnections and http1MaxPendingRequests do not limit its attempts once connected (RetryLab's connections take no time to open): only http2MaxRequests is simulated")
		cl.MaxConnections, cl.MaxPending = 0, 0
	}
	switch {
	case cl.MaxConnections == 0 && cl.MaxPending != 0:
		n.info(dr.limitsPath+".http.http1MaxPendingRequests", "limits the requests waiting for a connection, but the connections are not limited (tcp.maxConnections not set): none waits, not simulated")
		cl.MaxPending = 0
	case cl.MaxConnections != 0 && cl.MaxPending == 0:
		cl.MaxPending = engine.MaxConnectionLimit // Istio's 2^32-1: no limit
		n.info(dr.limitsPath+".tcp.maxConnections", "limits the connections without http1MaxPendingRequests: the requests waiting for one are not limited (Istio's default, 2^32-1): max_pending %d", engine.MaxConnectionLimit)
	}
	if cl == (engine.ConnectionLimits{}) {
		return nil
	}
	return &cl
}

// istioBudget sets the budget a DestinationRule's maxRetries makes: at
// most that many retries outstanding, Envoy's max_retries circuit
// breaker, which is the engine's concurrency budget counting attempts in
// flight with a ratio of 0.
func istioBudget(n *notes, dr *istioDR, pol *engine.Policy) {
	dr.used = true
	pol.ConnectionLimits = istioConnectionLimits(n, dr)
	switch {
	case dr.maxRetries < 0:
	case dr.maxRetries == 0:
		n.info(dr.path+".trafficPolicy.connectionPool.http.maxRetries", "is 0, which Istio treats as not set (cluster builder: maxRetries > 0 only): no limit, Istio's default (2^32-1)")
	case dr.maxRetries > 1_000_000:
		n.info(dr.path+".trafficPolicy.connectionPool.http.maxRetries", "is above 1,000,000 retries outstanding: no limit, as Istio's default (2^32-1)")
	default:
		pol.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: dr.maxRetries, ShareOf: engine.ShareAttempts}
	}
}

// istioRouteFields are the fields of an http route that route requests
// and do not change how they are retried: read, without a note.
var istioRouteFields = []string{"match", "route", "rewrite", "headers", "corsPolicy"}

func istioVirtualService(n *notes, vs kubeDoc, drs []*istioDR) []engine.Strategy {
	o := vs.spec
	var hosts []string
	if v, _, ok := o.get("hosts", false); ok {
		if list, ok := v.([]any); ok {
			for _, h := range list {
				if s, ok := h.(string); ok {
					hosts = append(hosts, s)
				}
			}
		}
	}
	for _, k := range []string{"gateways", "exportTo"} {
		o.get(k, false)
	}
	for _, k := range []string{"tcp", "tls"} {
		if _, p, ok := o.get(k, false); ok {
			n.info(p, "is not read: Istio retries HTTP routes only")
		}
	}
	v, p, ok := o.get("http", false)
	o.unread(n, "is not a VirtualService field RetryLab reads; not read")
	if !ok {
		n.info(o.path, "has no http routes; nothing to import")
		return nil
	}
	routes, ok := v.([]any)
	if !ok {
		n.fail(p, v, "is not an array of http routes")
		return nil
	}
	name := cmpOr(vs.name, "VirtualService")
	var sts []engine.Strategy
	for i, rv := range routes {
		rp := index(p, i)
		ro, ok := asObject(n, rp, rv)
		if !ok {
			continue
		}
		st := engine.Strategy{Name: fmt.Sprintf("%s/%d", name, i)}
		if v, _, ok := ro.get("name", false); ok {
			if s, ok := v.(string); ok && s != "" {
				st.Name = name + "/" + s
			}
		}
		for _, k := range []string{"redirect", "directResponse", "delegate"} {
			if _, q, ok := ro.get(k, false); ok {
				n.info(q, "answers or delegates the route without calling the service: not imported")
				ro.unread(n, "is not read")
				st.Name = ""
			}
		}
		if st.Name == "" {
			continue
		}
		for _, k := range istioRouteFields {
			ro.get(k, false)
		}
		istioDestinationFields(n, ro)
		// The hosts the route sends to: its destinations', or the
		// VirtualService's.
		dests := istioDestinations(ro)
		if len(dests) == 0 {
			dests = hosts
		}
		st.Policy = istioRoute(n, rp, ro)
		for _, dr := range drs {
			if slices.ContainsFunc(dests, func(h string) bool { return istioHostMatch(h, dr.host) }) {
				istioBudget(n, dr, &st.Policy)
			}
		}
		sts = append(sts, st)
	}
	return sts
}

// istioDestinationFields warns about every key of an http route's
// destinations (HTTPRouteDestination: destination, weight, headers) that
// is not one of them: a retries or timeout indented one level too deep is
// otherwise dropped silently, and Istio's default policy imported.
func istioDestinationFields(n *notes, ro *object) {
	list, _ := ro.m["route"].([]any)
	for i, d := range list {
		dm, ok := d.(map[string]any)
		if !ok {
			continue
		}
		o := &object{path: index(join(ro.path, "route"), i), m: dm, read: map[string]bool{"destination": true, "weight": true, "headers": true}}
		for _, k := range o.sortedKeys() {
			if o.read[k] {
				continue
			}
			hint := ""
			if slices.Contains(istioRouteFields, k) || k == "retries" || k == "timeout" {
				hint = "; it belongs to the http route, beside route:"
			}
			n.warn(join(o.path, k), "is not a field of an HTTPRouteDestination (destination, weight, headers); not read%s", hint)
		}
	}
}

// istioDestinations returns the hosts of an http route's destinations.
func istioDestinations(ro *object) []string {
	var out []string
	list, _ := ro.m["route"].([]any)
	for _, d := range list {
		dm, _ := d.(map[string]any)
		dest, _ := dm["destination"].(map[string]any)
		if h, ok := dest["host"].(string); ok {
			out = append(out, h)
		}
	}
	return out
}

func istioRoute(n *notes, path string, ro *object) engine.Policy {
	pol := istioRoutePolicy()
	if v, p, ok := ro.get("timeout", false); ok {
		pol.Deadline, _ = istioMs(n, p, v)
	}
	for _, k := range []string{"fault", "mirror", "mirrors", "mirrorPercent", "mirrorPercentage"} {
		if _, p, ok := ro.get(k, false); ok {
			n.warn(p, "is not simulated: it changes the load on the service, not how calls are retried; not read")
		}
	}
	rv, rp, ok := ro.get("retries", false)
	ro.unread(n, "is not an http route field RetryLab reads; not read")
	if !ok {
		n.info(join(path, "retries"), "is not set: Istio's default retry policy, 2 retries on %s (%s; a mesh-wide meshConfig.defaultHttpRetryPolicy would change it); %s", istioDefaultRetryOnText, istioDocs, istioDefaultNote)
		return pol
	}
	o, ok := asObject(n, rp, rv)
	if !ok {
		return pol
	}
	attempts := 0
	if v, p, ok := o.get("attempts", false); ok {
		if k, ok := integer(n, p, v, false, 0, engine.MaxAttempts-1); ok {
			attempts = k
		}
	}
	pol.MaxAttempts = attempts + 1
	if attempts == 0 {
		n.info(join(rp, "attempts"), "is 0 or not set: Istio disables retries for the route; one attempt per call")
	}
	if v, p, ok := o.get("perTryTimeout", false); ok {
		pol.AttemptTimeout, _ = istioMs(n, p, v)
	}
	if v, p, ok := o.get("retryOn", false); ok {
		if s, ok := v.(string); ok {
			if ro, ok := istioRetryOn(n, p, s); ok {
				pol.RetryOn = ro
			}
		} else {
			n.fail(p, v, "is not a string of comma-separated conditions")
		}
	}
	if v, p, ok := o.get("backoff", false); ok {
		if d, ok := istioMs(n, p, v); ok {
			pol.Backoff.Base, pol.Backoff.Max = d, 10*d
		}
	}
	if v, p, ok := o.get("retryRemoteLocalities", false); ok {
		if b, ok := boolean(n, p, v, false); ok && b {
			n.warn(p, "is not simulated: RetryLab's dependency is one server, in one locality")
		}
	}
	if v, p, ok := o.get("retryIgnorePreviousHosts", false); ok {
		if b, ok := boolean(n, p, v, false); ok && !b {
			pol.RetryHostPredicate, pol.HostSelectionRetryMaxAttempts = "", 0
		}
	}
	o.unread(n, "is not an HTTPRetry field; not read")
	return pol
}

// istioRetryOn reads a retryOn list: Envoy's x-envoy-retry-on and
// x-envoy-retry-grpc-on conditions, and HTTP status codes.
func istioRetryOn(n *notes, path, s string) (*engine.RetryOn, bool) {
	var set [600]bool
	five := false
	ro := &engine.RetryOn{}
	good := true
	var grpcNames []string
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		if code, err := strconv.Atoi(tok); err == nil {
			if !istioStatusText[code] {
				n.fail(path, tok, "is not a status code Go's net/http names, so Istio passes it to Envoy as a condition name, which Envoy does not know (pilot retry.go parseRetryOn); allowed the codes http.StatusText names")
				good = false
				continue
			}
			set[code] = true
			continue
		}
		switch tok {
		case "":
		case "5xx":
			five, ro.Connection, ro.Timeout = true, true, true
		case "gateway-error":
			set[502], set[503], set[504] = true, true, true
			ro.Connection, ro.Timeout = true, true
		case "reset":
			ro.Connection, ro.Timeout = true, true
		case "connect-failure":
			ro.Connection = true
		case "refused-stream", "reset-before-request":
			ro.Connection = true
			n.info(path, "%s: retried as a connection error, RetryLab's failure that reaches no server", tok)
		case "retriable-4xx":
			set[409] = true
		case "retriable-status-codes":
			// The status codes listed with it.
		case "envoy-ratelimited", "retriable-headers", "http3-post-connect-failure":
			n.warn(path, "%s is not simulated (RetryLab's dependency sends no such header and uses no HTTP/3); not read", tok)
		default:
			if st, ok := istioGRPC[tok]; ok {
				n.warn(path, "%q %s", tok, envoyGRPCNote(istioGRPCName[tok], st))
				grpcNames = append(grpcNames, tok)
				continue
			}
			n.fail(path, tok, "is not a retry condition; allowed Envoy's x-envoy-retry-on (5xx, gateway-error, reset, connect-failure, refused-stream, retriable-4xx, retriable-status-codes, ...), x-envoy-retry-grpc-on (cancelled, deadline-exceeded, internal, resource-exhausted, unavailable) and status codes")
			good = false
		}
	}
	if five {
		ro.StatusRanges = []string{"500-599"}
	}
	for code, ok := range set {
		if ok && !(five && code >= 500) {
			ro.Statuses = append(ro.Statuses, code)
		}
	}
	if len(ro.Statuses) == 0 && len(ro.StatusRanges) == 0 && !ro.Connection && !ro.Timeout && good && len(grpcNames) == 0 {
		n.warn(path, "retries nothing RetryLab simulates")
	}
	return ro, good
}

// Istio export.

type istioDoc struct {
	APIVersion string        `yaml:"apiVersion"`
	Kind       string        `yaml:"kind"`
	Metadata   istioMetadata `yaml:"metadata"`
	Spec       any           `yaml:"spec"`
}

type istioMetadata struct {
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace,omitempty"`
}

type istioVSSpec struct {
	Hosts []string         `yaml:"hosts"`
	HTTP  []istioHTTPRoute `yaml:"http"`
}

type istioHTTPRoute struct {
	Name    string             `yaml:"name,omitempty"`
	Route   []istioDestination `yaml:"route"`
	Timeout string             `yaml:"timeout,omitempty"`
	Retries istioRetries       `yaml:"retries"`
}

type istioDestination struct {
	Destination struct {
		Host string `yaml:"host"`
	} `yaml:"destination"`
}

type istioRetries struct {
	Attempts      int    `yaml:"attempts"`
	PerTryTimeout string `yaml:"perTryTimeout,omitempty"`
	RetryOn       string `yaml:"retryOn,omitempty"`
	Backoff       string `yaml:"backoff,omitempty"`
	// RetryIgnorePreviousHosts false turns off Istio's default
	// previous-hosts predicate.
	RetryIgnorePreviousHosts *bool `yaml:"retryIgnorePreviousHosts,omitempty"`
}

type istioDRSpec struct {
	Host          string                `yaml:"host"`
	TrafficPolicy istioTrafficPolicyOut `yaml:"trafficPolicy"`
}

type istioTrafficPolicyOut struct {
	LoadBalancer     *istioLoadBalancer   `yaml:"loadBalancer,omitempty"`
	ConnectionPool   *istioConnectionPool `yaml:"connectionPool,omitempty"`
	OutlierDetection *istioOutlierSpec    `yaml:"outlierDetection,omitempty"`
}

type istioLoadBalancer struct {
	Simple string `yaml:"simple"`
}

type istioConnectionPool struct {
	TCP  *istioTCPPool  `yaml:"tcp,omitempty"`
	HTTP *istioHTTPPool `yaml:"http,omitempty"`
}

type istioTCPPool struct {
	MaxConnections int `yaml:"maxConnections"`
}

type istioHTTPPool struct {
	HTTP1MaxPendingRequests int `yaml:"http1MaxPendingRequests,omitempty"`
	HTTP2MaxRequests        int `yaml:"http2MaxRequests,omitempty"`
	MaxRetries              int `yaml:"maxRetries,omitempty"`
}

// istioPoolFor writes connection limits cl into a connectionPool (nil
// without cl): a limit of 0 (none) left out, as Istio reads 0 and
// absence alike as no limit.
func istioPoolFor(n *notes, cl *engine.ConnectionLimits) *istioConnectionPool {
	if cl == nil {
		return nil
	}
	cp := &istioConnectionPool{}
	if cl.MaxConnections > 0 {
		cp.TCP = &istioTCPPool{MaxConnections: cl.MaxConnections}
	}
	h := istioHTTPPool{HTTP2MaxRequests: cl.MaxRequests}
	switch {
	case cl.MaxConnections == 0:
	case cl.MaxPending == 0:
		h.HTTP1MaxPendingRequests = 1
		n.warn("connection_limits.max_pending", "is 0: no attempt waits for a connection; Istio reads http1MaxPendingRequests 0 as not set (no limit): written as 1, the fewest it can say")
	case cl.MaxPending < engine.MaxConnectionLimit:
		h.HTTP1MaxPendingRequests = cl.MaxPending
	}
	if h != (istioHTTPPool{}) {
		cp.HTTP = &h
	}
	return cp
}

// istioHost is the host an export is written for.
const istioHost = "dependency"

// istioNamesFor names the exported VirtualService and its route after
// the strategy: a name "VIRTUALSERVICE/ROUTE", as Import writes them, is
// split back; any other name is the route's, and the VirtualService's
// once written as Kubernetes names must be (a DNS-1123 subdomain:
// lowercase letters, digits, - and ., each run of other characters a -).
// A name with no ASCII letter or digit gives the VirtualService
// istioHost's.
func istioNamesFor(name string) (vs, route string) {
	vs, route, ok := strings.Cut(name, "/")
	if !ok {
		route = name
	}
	var labels []string
	for _, l := range strings.Split(strings.ToLower(vs), ".") {
		// Each run of characters other than a-z and 0-9 is one dash,
		// none at either end of the label.
		words := strings.FieldsFunc(l, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
		if len(words) > 0 {
			labels = append(labels, strings.Join(words, "-"))
		}
	}
	vs = strings.Join(labels, ".")
	if len(vs) > 253 {
		vs = strings.TrimRight(vs[:253], ".-")
	}
	if vs == "" {
		vs = istioHost
	}
	return vs, route
}

// istioSpan formats d as a protobuf JSON duration in whole milliseconds,
// which Istio requires, at least 1 ms.
func istioSpan(n *notes, path string, d engine.Duration) string {
	ms := engine.Duration(time.Millisecond)
	if r := (d + ms/2) / ms * ms; r != d {
		r = max(r, ms)
		n.warn(path, "%s is not whole milliseconds, which Istio requires: written as %s", d, r)
		d = r
	}
	return grpcDuration(d)
}

func exportIstio(st *engine.Strategy, b *engine.Backends, n *notes) []byte {
	unsupported(n, st, "Istio", "max_attempts", "attempt_timeout", "deadline", "backoff", "jitter", "retry_on", "budget", "breaker", "connection_limits")
	name, routeName := istioNamesFor(st.Name)
	route := istioHTTPRoute{Name: routeName}
	route.Route = make([]istioDestination, 1)
	route.Route[0].Destination.Host = istioHost
	r := &route.Retries
	switch st.MaxAttempts {
	case 0:
		r.Attempts = engine.MaxAttempts - 1
		n.warn("max_attempts", "is unlimited; Istio needs a number of retries: written as %d", r.Attempts)
	default:
		r.Attempts = st.MaxAttempts - 1
	}
	if st.Deadline > 0 {
		route.Timeout = istioSpan(n, "deadline", st.Deadline)
	}
	if st.AttemptTimeout > 0 {
		r.PerTryTimeout = istioSpan(n, "attempt_timeout", st.AttemptTimeout)
	}
	if r.Attempts > 0 {
		r.RetryOn = istioRetryOnFor(n, st.RetryOn)
	}
	istioBackoffFor(n, st, r)
	if st.Breaker != nil {
		n.warn("breaker", "Istio has no client circuit breaker: a DestinationRule's outlierDetection ejects failing hosts from the load-balancing pool instead; not exported")
	}
	if b != nil {
		// Istio's retries avoid the hosts tried unless told not to.
		switch {
		case st.RetryHostPredicate == "":
			r.RetryIgnorePreviousHosts = new(bool)
		case st.HostSelectionRetryMaxAttempts != istioHostSelections:
			n.warn("host_selection_retry_max_attempts", "is %d; Istio always chooses a host again up to %d times: written as Istio's", max(st.HostSelectionRetryMaxAttempts, 1), istioHostSelections)
		}
	}
	out := encodeYAML(istioDoc{APIVersion: "networking.istio.io/v1", Kind: "VirtualService",
		Metadata: istioMetadata{Name: name}, Spec: istioVSSpec{Hosts: []string{istioHost}, HTTP: []istioHTTPRoute{route}}})
	var spec istioDRSpec
	if b := st.Budget; b != nil {
		switch {
		case b.Kind == engine.BudgetConcurrency && b.ShareOf == engine.ShareAttempts && b.Ratio == 0 && b.MinConcurrency == 0:
			n.warn("budget", "allows no retry at all; Istio treats maxRetries 0 as not set: not exported (set attempts to 0 instead)")
		case b.Kind == engine.BudgetConcurrency && b.ShareOf == engine.ShareAttempts && b.Ratio == 0 && b.Scope != engine.ScopeClient:
			spec.TrafficPolicy.ConnectionPool = &istioConnectionPool{HTTP: &istioHTTPPool{MaxRetries: b.MinConcurrency}}
		default:
			n.warn("budget", "Istio limits retries only by the number outstanding (DestinationRule connectionPool.http.maxRetries, a concurrency budget of ratio 0 counting attempts); this %q budget cannot be written (Envoy's retry_budget is not exposed by Istio): not exported", b.Kind)
		}
	}
	if cp := istioPoolFor(n, st.ConnectionLimits); cp != nil {
		if spec.TrafficPolicy.ConnectionPool == nil {
			spec.TrafficPolicy.ConnectionPool = cp
		} else {
			if cp.HTTP == nil {
				cp.HTTP = &istioHTTPPool{}
			}
			cp.HTTP.MaxRetries = spec.TrafficPolicy.ConnectionPool.HTTP.MaxRetries
			spec.TrafficPolicy.ConnectionPool = cp
		}
	}
	if b != nil {
		spec.TrafficPolicy.LoadBalancer = &istioLoadBalancer{Simple: istioBalancerFor(n, b.Balancer)}
		if b.OutlierDetection != nil {
			spec.TrafficPolicy.OutlierDetection = istioOutliersFor(n, b.OutlierDetection)
		}
		n.info("dependency.backends.count", "is %d; a DestinationRule does not say how many pods serve the host: scale your service to match", b.Count)
	} else if st.RetryHostPredicate != "" {
		n.info("retry_host_predicate", "is Istio's default (retries prefer hosts not tried yet); without backends it chooses nothing")
	}
	if spec.TrafficPolicy != (istioTrafficPolicyOut{}) {
		spec.Host = istioHost
		out = append(append(out, "---\n"...), encodeYAML(istioDoc{APIVersion: "networking.istio.io/v1", Kind: "DestinationRule",
			Metadata: istioMetadata{Name: name}, Spec: spec})...)
	}
	n.info("", "written as the VirtualService %q, after the strategy, of host %q; set its hosts and route destination to your service's", name, istioHost)
	return out
}

// istioBackoffFor writes the back-off: Istio sets only its base, the cap
// being 10 × base and the jitter full (Envoy's).
func istioBackoffFor(n *notes, st *engine.Strategy, r *istioRetries) {
	b := st.Backoff
	mult := b.Multiplier
	if mult == 0 {
		mult = engine.DefaultMultiplier
	}
	switch {
	case b.Kind != engine.BackoffExponential || b.Base == 0:
		n.warn("backoff", "Istio's back-off is Envoy's, exponential from 25 ms doubling to 10 × 25 ms with full jitter; this %q backoff is not exported", b.Kind)
		return
	case mult != 2 || b.Max != 10*b.Base:
		n.warn("backoff", "Istio's back-off doubles from its base up to 10 × base; this one (multiplier %v, max %s) is written as its base, %s", mult, b.Max, b.Base)
	}
	if b.ThrottleBase != 0 {
		n.warn("backoff.throttle_base", "Istio has no other back-off after throttling; not exported")
	}
	if st.Jitter.Kind != engine.JitterFull {
		n.warn("jitter", "Envoy's back-off is always fully jittered; this %q jitter is written as full", cmpOr(string(st.Jitter.Kind), "none"))
	}
	if b.Base != istioBase {
		r.Backoff = istioSpan(n, "backoff.base", b.Base)
	}
}

// istioRetryOnFor writes a retry_on as a retryOn list.
func istioRetryOnFor(n *notes, ro *engine.RetryOn) string {
	if ro == nil {
		ro = &engine.RetryOn{Statuses: []int{408, 429, 502, 503, 504}, Timeout: true, Connection: true}
	}
	if sameRetried(ro, istioDefaultRetryOn()) {
		return ""
	}
	statuses, timeout, conn := retried(ro)
	set := map[int]bool{}
	for _, s := range statuses {
		set[s] = true
	}
	has := func(lo, hi int) bool {
		for s := lo; s <= hi; s++ {
			if !set[s] {
				return false
			}
		}
		return true
	}
	var toks []string
	drop := func(lo, hi int) {
		for s := lo; s <= hi; s++ {
			delete(set, s)
		}
	}
	switch {
	case has(500, 599):
		toks = append(toks, "5xx")
		drop(500, 599)
		if !conn || !timeout {
			n.warn("retry_on", "Envoy's 5xx also retries connection failures and per-try timeouts; written as 5xx")
		}
		conn, timeout = false, false
	case has(502, 504) && conn && timeout:
		toks = append(toks, "gateway-error")
		drop(502, 504)
		conn, timeout = false, false
	}
	switch {
	case conn && timeout:
		toks = append(toks, "reset")
	case conn:
		toks = append(toks, "connect-failure")
	case timeout:
		n.warn("retry_on.timeout", "Envoy retries a per-try timeout only as a reset (reset, 5xx or gateway-error), which retries connection failures too; not exported")
	}
	rest := make([]int, 0, len(set))
	for s := range set {
		rest = append(rest, s)
	}
	slices.Sort(rest)
	var lost []int
	for _, s := range rest {
		switch {
		case istioStatusText[s]:
			toks = append(toks, strconv.Itoa(s))
		default:
			lost = append(lost, s)
		}
	}
	if len(lost) > 0 {
		n.warn("retry_on", "Istio takes as retriable status codes only those Go's net/http names; %s cannot be written: not exported", statusList(lost))
	}
	if len(toks) == 0 {
		n.warn("retry_on", "retries nothing; Istio's retryOn cannot be empty (its default, %s, would apply): written as connect-failure", istioDefaultRetryOnText)
		return "connect-failure"
	}
	return strings.Join(toks, ",")
}
