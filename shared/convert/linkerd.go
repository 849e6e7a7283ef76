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

// Linkerd's ServiceProfile retries (linkerd/linkerd2
// controller/api/destination/profile_translator.go; the proxy's budget is
// tower's TpsBudget, tower/src/retry/budget/tps_budget.rs): a retryable
// route is retried at once, with no limit on attempts, while the retry
// budget allows, until the route's timeout.

const linkerdDocs = "https://linkerd.io/2/reference/service-profiles/"

// linkerdBudget is Linkerd's retry budget: retryRatio of the requests
// over ttl, plus minRetriesPerSecond, kept in 10 slices of the ttl as
// Finagle's (the engine's ratio budget with slices).
func linkerdBudget(ratio, minPerSecond float64, ttl engine.Duration) *engine.Budget {
	return &engine.Budget{Kind: engine.BudgetRatio, Ratio: ratio, Window: ttl, MinPerSecond: minPerSecond, Slices: 10}
}

// linkerdDefaultBudget is the destination controller's budget when a
// profile sets none (profile_translator.go defaultRetryBudget).
func linkerdDefaultBudget() *engine.Budget { return linkerdBudget(0.2, 10, engine.Duration(10e9)) }

// linkerdPolicy returns a retryable route's policy: no backoff, no
// attempt limit, 5xx answers retried.
func linkerdPolicy() engine.Policy {
	return engine.Policy{
		MaxAttempts: 0,
		Backoff:     engine.Backoff{Kind: engine.BackoffNone},
		RetryOn:     &engine.RetryOn{StatusRanges: []string{"500-599"}},
		Budget:      linkerdDefaultBudget(),
	}
}

// linkerdRetryOn returns the retry_on of a set of statuses: runs of 3
// or more as status ranges, the others as statuses.
func linkerdRetryOn(set *[600]bool) *engine.RetryOn {
	ro := &engine.RetryOn{}
	for s := 100; s < 600; {
		if !set[s] {
			s++
			continue
		}
		e := s
		for e+1 < 600 && set[e+1] {
			e++
		}
		if e-s >= 2 {
			ro.StatusRanges = append(ro.StatusRanges, fmt.Sprintf("%d-%d", s, e))
		} else {
			for k := s; k <= e; k++ {
				ro.Statuses = append(ro.Statuses, k)
			}
		}
		s = e + 1
	}
	return ro
}

func importLinkerd(data []byte) (*Imported, error) {
	im, err := importLinkerdDocs(data)
	return im, kubeNamed(data, err)
}

func importLinkerdDocs(data []byte) (*Imported, error) {
	var n notes
	docs, err := kubeDocs(&n, data)
	if err != nil {
		return nil, err
	}
	var sts, routes []engine.Strategy
	profiles := 0
	for _, d := range docs {
		at := cmpOr(d.path, "the document")
		switch d.kind {
		case "ServiceProfile":
			profiles++
			if d.apiVersion != "linkerd.io/v1alpha2" && d.apiVersion != "linkerd.io/v1alpha1" {
				n.warn(join(d.path, "apiVersion"), "is %q; Linkerd serves ServiceProfile as linkerd.io/v1alpha2: read as such", d.apiVersion)
			}
			if d.spec == nil {
				n.fail(join(d.path, "spec"), nil, "is missing; a ServiceProfile needs a spec with routes")
				continue
			}
			sts = append(sts, linkerdProfile(&n, d)...)
		case "HTTPRoute", "GRPCRoute", "Service":
			if st, ok := linkerdAnnotations(&n, d); ok {
				routes = append(routes, st)
			}
		case "":
			n.fail(join(d.path, "kind"), nil, "is missing; allowed Kubernetes documents of kind ServiceProfile")
		default:
			n.info(at, "is a %s; not read (RetryLab reads ServiceProfile)", d.kind)
		}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	sts = append(sts, routes...)
	if len(sts) == 0 {
		msg := "has no ServiceProfile route; nothing to import"
		if profiles == 0 {
			msg = "has no ServiceProfile (linkerd.io/v1alpha2) nor retry annotations; nothing to import"
		}
		return nil, engine.Errors{{Value: "the document", Message: msg + formatHint(kubeTrees(docs), Linkerd)}}
	}
	return &Imported{Strategies: sts, Notes: n.list}, nil
}

// linkerdAnnotations reads Linkerd 2.16's retries and timeouts, set by
// annotations on a Service, HTTPRoute or GRPCRoute
// (https://linkerd.io/2/reference/retries/,
// https://linkerd.io/2/reference/timeouts/): counted retries, at once,
// without a budget. A document without them is not read.
func linkerdAnnotations(n *notes, d kubeDoc) (engine.Strategy, bool) {
	var st engine.Strategy
	meta, _ := d.root.m["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	at := join(d.path, "metadata.annotations")
	get := func(key string) (string, string, bool) {
		v, ok := ann[key]
		if !ok {
			return "", "", false
		}
		p := at + "[" + strconv.Quote(key) + "]"
		s, ok := v.(string)
		if !ok {
			n.fail(p, v, "is not a string; annotation values are strings")
			return "", p, false
		}
		return strings.TrimSpace(s), p, true
	}
	found := false
	for k := range ann {
		if strings.HasPrefix(k, "retry.linkerd.io/") || strings.HasPrefix(k, "timeout.linkerd.io/") {
			found = true
		}
	}
	if !found {
		n.info(cmpOr(d.path, "the document"), "is a %s without retry.linkerd.io or timeout.linkerd.io annotations; not read", d.kind)
		return st, false
	}
	before := len(n.errs)
	st.Name = d.kind + "/" + cmpOr(d.name, "unnamed")
	st.MaxAttempts = 2 // retry.linkerd.io/limit's default, 1 retry
	st.Backoff = engine.Backoff{Kind: engine.BackoffNone}
	var set [600]bool
	conditions := false
	if s, p, ok := get("retry.linkerd.io/http"); ok {
		conditions = true
		if d.kind == "GRPCRoute" {
			n.warn(p, "is not valid on a GRPCRoute: Linkerd ignores it")
		} else {
			linkerdHTTPConditions(n, p, s, &set)
		}
	}
	if s, p, ok := get("retry.linkerd.io/grpc"); ok {
		conditions = true
		if d.kind == "HTTPRoute" {
			n.warn(p, "is not valid on an HTTPRoute: Linkerd ignores it")
		} else {
			var names []string
			for _, tok := range strings.Split(s, ",") {
				tok = strings.TrimSpace(tok)
				if code, ok := istioGRPC[tok]; ok {
					set[code] = true
					names = append(names, tok)
				} else {
					n.fail(p, tok, "is not a gRPC retry condition; allowed cancelled, deadline-exceeded, internal, resource-exhausted, unavailable")
				}
			}
			n.info(p, "the gRPC codes %s are read as their HTTP statuses (google.rpc.Code's HTTP mapping), as RetryLab's dependency answers HTTP statuses", strings.Join(names, ", "))
		}
	}
	if s, p, ok := get("retry.linkerd.io/limit"); ok {
		k, err := strconv.Atoi(s)
		if err != nil || k < 0 || k >= engine.MaxAttempts {
			n.fail(p, s, "is not a number of retries RetryLab simulates; allowed 0 to %d", engine.MaxAttempts-1)
		} else {
			st.MaxAttempts = k + 1
		}
	} else {
		n.info(at, "sets no retry.linkerd.io/limit: Linkerd's default, 1 retry")
	}
	ro := linkerdRetryOn(&set)
	if s, p, ok := get("retry.linkerd.io/timeout"); ok {
		if d, ok := kubeDuration(n, p, s); ok {
			st.AttemptTimeout, ro.Timeout = d, true
		}
	}
	if !conditions {
		n.warn(at, "sets no retry.linkerd.io/http or retry.linkerd.io/grpc: read as retrying no status, only the attempts retry.linkerd.io/timeout cuts (the policy controller's default conditions are not verified here)")
	}
	st.RetryOn = ro
	if s, p, ok := get("timeout.linkerd.io/request"); ok {
		st.Deadline, _ = kubeDuration(n, p, s)
	} else if d.kind != "Service" && d.spec != nil {
		if rules, _ := d.spec.m["rules"].([]any); len(rules) > 0 {
			r0, _ := rules[0].(map[string]any)
			if t, _ := r0["timeouts"].(map[string]any); t["request"] != nil {
				st.Deadline, _ = kubeDuration(n, join(d.spec.path, "rules[0].timeouts.request"), t["request"])
				if len(rules) > 1 {
					n.warn(join(d.spec.path, "rules"), "has %d rules; the strategy takes the first's request timeout", len(rules))
				}
			}
		}
	}
	if _, p, ok := get("timeout.linkerd.io/response"); ok {
		n.warn(p, "is not read: whether it bounds each attempt or the whole exchange is not settled here (RetryLab would model it as an attempt timeout that is not retried; retry.linkerd.io/timeout is the retried one)")
	}
	if _, p, ok := get("timeout.linkerd.io/idle"); ok {
		n.warn(p, "is not simulated: RetryLab's streams are never idle; not read")
	}
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if (strings.HasPrefix(k, "retry.linkerd.io/") || strings.HasPrefix(k, "timeout.linkerd.io/")) && !slices.Contains([]string{
			"retry.linkerd.io/http", "retry.linkerd.io/grpc", "retry.linkerd.io/limit", "retry.linkerd.io/timeout",
			"timeout.linkerd.io/request", "timeout.linkerd.io/response", "timeout.linkerd.io/idle"}, k) {
			n.warn(at+"["+strconv.Quote(k)+"]", "is not an annotation Linkerd documents; not read")
		}
	}
	n.info(cmpOr(d.path, "the document"), "Linkerd 2.16's counted retries: at once, without a budget; route annotations override the parent Service's, and a ServiceProfile for the Service overrides both")
	return st, len(n.errs) == before
}

// linkerdHTTPConditions reads retry.linkerd.io/http: codes, ranges,
// gateway-error (502-504) and 5xx.
func linkerdHTTPConditions(n *notes, path, s string, set *[600]bool) {
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		lo, hi := 0, 0
		switch tok {
		case "5xx":
			lo, hi = 500, 599
		case "gateway-error":
			lo, hi = 502, 504
		default:
			a, b, isRange := strings.Cut(tok, "-")
			var err1, err2 error
			lo, err1 = strconv.Atoi(a)
			hi = lo
			if isRange {
				hi, err2 = strconv.Atoi(b)
			}
			if err1 != nil || err2 != nil || lo < 100 || hi > 599 || lo > hi {
				n.fail(path, tok, "is not an HTTP status condition; allowed a code (504), a range (500-504), gateway-error or 5xx, codes from 100 to 599")
				continue
			}
		}
		for c := lo; c <= hi; c++ {
			set[c] = true
		}
	}
}

func linkerdProfile(n *notes, d kubeDoc) []engine.Strategy {
	o := d.spec
	budget := linkerdDefaultBudget()
	dropped := false
	if v, p, ok := o.get("retryBudget", false); ok {
		var b *engine.Budget
		if b, dropped = linkerdRetryBudget(n, p, v); b != nil {
			budget = b
		}
	} else {
		n.info(join(o.path, "retryBudget"), "is not set: Linkerd's default budget, 20%% of requests plus 10 retries per second over 10 s")
	}
	for _, k := range []string{"dstOverrides", "opaquePorts"} {
		if _, p, ok := o.get(k, false); ok {
			n.warn(p, "is not simulated: RetryLab's dependency is one service; not read")
		}
	}
	v, p, ok := o.get("routes", false)
	o.unread(n, "is not a ServiceProfile field RetryLab reads; not read")
	if !ok {
		n.fail(join(o.path, "routes"), nil, "is missing; a ServiceProfile's retries are set on its routes")
		return nil
	}
	routes, ok := v.([]any)
	if !ok {
		n.fail(p, v, "is not an array of routes")
		return nil
	}
	var retryable, once []engine.Strategy
	var oncePaths []string
	for i, rv := range routes {
		rp := index(p, i)
		st, isRetryable, ok := linkerdRoute(n, rp, rv, budget)
		switch {
		case !ok:
		case isRetryable:
			retryable = append(retryable, st)
		default:
			once = append(once, st)
			oncePaths = append(oncePaths, rp)
		}
	}
	for _, rp := range oncePaths {
		if len(retryable) > 0 {
			n.info(rp, "is not retryable (isRetryable is not true): Linkerd does not retry it; not imported")
		} else {
			n.info(rp, "is not retryable (isRetryable is not true): Linkerd does not retry it; imported as one attempt per call, as no route of the profile is retryable")
		}
	}
	if dropped {
		for i := range retryable {
			retryable[i].MaxAttempts, retryable[i].Budget = 1, nil
		}
	}
	if len(retryable) > 0 {
		return retryable
	}
	return once
}

// linkerdRetryBudget reads a ServiceProfile's retryBudget; dropped says
// that the proxy would drop it (a ttl outside 1–60 s), and with it every
// retry.
func linkerdRetryBudget(n *notes, path string, v any) (b *engine.Budget, dropped bool) {
	o, ok := asObject(n, path, v)
	if !ok {
		return nil, false
	}
	ratio, minPS, ttl := 0.0, 0.0, engine.Duration(0)
	good := true
	if v, p, ok := o.get("retryRatio", false); ok {
		if f, ok := number(n, p, v, false); ok {
			if f <= 0 || f > 100 {
				n.fail(p, v, "is out of range; RetryLab's ratio budget allows above 0, up to 100 (Linkerd 0 to 1000; at 0 only minRetriesPerSecond would retry)")
				good = false
			}
			ratio = f
		} else {
			good = false
		}
	} else {
		n.fail(join(path, "retryRatio"), nil, "is missing; the ServiceProfile CRD requires retryRatio, minRetriesPerSecond and ttl")
		good = false
	}
	if v, p, ok := o.get("minRetriesPerSecond", false); ok {
		if k, ok := integer(n, p, v, false, 0, math.MaxInt32); ok {
			minPS = float64(k)
		} else {
			good = false
		}
	} else {
		n.fail(join(path, "minRetriesPerSecond"), nil, "is missing; the ServiceProfile CRD requires retryRatio, minRetriesPerSecond and ttl")
		good = false
	}
	if v, p, ok := o.get("ttl", false); ok {
		if d, ok := kubeDuration(n, p, v); ok {
			if d < engine.Duration(time.Second) || d > engine.Duration(time.Minute) {
				// The CRD accepts it; the proxy's TpsBudget refuses it,
				// drops the budget and with it every retry of the
				// profile: simulated so, for the misconfiguration to show.
				n.warn(p, "is outside 1s to 60s, the ttl Linkerd's budget (tower's TpsBudget) takes: the proxy drops the budget and never retries the profile's routes; imported as no retries (max_attempts 1)")
				dropped = true
			} else if d%engine.Duration(time.Second) != 0 {
				n.warn(p, "is not whole seconds: Linkerd's reserve counts ttl's whole seconds, the engine's all of it")
			}
			ttl = d
		} else {
			good = false
		}
	} else {
		n.fail(join(path, "ttl"), nil, "is missing; the ServiceProfile CRD requires retryRatio, minRetriesPerSecond and ttl")
		good = false
	}
	o.unread(n, "is not a retryBudget field; not read")
	if !good || dropped {
		return nil, dropped
	}
	if w := 1 / ratio; ratio <= 1 && w != math.Trunc(w) {
		n.warn(join(path, "retryRatio"), "Linkerd's proxy withdraws ⌊1/retryRatio⌋ = %d per retry against 1 per request, so it allows 1/%d of the requests; the engine withdraws ⌊1000/retryRatio⌋ against 1000 (Finagle's scale), nearer retryRatio", int(w), int(w))
	}
	n.warn(path, "Linkerd's budget (tower's TpsBudget) is simulated as Finagle's (the engine's ratio budget in 10 slices of ttl): the proxy deposits once per answer it does not retry and sums the 10 past slices with the current one, where Finagle deposits once per request and sums the current slice with the 9 before it")
	return linkerdBudget(ratio, minPS, ttl), false
}

func linkerdRoute(n *notes, path string, v any, budget *engine.Budget) (engine.Strategy, bool, bool) {
	var st engine.Strategy
	o, ok := asObject(n, path, v)
	if !ok {
		return st, false, false
	}
	before := len(n.errs)
	if v, p, ok := o.get("name", false); ok {
		st.Name, _ = v.(string)
		if st.Name == "" {
			n.fail(p, v, "is not a route name")
		}
	} else {
		n.fail(join(path, "name"), nil, "is missing; the ServiceProfile CRD requires a route's name")
	}
	_, cp, hasCondition := o.get("condition", false)
	if !hasCondition {
		n.fail(join(path, "condition"), nil, "is missing; the ServiceProfile CRD requires a route's condition")
	}
	retryable := false
	if v, p, ok := o.get("isRetryable", false); ok {
		retryable, _ = boolean(n, p, v, false)
	}
	if hasCondition && retryable {
		n.info(cp, "selects the requests the route's policy applies to; the strategy applies it to every operation of the scenario, and an export matches every path")
	}
	st.Policy = linkerdPolicy()
	st.Budget = copyBudget(budget)
	if v, p, ok := o.get("timeout", false); ok {
		st.Deadline, _ = kubeDuration(n, p, v)
	} else {
		n.info(join(path, "timeout"), "is not set: no timeout (the destination controller sends none; %s once said 10 s)", linkerdDocs)
	}
	if v, p, ok := o.get("responseClasses", false); ok {
		st.RetryOn = linkerdResponseClasses(n, p, v)
	}
	o.unread(n, "is not a route field RetryLab reads; not read")
	if !retryable {
		st.Policy = engine.Policy{MaxAttempts: 1, Deadline: st.Deadline}
	}
	return st, retryable, len(n.errs) == before
}

// linkerdResponseClasses reads the classes that say which answers are
// failures, the ones a retryable route retries: 5xx unless a class says
// otherwise, the first class matching a status deciding.
func linkerdResponseClasses(n *notes, path string, v any) *engine.RetryOn {
	list, ok := v.([]any)
	if !ok {
		n.fail(path, v, "is not an array of response classes")
		return nil
	}
	var failure, decided [600]bool
	for i, cv := range list {
		cp := index(path, i)
		o, ok := asObject(n, cp, cv)
		if !ok {
			continue
		}
		isFailure := false
		if v, p, ok := o.get("isFailure", false); ok {
			isFailure, _ = boolean(n, p, v, false)
		}
		cv, cvp, ok := o.get("condition", false)
		o.unread(n, "is not a response class field; not read")
		if !ok {
			n.fail(join(cp, "condition"), nil, "is missing; the ServiceProfile CRD requires a response class's condition")
			continue
		}
		co, ok := asObject(n, cvp, cv)
		if !ok {
			continue
		}
		sv, sp, ok := co.get("status", false)
		co.unread(n, "is not read: RetryLab reads response classes by status range only (all, any and not are left out); the class is not imported")
		if !ok || len(co.m) > 1 {
			continue
		}
		so, ok := asObject(n, sp, sv)
		if !ok {
			continue
		}
		lo, hi := 100, 599
		for _, f := range []struct {
			key string
			dst *int
		}{{"min", &lo}, {"max", &hi}} {
			if v, p, ok := so.get(f.key, false); ok {
				if k, ok := integer(n, p, v, false, 100, 599); ok {
					*f.dst = k
				}
			}
		}
		so.unread(n, "is not a status range field; not read")
		if lo > hi {
			n.fail(sp, fmt.Sprintf("%d-%d", lo, hi), "is an empty range; Linkerd requires max at least min")
			continue
		}
		for s := lo; s <= hi; s++ {
			if !decided[s] {
				decided[s], failure[s] = true, isFailure
			}
		}
	}
	for s := 500; s <= 599; s++ {
		if !decided[s] {
			failure[s] = true
		}
	}
	return linkerdRetryOn(&failure)
}

// Linkerd export.

type linkerdSpec struct {
	Routes      []linkerdRouteYAML `yaml:"routes"`
	RetryBudget *linkerdBudgetYAML `yaml:"retryBudget,omitempty"`
}

type linkerdRouteYAML struct {
	Name      string `yaml:"name"`
	Condition struct {
		PathRegex string `yaml:"pathRegex"`
	} `yaml:"condition"`
	ResponseClasses []linkerdClassYAML `yaml:"responseClasses,omitempty"`
	IsRetryable     bool               `yaml:"isRetryable"`
	Timeout         string             `yaml:"timeout,omitempty"`
}

type linkerdClassYAML struct {
	Condition struct {
		Status struct {
			Min int `yaml:"min"`
			Max int `yaml:"max"`
		} `yaml:"status"`
	} `yaml:"condition"`
	IsFailure bool `yaml:"isFailure"`
}

type linkerdBudgetYAML struct {
	RetryRatio          float64 `yaml:"retryRatio"`
	MinRetriesPerSecond int     `yaml:"minRetriesPerSecond"`
	TTL                 string  `yaml:"ttl"`
}

const linkerdHost = "dependency.default.svc.cluster.local"

// linkerdSpan formats d as a Go duration ("300ms", "1.5s"), which the
// destination controller parses with time.ParseDuration.
func linkerdSpan(d engine.Duration) string { return time.Duration(d).String() }

func exportLinkerd(st *engine.Strategy, n *notes) []byte {
	unsupported(n, st, "A ServiceProfile", "max_attempts", "deadline", "backoff", "jitter", "retry_on", "budget")
	route := linkerdRouteYAML{Name: st.Name, IsRetryable: st.MaxAttempts != 1}
	route.Condition.PathRegex = "/.*"
	if route.Name == "" {
		route.Name = "dependency"
	}
	if st.MaxAttempts > 1 {
		n.warn("max_attempts", "Linkerd's ServiceProfile retries have no attempt limit: the budget and the route timeout bound them; %d attempts are not exported", st.MaxAttempts)
	}
	if st.Deadline > 0 {
		route.Timeout = linkerdSpan(st.Deadline)
	}
	if route.IsRetryable {
		if st.Backoff.Kind != engine.BackoffNone && st.Backoff != (engine.Backoff{}) {
			n.warn("backoff", "Linkerd retries at once, without a backoff; not exported")
		}
		if st.Jitter.Kind != "" && st.Jitter.Kind != engine.JitterNone {
			n.warn("jitter", "Linkerd retries at once, without a backoff to jitter; not exported")
		}
		route.ResponseClasses = linkerdClassesFor(n, st.RetryOn)
	}
	spec := linkerdSpec{Routes: []linkerdRouteYAML{route}}
	switch b := st.Budget; {
	case b == nil:
		if route.IsRetryable {
			n.warn("budget", "is not set: Linkerd always has a retry budget; its default (retryRatio 0.2, minRetriesPerSecond 10, ttl 10s) applies")
		}
	case b.Kind != engine.BudgetRatio || b.Window == 0:
		n.warn("budget", "Linkerd's retry budget is a ratio of the requests over a ttl; this %q budget is not exported, and Linkerd's default (retryRatio 0.2, minRetriesPerSecond 10, ttl 10s) applies", b.Kind)
	default:
		spec.RetryBudget = linkerdBudgetFor(n, b)
	}
	if !route.IsRetryable && spec.RetryBudget == nil && st.Budget != nil && st.Budget.Kind == engine.BudgetRatio {
		n.info("budget", "the route is not retryable: the budget is not used")
	}
	out := encodeYAML(istioDoc{APIVersion: "linkerd.io/v1alpha2", Kind: "ServiceProfile",
		Metadata: istioMetadata{Name: linkerdHost, Namespace: "default"}, Spec: spec})
	n.info("", "written as the ServiceProfile of %s, one route matching every path; rename it after your service (NAME.NAMESPACE.svc.cluster.local) and narrow the condition", linkerdHost)
	return out
}

func linkerdBudgetFor(n *notes, b *engine.Budget) *linkerdBudgetYAML {
	out := &linkerdBudgetYAML{RetryRatio: b.Ratio, MinRetriesPerSecond: int(math.Round(b.MinPerSecond))}
	if float64(out.MinRetriesPerSecond) != b.MinPerSecond {
		n.warn("budget.min_per_second", "Linkerd's minRetriesPerSecond is a whole number: %v is written as %d", b.MinPerSecond, out.MinRetriesPerSecond)
	}
	ttl := b.Window
	switch {
	case ttl < engine.Duration(time.Second):
		ttl = engine.Duration(time.Second)
		n.warn("budget.window", "is %s; Linkerd's ttl is 1s to 60s: written as 1s", b.Window)
	case ttl > engine.Duration(time.Minute):
		ttl = engine.Duration(time.Minute)
		n.warn("budget.window", "is %s; Linkerd's ttl is 1s to 60s: written as 60s", b.Window)
	}
	out.TTL = linkerdSpan(ttl)
	if b.Slices != 10 {
		n.warn("budget.slices", "Linkerd counts its ttl in 10 slices; this budget's %s is written as 10 slices", cmpOr(strconv.Itoa(b.Slices), "exact window"))
	}
	if b.Scope == engine.ScopeClient {
		n.warn("budget.scope", "Linkerd keeps one budget per service profile; a budget per client is not exported")
	}
	return out
}

// linkerdClassesFor writes the response classes that make exactly the
// retried statuses failures: Linkerd's default classes 5xx as failures.
func linkerdClassesFor(n *notes, ro *engine.RetryOn) []linkerdClassYAML {
	statuses, timeout, conn := retried(ro)
	if timeout {
		n.warn("retry_on.timeout", "Linkerd's route timeout covers the retries; there is no per-attempt timeout to retry: not exported")
	}
	if conn {
		n.warn("retry_on.connection", "Linkerd's ServiceProfile retries retry failed answers only; connection errors are handled by the proxy's endpoint balancer: not exported")
	}
	var want [600]bool
	for _, s := range statuses {
		if s >= 100 && s < 600 {
			want[s] = true
		}
	}
	var classes []linkerdClassYAML
	add := func(lo, hi int, failure bool) {
		var c linkerdClassYAML
		c.Condition.Status.Min, c.Condition.Status.Max, c.IsFailure = lo, hi, failure
		classes = append(classes, c)
	}
	// Runs of statuses whose class differs from the default, 5xx.
	for s := 100; s < 600; {
		def := s >= 500
		if want[s] == def {
			s++
			continue
		}
		e := s
		for e+1 < 600 && want[e+1] == want[s] && (e+1 >= 500) == def {
			e++
		}
		add(s, e, want[s])
		s = e + 1
	}
	return classes
}
