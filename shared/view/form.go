package view

import (
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// A Form is the playground's form for a scenario, as data: which fields
// each part of a scenario shows, in order, and the kind rules that say
// which fields of an object with a kind apply. The page lays the parts
// out (groups, legends, buttons) and applies the rules generically; what
// a field is, and which kind takes it, is decided here (the engine's
// vocabulary), once. The page gets it once, at start, from the engine's
// first worker: nothing in it depends on the scenario.
type Form struct {
	// Each part's fields, their paths relative to the part's object:
	// Workload's and FleetOf's (shown once there are fleets) to
	// "workload"; Dependency's to a dependency, Named's to one of several;
	// Head's (name, preset) to a strategy, Policy's to a strategy, a layer
	// or a fleet, Scoped's (which matter only with several dependencies)
	// and Strategy's to a strategy; Load's to a load change, Phase's to a
	// phase of a dependency, Fleet's to a fleet (before its Policy),
	// Call's to a call of a step of the plan, Bulkhead's and Fallback's to
	// a strategy's; Window's to "report".
	Workload   []FormField `json:"workload"`
	Dependency []FormField `json:"dependency"`
	Named      []FormField `json:"named"`
	Policy     []FormField `json:"policy"`
	Scoped     []FormField `json:"scoped"`
	Strategy   []FormField `json:"strategy"`
	Head       []FormField `json:"head"`
	Load       []FormField `json:"load"`
	Phase      []FormField `json:"phase"`
	Fleet      []FormField `json:"fleet"`
	FleetOf    []FormField `json:"fleet_of"`
	Call       []FormField `json:"call"`
	Bulkhead   []FormField `json:"bulkhead"`
	Fallback   []FormField `json:"fallback"`
	Window     []FormField `json:"window"`
	// Kinds are the rules of the objects that have a kind.
	Kinds []KindRule `json:"kinds"`
	// Folding names, by part (its JSON name: "dependency", "policy",
	// "scoped", "strategy"), the paths of its fields that fold behind the
	// part's "More settings" while they hold no value (folds decides
	// which); the page shows the others, and a folding field that holds a
	// value, open.
	Folding map[string][]string `json:"folding"`
}

// A FormField is one control of the form: its path, its label and its
// type: "number", "text", "checkbox" (a boolean: checked is true,
// unchecked leaves the field out, false being every boolean's default),
// "numbers" (a list of integers, typed as text and read by Edit:
// NumbersOf), the name of one of the engine's lists of kinds (a key of
// engine.Vocabulary's JSON, such as "backoffs"), or one of the scenario's
// own lists: "preset" (the presets), "dependencies" (the dependencies'
// names), "calls" (the plan's calls' names).
type FormField struct {
	Path  string `json:"path"`
	Label string `json:"label"`
	Type  string `json:"type"`
}

// A KindRule is the rule of an object with a kind: an object found under
// the key Object (a list's elements too: "phases" is each phase of a
// dependency) holds its kind in Key, and takes, besides Key, the fields
// Common and those Fields lists for its kind (the engine's vocabulary).
// With Above, the kind is the Key of the object's owner, one level up
// (a dependency's queue_discipline for its codel): the object takes the
// fields of the owner's kind, and none with a kind Fields does not list.
// The form shows such an object's other fields only while they hold a
// value (which its errors may be about); choosing another kind drops
// them (Edit), as does clearing the kind, with the object.
type KindRule struct {
	Object string              `json:"object"`
	Key    string              `json:"key"`
	Common []string            `json:"common,omitempty"`
	Fields map[string][]string `json:"fields"`
	Above  bool                `json:"above,omitempty"`
}

// FormOf returns the playground's form.
func FormOf() Form {
	f := Form{
		Workload: []FormField{
			{"clients", "Clients", "number"},
			{"arrival", "Arrivals", "arrivals"},
			{"rate", "Rate (operations/s in total)", "number"},
			{"duration", "Duration", "text"},
		},
		Named: []FormField{{"name", "Name", "text"}},
		Dependency: []FormField{
			{"workers", "Workers", "number"},
			{"service_time.kind", "Service time", "service_times"},
			{"service_time.mean", "Mean service time", "text"},
			{"service_time.p50", "Service time p50 (lognormal)", "text"},
			{"service_time.p99", "Service time p99 (lognormal)", "text"},
			{"queue_capacity", "Queue capacity", "number"},
			{"error_rate", "Random error rate (0–1)", "number"},
			{"drop_abandoned", "Skip queued requests whose caller gave up", "checkbox"},
			{"network.request.kind", "Network delay out (request leg)", "delays"},
			{"network.request.mean", "Request leg mean", "text"},
			{"network.request.stddev", "Request leg stddev (normal)", "text"},
			{"network.request.p50", "Request leg p50 (lognormal)", "text"},
			{"network.request.p99", "Request leg p99 (lognormal)", "text"},
			{"network.answer.kind", "Network delay back (answer leg)", "delays"},
			{"network.answer.mean", "Answer leg mean", "text"},
			{"network.answer.stddev", "Answer leg stddev (normal)", "text"},
			{"network.answer.p50", "Answer leg p50 (lognormal)", "text"},
			{"network.answer.p99", "Answer leg p99 (lognormal)", "text"},
			{"load_latency.law", "Slows with load (law)", "latency_laws"},
			{"load_latency.of", "Slows with: requests", "load_measures"},
			{"load_latency.knee", "Slows beyond (requests per worker)", "number"},
			{"load_latency.slope", "Slope", "number"},
			{"load_latency.power", "Power (polynomial)", "number"},
			{"load_latency.sigma", "USL contention (sigma)", "number"},
			{"load_latency.kappa", "USL coherency (kappa)", "number"},
			{"load_latency.max_factor", "Slows at most ×", "number"},
			{"shedding.measure", "Priority shedding: measure", "shed_measures"},
			{"shedding.thresholds.sheddable", "Shed sheddable requests at", "number"},
			{"shedding.thresholds.sheddable_plus", "Shed sheddable_plus requests at", "number"},
			{"queue_discipline", "Queue order (discipline)", "queue_disciplines"},
			{"codel.target", "CoDel / adaptive LIFO: target wait (5ms by default)", "text"},
			{"codel.interval", "CoDel / adaptive LIFO: interval (100ms by default)", "text"},
			{"rate_limit.rate", "Rate limiter: calls/s let through", "number"},
			{"rate_limit.burst", "Rate limiter: burst (tokens)", "number"},
			{"rate_limit.retry_after_unit", "Rate limiter: Retry-After rounded up to (1s by default)", "text"},
			{"concurrency_limit.initial", "Adaptive concurrency limit (AIMD): starts at (20 by default)", "number"},
			{"concurrency_limit.min", "Concurrency limit: at least (20 by default)", "number"},
			{"concurrency_limit.max", "Concurrency limit: at most (200 by default)", "number"},
			{"concurrency_limit.backoff_ratio", "Concurrency limit: × on a drop (0.9 by default)", "number"},
			{"concurrency_limit.timeout", "Concurrency limit: slower is a drop (5s by default)", "text"},
			{"concurrency_limit.status", "Concurrency limit: refuses with (503 by default)", "number"},
			{"backends.count", "Backends behind a load balancer", "number"},
			{"backends.balancer", "Load balancer picks", "balancers"},
			{"backends.outlier_detection.consecutive_5xx", "Eject a backend after consecutive 5xx (5 by default)", "number"},
			{"backends.outlier_detection.enforcing_consecutive_5xx", "Eject on consecutive 5xx: 100 on, 0 off", "number"},
			{"backends.outlier_detection.consecutive_gateway_failure", "Eject a backend after consecutive 502/503/504", "number"},
			{"backends.outlier_detection.interval", "Ejection: sweep every (10s by default)", "text"},
			{"backends.outlier_detection.base_ejection_time", "Ejection: out for (30s by default, times its ejections)", "text"},
			{"backends.outlier_detection.max_ejection_time", "Ejection: out for at most", "text"},
			{"backends.outlier_detection.max_ejection_percent", "Ejection: at most this % of backends out (10 by default)", "number"},
			{"backends.outlier_detection.min_health_percent", "Ejection: use all backends below this % left in (50 by default)", "number"},
			{"autoscale.metric", "Autoscaler tracks", "autoscale_metrics"},
			{"autoscale.target", "Autoscaler: target", "number"},
			{"autoscale.period", "Autoscaler: evaluates every", "text"},
			{"autoscale.warm_up", "Autoscaler: a new worker (or backend) serves after", "text"},
			{"autoscale.min", "Autoscaler: at least (workers, or backends)", "number"},
			{"autoscale.max", "Autoscaler: at most (workers, or backends)", "number"},
			{"autoscale.tolerance", "Autoscaler: tolerance (0.1 by default)", "number"},
			{"autoscale.scale_down_stabilization", "Autoscaler: scales down after (5m by default)", "text"},
			{"cache.keys.law", "Cache: key popularity", "key_laws"},
			{"cache.keys.count", "Cache: keys asked for", "number"},
			{"cache.keys.exponent", "Cache: Zipf exponent (s)", "number"},
			{"cache.capacity", "Cache: keys held at most", "number"},
			{"cache.ttl", "Cache: an entry answers for (TTL)", "text"},
			{"cache.hit_latency", "Cache: a hit answers after", "text"},
			{"cache.fill", "Cache: filled by", "cache_fills"},
			{"cache.warm", "Cache: starts warm (the most popular keys held)", "checkbox"},
			{"cache.coalesce", "Cache: concurrent misses for a key wait for one fetch", "checkbox"},
		},
		Head: []FormField{
			{"name", "Name", "text"},
			{"preset", "Preset", "preset"},
		},
		Policy: []FormField{
			{"max_attempts", "Max attempts", "number"},
			{"attempt_timeout", "Attempt timeout", "text"},
			{"deadline", "Deadline", "text"},
			{"backoff.kind", "Backoff", "backoffs"},
			{"backoff.base", "Backoff base", "text"},
			{"backoff.max", "Backoff max", "text"},
			{"jitter.kind", "Jitter", "jitters"},
			{"jitter.fraction", "Jitter fraction (proportional)", "number"},
			{"jitter.amount", "Jitter amount (additive)", "text"},
			{"budget.kind", "Retry budget", "budgets"},
			{"budget.ratio", "Budget ratio (ratio budget)", "number"},
			{"budget.max_tokens", "Budget tokens (token bucket)", "number"},
			{"budget.token_ratio", "Tokens back per success", "number"},
			{"budget.refund", "Token bucket: a retry's success gives its cost back", "checkbox"},
			{"breaker.kind", "Circuit breaker", "breakers"},
			{"breaker.failures", "Breaker: consecutive failures", "number"},
			{"breaker.ratio", "Breaker: failure ratio", "number"},
			{"breaker.break", "Breaker: open for", "text"},
			{"breaker.half_open_decision", "Breaker: half-open decides", "half_open_decisions"},
			{"breaker.break_end", "Breaker: a call at the break's end is", "break_ends"},
			{"breaker.slow_call", "Breaker: a call slower than this is slow", "text"},
			{"breaker.slow_ratio", "Breaker: opens at this share of slow calls", "number"},
			{"breaker.auto_half_open", "Breaker: half-opens by itself at the break's end", "checkbox"},
			{"budget.charge", "Token bucket charges", "budget_charges"},
			{"budget.min_concurrency", "Concurrency budget: retries always allowed", "number"},
			{"throttle.k", "Client-side throttling (SRE book): K, 2 by default", "number"},
			{"throttle.window", "Client-side throttling: window (2m by default)", "text"},
			{"client_rate_limit.kind", "Client rate limiter", "rate_limits"},
			{"connection_limits.max_requests", "Proxy: attempts in progress at most", "number"},
			{"connection_limits.max_connections", "Proxy: connections (one attempt each)", "number"},
			{"connection_limits.max_pending", "Proxy: attempts waiting for a connection", "number"},
			{"max_elapsed", "Stop retrying after (elapsed, checked before a wait)", "text"},
			{"honor_retry_after", "Waits at least a Retry-After", "checkbox"},
			{"retry_non_idempotent", "Retries non-idempotent operations", "checkbox"},
			{"idempotency_key", "Sends an Idempotency-Key", "checkbox"},
			{"dead_letter", "A queue consumer: a failed message goes to the dead-letter queue", "checkbox"},
			{"hedging.delay", "Hedging: next copy after", "text"},
			{"hedging.delay_percentile", "Hedging: delay at percentile", "number"},
			{"retry_host_predicate", "Retries avoid backends already tried", "retry_host_predicates"},
			{"host_selection_retry_max_attempts", "Backend reselections at most (1 by default)", "number"},
		},
		Scoped: []FormField{
			{"budget.scope", "Retry budget counts", "scopes"},
			{"breaker.scope", "Circuit breaker guards", "scopes"},
		},
		Strategy: []FormField{
			{"pool.slots", "Client pool: slots", "number"},
			{"pool.max_waiting", "Client pool: callers waiting at most", "number"},
			{"pool.max_wait", "Client pool: wait at most", "text"},
		},
		Load: append(timed("loads"),
			FormField{"factor", "Rate ×", "number"},
			FormField{"rate", "More operations/s", "number"},
			FormField{"operations", "More operations in all", "number"},
			FormField{"amplitude", "Swing (0–1 of the rate)", "number"},
			FormField{"period", "Period", "text"},
		),
		Phase: append(timed("phases"),
			FormField{"status", "Answer status", "number"},
			FormField{"error", "Error (connection)", "text"},
			FormField{"latency", "Answer after", "text"},
			FormField{"workers", "Workers", "number"},
			FormField{"rate", "Error rate (0–1)", "number"},
			FormField{"factor", "Service time ×", "number"},
			FormField{"backend_share", "Share of backends hit (0–1; all by default)", "number"},
			FormField{"backends", "Backends hit, by index from 0 (such as 0, 2; all by default)", "numbers"},
		),
		Fleet: []FormField{
			{"name", "Name", "text"},
			{"clients", "Clients", "number"},
			{"rate", "Rate (operations/s in total)", "number"},
		},
		FleetOf: []FormField{{"fleet", "These clients' fleet", "text"}},
		Call: []FormField{
			{"name", "Name", "text"},
			{"dependency", "Dependency", "dependencies"},
			{"class", "Class", "classes"},
			{"share", "Share of operations (0–1)", "number"},
		},
		Bulkhead: []FormField{
			{"dependency", "Dependency", "dependencies"},
			{"max_concurrent", "Concurrent calls at most", "number"},
			{"max_waiting", "Callers waiting at most", "number"},
			{"max_wait", "Wait at most", "text"},
		},
		Fallback: []FormField{
			{"call", "For the call", "calls"},
			{"latency", "Answers after", "text"},
		},
		Window: []FormField{
			{"affected_from", "From (operations started at or after)", "text"},
			{"affected_to", "To (operations started before)", "text"},
		},
		Kinds: KindRules(),
	}
	f.Folding = map[string][]string{}
	for name, part := range map[string][]FormField{"dependency": f.Dependency, "policy": f.Policy, "scoped": f.Scoped, "strategy": f.Strategy} {
		for _, field := range part {
			if folds(field.Path) {
				f.Folding[name] = append(f.Folding[name], field.Path)
			}
		}
	}
	return f
}

// essential are the fields of the folding parts (a dependency's, a
// policy's) that show even without a value, besides the kind selectors:
// what a newcomer sets first.
var essential = []string{"workers", "max_attempts", "attempt_timeout", "deadline"}

// folds reports whether the field at path (relative to its part's object)
// of a folding part (Dependency, Policy, Scoped, Strategy) folds behind
// "More settings" while it holds no value: all but the kind selectors (a
// "kind", or the key of a kind rule), the fields a kind rule shows only
// with the kind that takes them (those of the kind chosen), and the
// essential ones. The other parts are short, or added by the user: their
// fields never fold.
func folds(path string) bool {
	keys := strings.Split(path, ".")
	field := keys[len(keys)-1]
	if field == "kind" || slices.Contains(essential, path) {
		return false
	}
	if len(keys) > 1 {
		if r, ok := kindRule(keys[len(keys)-2]); ok && takenBySome(r, field) {
			return false
		}
	}
	return true
}

// takenBySome reports whether some kind of the rule r takes field (its
// key, a common field or a kind's own).
func takenBySome(r KindRule, field string) bool {
	for kind := range r.Fields {
		if r.Takes(kind, field) {
			return true
		}
	}
	return false
}

// timed is the fields every phase and load change starts with: its kind,
// among the vocabulary's list kinds, its times and its label.
func timed(kinds string) []FormField {
	return []FormField{
		{"kind", "Kind", kinds},
		{"from", "From", "text"},
		{"to", "To", "text"},
		{"label", "Label", "text"},
	}
}

// KindRules returns the rules of the objects with a kind, their fields
// the engine's vocabulary (engine.Kinds).
func KindRules() []KindRule {
	v := engine.Kinds()
	delay := fieldsOf(v.DelayFields)
	return []KindRule{
		{Object: "service_time", Key: "kind", Fields: fieldsOf(v.ServiceTimeFields)},
		{Object: "request", Key: "kind", Fields: delay},
		{Object: "answer", Key: "kind", Fields: delay},
		{Object: "jitter", Key: "kind", Fields: fieldsOf(v.JitterFields)},
		{Object: "load_latency", Key: "law", Common: []string{"of", "max_factor"}, Fields: fieldsOf(v.LatencyLawFields)},
		{Object: "phases", Key: "kind", Common: []string{"from", "to", "label", "backend_share", "backends"}, Fields: fieldsOf(v.PhaseFields)},
		{Object: "load", Key: "kind", Common: []string{"from", "to", "label"}, Fields: fieldsOf(v.LoadFields)},
		{Object: "codel", Key: "queue_discipline", Above: true, Fields: codelFields()},
	}
}

// codelFields are the fields of a dependency's codel, by the queue
// disciplines it sets (engine.CoDelDisciplines).
func codelFields() map[string][]string {
	out := map[string][]string{}
	for _, d := range engine.CoDelDisciplines {
		out[string(d)] = []string{"target", "interval"}
	}
	return out
}

// NumbersOf reads text typed in a "numbers" field, integers separated by
// commas or spaces ("0, 2"), as their list; ok is false when some part is
// not an integer (the text then stays as typed, for the engine to refuse
// beside the field).
func NumbersOf(text string) (list []int, ok bool) {
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, false
		}
		list = append(list, n)
	}
	return list, true
}

// numbersAt reports whether the path keys lead to a "numbers" field: a
// phase's (the only part with such fields).
func numbersAt(keys []any) bool {
	if len(keys) < 3 {
		return false
	}
	field, _ := keys[len(keys)-1].(string)
	_, isIndex := keys[len(keys)-2].(int)
	if list, _ := keys[len(keys)-3].(string); !isIndex || list != "phases" {
		return false
	}
	return slices.ContainsFunc(FormOf().Phase, func(f FormField) bool { return f.Path == field && f.Type == "numbers" })
}

func fieldsOf[K ~string](m map[K][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, fs := range m {
		out[string(k)] = fs
	}
	return out
}

// kindRule returns the rule of objects under the key object, if any.
func kindRule(object string) (KindRule, bool) {
	for _, r := range KindRules() {
		if r.Object == object {
			return r, true
		}
	}
	return KindRule{}, false
}

// Takes reports whether an object of kind under the rule takes field:
// its Key always (but for a rule Above: the key is its owner's), Common
// once it has a kind, and its kind's own fields.
func (r KindRule) Takes(kind, field string) bool {
	return field == r.Key && !r.Above || kind != "" && (slices.Contains(r.Common, field) || slices.Contains(r.Fields[kind], field))
}
