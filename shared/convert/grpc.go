package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// grpcMaxAttempts is the most attempts grpc-go makes, whatever
// maxAttempts says (dialoptions.go defaultMaxCallAttempts; gRFC A6:
// "values greater than 5 are treated as 5").
const grpcMaxAttempts = 5

// grpcCode is a gRPC status code with the HTTP status RetryLab gives it:
// google.rpc.Code's "HTTP Mapping" (googleapis google/rpc/code.proto).
type grpcCode struct {
	name   string
	status int
}

// grpcCodes are the codes by number.
var grpcCodes = []grpcCode{
	{"OK", 200}, {"CANCELLED", 499}, {"UNKNOWN", 500}, {"INVALID_ARGUMENT", 400},
	{"DEADLINE_EXCEEDED", 504}, {"NOT_FOUND", 404}, {"ALREADY_EXISTS", 409},
	{"PERMISSION_DENIED", 403}, {"RESOURCE_EXHAUSTED", 429}, {"FAILED_PRECONDITION", 400},
	{"ABORTED", 409}, {"OUT_OF_RANGE", 400}, {"UNIMPLEMENTED", 501}, {"INTERNAL", 500},
	{"UNAVAILABLE", 503}, {"DATA_LOSS", 500}, {"UNAUTHENTICATED", 401},
}

const grpcUnavailable = 14

// codesFor returns the names of the codes RetryLab maps to status.
func codesFor(status int) []string {
	var names []string
	for _, c := range grpcCodes[1:] {
		if c.status == status {
			names = append(names, c.name)
		}
	}
	return names
}

// grpcDuration formats d as a protobuf JSON duration: seconds with up to
// 9 decimals and an "s".
func grpcDuration(d engine.Duration) string {
	s := strconv.FormatInt(int64(d)/1e9, 10)
	if frac := int64(d) % 1e9; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", frac), "0")
	}
	return s + "s"
}

// parseGRPCDuration reads a protobuf JSON duration as grpc-go does
// (internal/serviceconfig/duration.go), refusing negative ones.
func parseGRPCDuration(n *notes, path string, v any) (engine.Duration, bool) {
	s, _ := v.(string)
	whole, frac, hasFrac := strings.Cut(strings.TrimSuffix(s, "s"), ".")
	if !strings.HasSuffix(s, "s") || !isDigits(whole, 0, 100) || hasFrac && !isDigits(frac, 1, 9) || whole == "" && frac == "" {
		n.fail(path, v, "is not a duration; allowed seconds with up to 9 decimals and an \"s\", such as \"0.1s\" or \"30s\"")
		return 0, false
	}
	m := []string{"", whole, frac}
	sec, err := strconv.ParseInt(cmpOr(m[1], "0"), 10, 64)
	if err != nil || sec > int64(engine.MaxSpan)/1e9 {
		n.fail(path, v, "is longer than RetryLab simulates; allowed up to %s", grpcDuration(engine.MaxSpan))
		return 0, false
	}
	ns := int64(0)
	if m[2] != "" {
		ns, _ = strconv.ParseInt((m[2] + "00000000")[:9], 10, 64)
	}
	d := engine.Duration(sec*1e9 + ns)
	if d > engine.MaxSpan {
		n.fail(path, v, "is longer than RetryLab simulates; allowed up to %s", grpcDuration(engine.MaxSpan))
		return 0, false
	}
	return d, true
}

// isDigits reports whether s is from lo to hi ASCII digits.
func isDigits(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isIdent reports whether s is a protobuf identifier.
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// grpcStatusCodes reads a list of status codes (names or numbers) into
// the retry_on of a policy: each code's HTTP status, and connection
// errors with UNAVAILABLE.
func grpcStatusCodes(n *notes, path string, v any, required bool) (*engine.RetryOn, bool) {
	list, ok := v.([]any)
	if !ok {
		n.fail(path, v, "is not an array of status codes; allowed names such as \"UNAVAILABLE\" or numbers 1..16")
		return nil, false
	}
	if len(list) == 0 && required {
		n.fail(path, "[]", "is empty; grpc-go refuses a retryPolicy without retryableStatusCodes")
		return nil, false
	}
	ro := &engine.RetryOn{}
	listed := map[int]bool{}
	good := true
	for i, c := range list {
		p := index(path, i)
		code := -1
		switch c := c.(type) {
		case string:
			for k, gc := range grpcCodes {
				if gc.name == c {
					code = k
				}
			}
		case json.Number:
			if k, err := strconv.Atoi(c.String()); err == nil && k >= 0 && k < len(grpcCodes) {
				code = k
			}
		}
		switch code {
		case -1:
			n.fail(p, c, "is not a gRPC status code; allowed the names of google.rpc.Code in capitals (\"UNAVAILABLE\", \"RESOURCE_EXHAUSTED\", ...) or their numbers 1..16")
			good = false
			continue
		case 0:
			n.fail(p, c, "is a success; it cannot be retried: allowed the codes 1..16")
			good = false
			continue
		}
		listed[code] = true
		st := grpcCodes[code].status
		if !slices.Contains(ro.Statuses, st) {
			ro.Statuses = append(ro.Statuses, st)
		}
		if code == grpcUnavailable {
			ro.Connection = true
		}
	}
	slices.Sort(ro.Statuses)
	for _, st := range ro.Statuses {
		var missing []string
		for _, name := range codesFor(st) {
			if !listed[slices.IndexFunc(grpcCodes, func(c grpcCode) bool { return c.name == name })] {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			n.warn(path, "RetryLab's dependency answers HTTP statuses, and %s share %d (google.rpc.Code's HTTP mapping): the imported policy retries %s too", strings.Join(codesFor(st), ", "), st, strings.Join(missing, ", "))
		}
	}
	return ro, good
}

func importGRPC(data []byte) (*Imported, error) {
	tree, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	var n notes
	root, ok := asObject(&n, "", tree)
	if !ok {
		return nil, n.err()
	}
	for _, k := range []string{"loadBalancingPolicy", "loadBalancingConfig", "healthCheckConfig"} {
		if _, p, ok := root.get(k, true); ok {
			n.warn(p, "is not simulated: RetryLab's dependency is one server, without load balancing or health checks")
		}
	}
	var budget *engine.Budget
	if v, p, ok := root.get("retryThrottling", true); ok {
		budget = grpcThrottling(&n, p, v)
	}
	var sts []engine.Strategy
	v, p, ok := root.get("methodConfig", true)
	root.unread(&n, "is not a service config field RetryLab reads; not read")
	if !ok {
		n.fail("methodConfig", nil, "is missing; a service config's retry policies are in methodConfig[].retryPolicy")
		return nil, n.err()
	}
	mcs, ok := v.([]any)
	if !ok {
		n.fail(p, v, "is not an array of method configs")
		return nil, n.err()
	}
	if len(mcs) > 1 && budget != nil {
		n.info("retryThrottling", "gRPC keeps one token bucket per channel for all methods; each imported strategy has its own")
	}
	for i, mv := range mcs {
		st, ok := grpcMethod(&n, index(p, i), mv, budget)
		if ok {
			sts = append(sts, st)
		}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	if len(sts) == 0 {
		return nil, engine.Errors{{Path: p, Message: "has no method config; nothing to import"}}
	}
	return &Imported{Strategies: sts, Notes: n.list}, nil
}

func grpcThrottling(n *notes, path string, v any) *engine.Budget {
	o, ok := asObject(n, path, v)
	if !ok {
		return nil
	}
	b := &engine.Budget{Kind: engine.BudgetTokenBucket}
	if v, p, ok := o.get("maxTokens", true); ok {
		if f, ok := number(n, p, v, false); ok {
			if f <= 0 || f > 1000 {
				n.fail(p, v, "is out of range; grpc-go allows maxTokens in (0, 1000]")
			}
			b.MaxTokens = f
		}
	} else {
		n.fail(join(path, "maxTokens"), nil, "is missing; grpc-go requires maxTokens in (0, 1000]")
	}
	if v, p, ok := o.get("tokenRatio", true); ok {
		if f, ok := number(n, p, v, false); ok {
			if f <= 0 || f > 1e9 {
				n.fail(p, v, "is out of range; grpc-go requires a tokenRatio above 0 (RetryLab up to 1e9)")
			}
			if r := math.Round(f*1000) / 1000; r != f {
				n.info(p, "gRFC A6 supports up to 3 decimal places; grpc-go uses the value as written")
			}
			b.TokenRatio = f
		}
	} else {
		n.fail(join(path, "tokenRatio"), nil, "is missing; grpc-go requires a tokenRatio above 0")
	}
	o.unread(n, "is not a retryThrottling field; not read")
	return b
}

// grpcNameOf reads a method config's names into a strategy name.
func grpcNameOf(n *notes, path string, v any) string {
	list, ok := v.([]any)
	if !ok {
		n.fail(path, v, "is not an array of names ({\"service\": ..., \"method\": ...})")
		return ""
	}
	var names []string
	for i, nv := range list {
		o, ok := asObject(n, index(path, i), nv)
		if !ok {
			continue
		}
		var svc, method string
		for _, f := range []struct {
			key string
			dst *string
		}{{"service", &svc}, {"method", &method}} {
			if v, p, ok := o.get(f.key, true); ok {
				if s, ok := v.(string); ok {
					*f.dst = s
				} else {
					n.fail(p, v, "is not a string")
				}
			}
		}
		o.unread(n, "is not a name field; not read")
		switch {
		case svc == "" && method != "":
			n.fail(join(index(path, i), "method"), method, "is given without a service; grpc-go refuses it")
		case svc == "":
			names = append(names, "all methods")
		case method == "" && !strings.Contains(svc, "."):
			// A service without a package: "Service/*", which the
			// export tells from a label.
			names = append(names, svc+"/*")
		case method == "":
			names = append(names, svc)
		default:
			names = append(names, svc+"/"+method)
		}
	}
	if len(names) == 0 {
		return "all methods"
	}
	if slices.Contains(names, "all methods") {
		if len(names) > 1 {
			n.info(path, "names every method ({}) among %d names: the strategy applies to all methods", len(names))
		}
		return "all methods"
	}
	if len(names) > 1 {
		n.info(path, "applies to %d names: the strategy is named after them all, separated by \", \", which the export writes back as the names", len(names))
	}
	return strings.Join(names, ", ")
}

func grpcMethod(n *notes, path string, v any, budget *engine.Budget) (engine.Strategy, bool) {
	var st engine.Strategy
	o, ok := asObject(n, path, v)
	if !ok {
		return st, false
	}
	before := len(n.errs)
	if nv, p, ok := o.get("name", true); ok {
		st.Name = grpcNameOf(n, p, nv)
	} else {
		n.warn(join(path, "name"), "is missing: grpc-go skips a method config without a name; imported as applying to all methods")
		st.Name = "all methods"
	}
	if v, p, ok := o.get("timeout", true); ok {
		st.Deadline, _ = parseGRPCDuration(n, p, v)
	}
	for _, k := range []string{"waitForReady", "maxRequestMessageBytes", "maxResponseMessageBytes"} {
		if _, p, ok := o.get(k, true); ok {
			n.warn(p, "is not simulated; not read")
		}
	}
	rv, rp, hasRetry := o.get("retryPolicy", true)
	hv, hp, hasHedge := o.get("hedgingPolicy", true)
	o.unread(n, "is not a method config field RetryLab reads; not read")
	switch {
	case hasRetry && hasHedge:
		n.fail(hp, hv, "is given together with retryPolicy; gRFC A6 allows one of them per method config")
	case hasRetry:
		grpcRetry(n, rp, rv, &st.Policy)
		st.Budget = copyBudget(budget)
		// A label: the preset is gRFC A6's retryPolicy with its example
		// values, with retryThrottling or without as the service config
		// has it, and the default search keeps a strategy based on either
		// within gRPC's limits (engine.Libraries).
		st.BasedOn = engine.LibraryNamed("grpc").Preset(&st)
	case hasHedge:
		grpcHedge(n, hp, hv, &st.Policy)
		st.Budget = copyBudget(budget)
	default:
		st.MaxAttempts = 1
		n.info(path, "has no retryPolicy: one attempt per call")
	}
	return st, len(n.errs) == before
}

// copyBudget gives each strategy a budget of its own.
func copyBudget(b *engine.Budget) *engine.Budget {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

func grpcAttempts(n *notes, path string, o *object, what string) int {
	v, p, ok := o.get("maxAttempts", true)
	if !ok {
		n.fail(join(path, "maxAttempts"), nil, "is missing; a %s needs maxAttempts above 1", what)
		return 0
	}
	k, ok := integer(n, p, v, false, 2, math.MaxInt32)
	if !ok {
		return 0
	}
	if k > grpcMaxAttempts {
		n.warn(p, "is above %d: grpc-go makes at most %d attempts (gRFC A6: \"values greater than 5 are treated as 5\"; grpc.WithMaxCallAttempts raises grpc-go's limit); imported as %d", grpcMaxAttempts, grpcMaxAttempts, grpcMaxAttempts)
		k = grpcMaxAttempts
	}
	return k
}

func grpcRetry(n *notes, path string, v any, pol *engine.Policy) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	pol.MaxAttempts = grpcAttempts(n, path, o, "retryPolicy")
	var initial, maxB engine.Duration
	for _, f := range []struct {
		key string
		dst *engine.Duration
	}{{"initialBackoff", &initial}, {"maxBackoff", &maxB}} {
		v, p, ok := o.get(f.key, true)
		if !ok {
			n.fail(join(path, f.key), nil, "is missing; grpc-go requires it above 0")
			continue
		}
		if d, ok := parseGRPCDuration(n, p, v); ok {
			if d <= 0 {
				n.fail(p, v, "is not above 0; grpc-go requires it above 0")
			}
			*f.dst = d
		}
	}
	mult := 0.0
	if v, p, ok := o.get("backoffMultiplier", true); ok {
		if f, ok := number(n, p, v, false); ok {
			if f < 1 || f > 100 {
				n.fail(p, v, "is out of range; RetryLab's exponential backoff allows a multiplier from 1 to 100 (grpc-go any above 0)")
			}
			mult = f
		}
	} else {
		n.fail(join(path, "backoffMultiplier"), nil, "is missing; grpc-go requires it above 0")
	}
	if v, p, ok := o.get("retryableStatusCodes", true); ok {
		pol.RetryOn, _ = grpcStatusCodes(n, p, v, true)
	} else {
		n.fail(join(path, "retryableStatusCodes"), nil, "is missing; grpc-go refuses a retryPolicy without retryableStatusCodes")
	}
	o.unread(n, "is not a retryPolicy field; not read")
	if maxB > 0 && maxB < initial {
		n.info(join(path, "maxBackoff"), "is below initialBackoff: every wait is maxBackoff, so both are imported as maxBackoff")
		initial = maxB
	}
	pol.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: initial, Multiplier: mult, Max: maxB}
	pol.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.2}
	pol.HonorRetryAfter = true
	pol.RetryAfter = &engine.RetryAfterUse{Mode: engine.RetryAfterReplaceAndReset}
}

func grpcHedge(n *notes, path string, v any, pol *engine.Policy) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	n.warn(path, "grpc-go does not implement hedging and ignores hedgingPolicy; grpc-java and gRPC C++ do (gRFC A6), as RetryLab's hedging does")
	pol.MaxAttempts = grpcAttempts(n, path, o, "hedgingPolicy")
	pol.Hedging = &engine.Hedging{}
	if v, p, ok := o.get("hedgingDelay", true); ok {
		pol.Hedging.Delay, _ = parseGRPCDuration(n, p, v)
	}
	pol.RetryOn = &engine.RetryOn{}
	if v, p, ok := o.get("nonFatalStatusCodes", true); ok {
		if ro, ok := grpcStatusCodes(n, p, v, false); ok {
			pol.RetryOn = ro
		}
	}
	o.unread(n, "is not a hedgingPolicy field; not read")
}

// gRPC export.

type grpcConfig struct {
	MethodConfig    []grpcMethodConfig  `json:"methodConfig"`
	RetryThrottling *grpcThrottlingJSON `json:"retryThrottling,omitempty"`
}

type grpcMethodConfig struct {
	Name          []grpcName       `json:"name"`
	Timeout       string           `json:"timeout,omitempty"`
	RetryPolicy   *grpcRetryJSON   `json:"retryPolicy,omitempty"`
	HedgingPolicy *grpcHedgingJSON `json:"hedgingPolicy,omitempty"`
}

type grpcName struct {
	Service string `json:"service,omitempty"`
	Method  string `json:"method,omitempty"`
}

type grpcRetryJSON struct {
	MaxAttempts          int      `json:"maxAttempts"`
	InitialBackoff       string   `json:"initialBackoff"`
	MaxBackoff           string   `json:"maxBackoff"`
	BackoffMultiplier    float64  `json:"backoffMultiplier"`
	RetryableStatusCodes []string `json:"retryableStatusCodes"`
}

type grpcHedgingJSON struct {
	MaxAttempts         int      `json:"maxAttempts"`
	HedgingDelay        string   `json:"hedgingDelay,omitempty"`
	NonFatalStatusCodes []string `json:"nonFatalStatusCodes,omitempty"`
}

type grpcThrottlingJSON struct {
	MaxTokens  float64 `json:"maxTokens"`
	TokenRatio float64 `json:"tokenRatio"`
}

// grpcNamesFor names the method config after the strategy when its name
// is gRPC names as Import writes them, separated by ", ": a service with
// its package ("shop.Cart"), a service without one ("EchoService/*"), or
// a method ("shop.Cart/Add", or gRFC A6's "EchoService/Echo"); "all
// methods" is {}. Any other name is a label ("C", "C (search 1)"): the
// config applies to every method, with an info saying how to narrow it.
func grpcNamesFor(n *notes, name string) []grpcName {
	if name == "all methods" {
		return []grpcName{{}}
	}
	var out []grpcName
	for _, part := range strings.Split(name, ", ") {
		g, ok := grpcNameOfString(part)
		if !ok {
			n.info("name", "%q is not a gRPC name (package.Service, Service/* or Service/Method): the method config applies to every method (\"name\": [{}]); to narrow it, write your service there, {\"service\": \"package.Service\"}, with \"method\" for one method", name)
			return []grpcName{{}}
		}
		out = append(out, g)
	}
	return out
}

// grpcNameOfString reads one gRPC name as Import writes it.
func grpcNameOfString(name string) (grpcName, bool) {
	svc, method, slash := strings.Cut(name, "/")
	parts := strings.Split(svc, ".")
	if slices.ContainsFunc(parts, func(p string) bool { return !isIdent(p) }) {
		return grpcName{}, false
	}
	switch {
	case slash && method == "*":
		return grpcName{Service: svc}, true
	case slash && isIdent(method):
		return grpcName{Service: svc, Method: method}, true
	case !slash && len(parts) > 1:
		return grpcName{Service: svc}, true
	}
	return grpcName{}, false
}

// grpcCodesFor returns the status codes that retry what the policy
// retries, with notes on what they cannot say.
func grpcCodesFor(n *notes, path string, ro *engine.RetryOn) []string {
	statuses, timeout, connection := retried(ro)
	var names, missing []string
	has503 := false
	for _, s := range statuses {
		cs := codesFor(s)
		if len(cs) == 0 {
			missing = append(missing, strconv.Itoa(s))
			continue
		}
		has503 = has503 || s == 503
		names = append(names, cs...)
	}
	if connection && !has503 {
		names = append(names, "UNAVAILABLE")
		n.warn(path, "gRPC reports a connection error as UNAVAILABLE, which is also HTTP 503: retrying connection errors retries 503 too")
	}
	if has503 && !connection {
		n.warn(path, "UNAVAILABLE (HTTP 503) is also how gRPC reports a connection error: the exported policy retries connection errors too")
	}
	if len(missing) > 0 {
		n.warn(path, "statuses %s have no gRPC status code (google.rpc.Code's HTTP mapping); not exported", statusList(statusesOf(missing)))
	}
	if timeout {
		// gRFC A6: retryPolicy has no per-attempt timeout, and the call's
		// deadline covers every attempt; a DEADLINE_EXCEEDED status a
		// server answers is retried like any other listed code.
		also := "DEADLINE_EXCEEDED is not listed either: 504 is not retried"
		if slices.Contains(statuses, 504) {
			also = "DEADLINE_EXCEEDED in the list retries only a server's answer with that status (HTTP 504, which the policy retries)"
		}
		n.warn(path+".timeout", "retrying an attempt that timed out is not exported: gRPC has no per-attempt timeout, and never retries once the call's deadline (timeout) passed; %s", also)
	}
	slices.SortFunc(names, func(a, b string) int {
		return slices.IndexFunc(grpcCodes, func(c grpcCode) bool { return c.name == a }) - slices.IndexFunc(grpcCodes, func(c grpcCode) bool { return c.name == b })
	})
	return slices.Compact(names)
}

func statusesOf(ss []string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i], _ = strconv.Atoi(s)
	}
	return out
}

func exportGRPC(st *engine.Strategy, n *notes) []byte {
	unsupported(n, st, "A gRPC service config", "max_attempts", "deadline", "backoff", "jitter", "retry_on", "honor_retry_after", "retry_after", "budget", "hedging")
	mc := grpcMethodConfig{Name: grpcNamesFor(n, st.Name)}
	if st.Deadline > 0 {
		mc.Timeout = grpcDuration(st.Deadline)
	}
	attempts := st.MaxAttempts
	switch {
	case attempts == 0:
		n.warn("max_attempts", "is unlimited; gRPC needs a number: written as %d, the most grpc-go makes", grpcMaxAttempts)
		attempts = grpcMaxAttempts
	case attempts > grpcMaxAttempts:
		n.warn("max_attempts", "is %d: grpc-go makes at most %d attempts (gRFC A6: values above 5 are treated as 5; grpc.WithMaxCallAttempts raises grpc-go's limit)", attempts, grpcMaxAttempts)
	}
	if h := st.Hedging; h != nil {
		if h.DelayPercentile != 0 {
			n.warn("hedging.delay_percentile", "gRPC's hedgingDelay is fixed; the percentile is not exported, hedgingDelay is hedging.delay")
		}
		n.warn("hedging", "grpc-go does not implement hedgingPolicy (it ignores it); grpc-java and gRPC C++ do")
		hp := &grpcHedgingJSON{MaxAttempts: attempts, NonFatalStatusCodes: grpcCodesFor(n, "retry_on", st.RetryOn)}
		if h.Delay > 0 {
			hp.HedgingDelay = grpcDuration(h.Delay)
		}
		mc.HedgingPolicy = hp
	} else if attempts > 1 {
		mc.RetryPolicy = grpcRetryFor(n, st, attempts)
	} else {
		n.info("max_attempts", "is 1: no retries, so no retryPolicy (gRPC requires maxAttempts above 1)")
	}
	cfg := grpcConfig{MethodConfig: []grpcMethodConfig{mc}}
	if mc.RetryPolicy != nil || mc.HedgingPolicy != nil {
		cfg.RetryThrottling = grpcThrottlingFor(n, st.Budget)
	} else if st.Budget != nil {
		n.warn("budget", "has nothing to limit without retries; not exported")
	}
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		panic("convert: marshal gRPC service config: " + err.Error())
	}
	return append(out, '\n')
}

func grpcRetryFor(n *notes, st *engine.Strategy, attempts int) *grpcRetryJSON {
	rp := &grpcRetryJSON{MaxAttempts: attempts}
	b := st.Backoff
	mult := b.Multiplier
	switch b.Kind {
	case engine.BackoffExponential:
		if mult == 0 {
			mult = engine.DefaultMultiplier
		}
	case engine.BackoffConstant:
		mult = 1
	case engine.BackoffLinear:
		mult = 2
		if b.Max == 0 {
			b.Max = b.Base * engine.Duration(min(attempts, grpcMaxAttempts)-1)
		}
		n.warn("backoff.kind", "gRPC's backoff is exponential: linear backoff is written as a doubling one from %s capped at %s", b.Base, b.Max)
	default:
		b.Base, mult = 1, 1
		n.warn("backoff.kind", "gRPC needs a backoff above 0: retrying at once is written as a constant 1 ns")
	}
	if b.Max == 0 {
		// The longest wait the attempts reach: the cap changes nothing.
		b.Max = engine.Duration(float64(b.Base) * math.Pow(mult, float64(min(attempts, grpcMaxAttempts)-2)))
		n.info("backoff.max", "is not set; gRPC needs maxBackoff: written as %s, the longest wait %d attempts reach", b.Max, min(attempts, grpcMaxAttempts))
	}
	if b.ThrottleBase != 0 {
		n.warn("backoff.throttle_base", "gRPC has no other base after throttling; not exported")
	}
	rp.InitialBackoff, rp.MaxBackoff, rp.BackoffMultiplier = grpcDuration(b.Base), grpcDuration(b.Max), mult
	if j := st.Jitter; j != (engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.2}) {
		n.warn("jitter", "gRPC always multiplies each wait by U(0.8, 1.2) (gRFC A6, grpc-go stream.go); this jitter is not exported")
	}
	switch {
	case !st.HonorRetryAfter:
		n.warn("honor_retry_after", "gRPC always honours a server's grpc-retry-pushback-ms; the exported policy does too")
	case st.RetryAfter == nil || st.RetryAfter.Mode != engine.RetryAfterReplaceAndReset || len(st.RetryAfter.Statuses) > 0:
		n.warn("retry_after", "gRPC's pushback replaces the backoff and starts it over (replace_and_reset), on any retried status; that is what the exported policy does")
	}
	rp.RetryableStatusCodes = grpcCodesFor(n, "retry_on", st.RetryOn)
	if len(rp.RetryableStatusCodes) == 0 {
		n.warn("retry_on", "retries nothing gRPC can name; gRPC requires a retryable status code: written as UNAVAILABLE")
		rp.RetryableStatusCodes = []string{"UNAVAILABLE"}
	}
	return rp
}

func grpcThrottlingFor(n *notes, b *engine.Budget) *grpcThrottlingJSON {
	if b == nil {
		return nil
	}
	if b.Kind != engine.BudgetTokenBucket {
		n.warn("budget", "gRPC's only budget is retryThrottling, a token bucket; a %q budget is not exported", b.Kind)
		return nil
	}
	t := &grpcThrottlingJSON{MaxTokens: b.MaxTokens, TokenRatio: b.TokenRatio}
	if t.MaxTokens > 1000 {
		n.warn("budget.max_tokens", "is %v; gRPC allows at most 1000: written as 1000", b.MaxTokens)
		t.MaxTokens = 1000
	}
	if r := math.Round(t.TokenRatio*1000) / 1000; r != t.TokenRatio || r == 0 {
		r = max(r, 0.001)
		n.warn("budget.token_ratio", "is %v; gRPC takes a ratio above 0 with up to 3 decimals: written as %v", b.TokenRatio, r)
		t.TokenRatio = r
	}
	if b.Threshold != 0 && b.Threshold != b.MaxTokens/2 {
		n.warn("budget.threshold", "gRPC's threshold is always maxTokens/2; %v is not exported", b.Threshold)
	}
	if b.Charge != "" && b.Charge != engine.ChargeFailure {
		n.warn("budget.charge", "gRPC charges every retryable failure (\"failure\"); %q is not exported", b.Charge)
	}
	for _, c := range []struct {
		field string
		v     float64
	}{{"failure_cost", b.FailureCost}, {"throttle_cost", b.ThrottleCost}, {"timeout_cost", b.TimeoutCost}} {
		if c.v != 0 && c.v != 1 {
			n.warn("budget."+c.field, "gRPC charges 1 token per failure; %v is not exported", c.v)
		}
	}
	if b.Refund {
		n.warn("budget.refund", "gRPC gives back tokenRatio per success, never a retry's cost; not exported")
	}
	return t
}
