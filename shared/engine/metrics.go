package engine

// A MetricInfo describes one of the engine's metrics for people: what the tables
// call it, its unit, a one-line explanation, the group it is shown in and
// which way it improves.
type MetricInfo struct {
	Key     string `json:"key"` // the JSON name in Metrics
	Label   string `json:"label"`
	Unit    string `json:"unit,omitempty"`
	Explain string `json:"explain"`
	Group   string `json:"group"`
	// Better is 1 when higher is better, -1 when lower is better and 0 when
	// the metric has no direction (a count of what happened, or a number
	// that is good or bad depending on the goal).
	Better int `json:"better"`
	// FromGivingUp marks the latencies of all operations, failed ones
	// included: a strategy that gives up sooner lowers them, so they are
	// never marked best for a strategy that succeeds less often.
	FromGivingUp bool `json:"-"`
}

// Groups of the metrics table, in order.
const (
	GroupOutcome  = "Outcome"
	GroupLoad     = "Load on the dependency"
	GroupLatency  = "Latency"
	GroupRecovery = "Recovery"
	GroupGiveUps  = "How operations gave up"
	GroupConsumer = "Consumer and dead letters"
	GroupRun      = "The run"
)

// MetricGroups lists the groups in the order tables show them.
var MetricGroups = []string{GroupOutcome, GroupLoad, GroupLatency, GroupRecovery, GroupGiveUps, GroupConsumer, GroupRun}

// MetricInfos describe every field of Metrics, in the same order (a test
// checks it): the tables, verdicts and charts take their labels from here.
var MetricInfos = []MetricInfo{
	{"operations", "Operations", "", "Logical requests the clients wanted done.", GroupOutcome, 0, false},
	{"succeeded", "Succeeded", "", "Operations that ended in success as their client saw it, after any retries (compare strategies by the success rate); a non-idempotent one the dependency applied more than once counts here too, and in duplicates.", GroupOutcome, 0, false},
	{"degraded", "Degraded", "", "Operations that ended after a call failed and its fallback answered: served, but without that call's part.", GroupOutcome, 0, false},
	{"failed", "Failed", "", "Operations that ended without success as their client saw it (compare strategies by the success rate), those the dependency applied all the same included.", GroupOutcome, 0, false},
	{"applied_after_give_up", "Failed, yet applied", "", "Non-idempotent operations among the failed that the dependency applied all the same, before or after their client gave up (e.g. a payment taken for an order its client saw fail).", GroupOutcome, -1, false},
	{"success_rate", "Success rate", "%", "Share of all operations that succeeded, as their clients saw it: one the dependency applied more than once (duplicates) counts as a success, and a failed one it applied all the same as a failure.", GroupOutcome, 1, false},
	{"degraded_rate", "Degraded rate", "%", "Share of all operations that ended degraded, a fallback answering for a failed call (fewer is not better when they would have failed instead).", GroupOutcome, 0, false},
	{"affected_operations", "Operations in the affected window", "", "Operations that started in the affected window: report.affected_from to affected_to, by default the span of the dependencies' phases.", GroupOutcome, 0, false},
	{"affected_success_rate", "Success rate in the affected window", "%", "Share of the operations started in the affected window that succeeded.", GroupOutcome, 1, false},
	{"attempts", "Attempts", "", "Calls the clients made: first attempts plus retries.", GroupLoad, -1, false},
	{"first_attempts", "First attempts", "", "The first call of each operation.", GroupLoad, 0, false},
	{"retries", "Retries sent by the clients", "", "Calls the clients (the outermost level) made after the first one of an operation; with layers, retries at every level counts those of every layer too.", GroupLoad, -1, false},
	{"retries_all_levels", "Retries at every level", "", "Calls after the first one of each invocation, at every level: the clients' retries and those of each layer, hedged copies included (with layers, the table's retries by level gives each level's).", GroupLoad, -1, false},
	{"retries_denied", "Retries denied by a budget, at every level", "", "Retries a retry budget did not allow, the clients' and each layer's (with layers, the table's retries denied by level gives each level's).", GroupLoad, 0, false},
	{"fast_failed", "Calls failed fast by the breaker", "", "Calls the open circuit breaker refused without calling.", GroupLoad, 0, false},
	{"throttled", "Attempts rejected by client-side throttling", "", "Attempts a client-side throttle (the Google SRE book's adaptive throttling) or a fixed-window rate limiter (resilience4j's RateLimiter) rejected locally, at every level, without sending them.", GroupLoad, 0, false},
	{"overflowed", "Attempts overflowed by connection limits", "", "Attempts a proxy's connection limits (Envoy's circuit_breakers, Istio's connectionPool) refused locally, at every level: over max_requests, or every connection busy and the pending line full. Each is answered with a 503 that is not retried.", GroupLoad, 0, false},
	{"dependency_calls", "Calls reaching the dependency", "", "Calls that arrived at the deepest dependency (through every layer).", GroupLoad, -1, false},
	{"amplification", "Amplification", "calls per operation", "Calls reaching the dependency per operation (with several calls in the plan: per call an operation makes, on average).", GroupLoad, -1, false},
	{"rejections", "Refused by the dependency", "", "Calls the dependency refused at once: its queue full, its queue discipline dropping them (CoDel, adaptive LIFO), its rate limiter without a token, its concurrency limit reached.", GroupLoad, -1, false},
	{"shed", "Shed by priority", "", "Calls of a low class the dependency's load shedding answered at once to keep serving higher ones.", GroupLoad, 0, false},
	{"pool_rejected", "Refused by the client's pool", "", "Plan calls the client's pool refused: no free slot and the line full, or waited as long as allowed.", GroupLoad, -1, false},
	{"bulkhead_rejected", "Refused by a bulkhead", "", "Plan calls a bulkhead refused: no free slot and the line full, or waited as long as allowed.", GroupLoad, -1, false},
	{"peak_per_10ms", "Peak calls in 10 ms", "calls", "Most calls reaching the dependency in any 10 ms window.", GroupLoad, -1, false},
	{"peak_per_100ms", "Peak calls in 100 ms", "calls", "Most calls reaching the dependency in any 100 ms window.", GroupLoad, -1, false},
	{"peak_per_1s", "Peak calls in 1 s", "calls", "Most calls reaching the dependency in any second.", GroupLoad, -1, false},
	{"retry_peak_per_10ms", "Peak retries in 10 ms", "calls", "Most retries reaching the dependency in any 10 ms window.", GroupLoad, -1, false},
	{"retry_peak_per_100ms", "Peak retries in 100 ms", "calls", "Most retries reaching the dependency in any 100 ms window.", GroupLoad, -1, false},
	{"retry_peak_per_1s", "Peak retries in 1 s", "calls", "Most retries reaching the dependency in any second.", GroupLoad, -1, false},
	{"latency_p50_ms", "Latency p50, all operations", "ms", "Median time to the end of an operation, failed ones included.", GroupLatency, -1, true},
	{"latency_p95_ms", "Latency p95, all operations", "ms", "95th percentile time to the end of an operation, failed ones included.", GroupLatency, -1, true},
	{"latency_p99_ms", "Latency p99, all operations", "ms", "99th percentile time to the end of an operation, failed ones included.", GroupLatency, -1, true},
	{"latency_max_ms", "Latency max, all operations", "ms", "Longest time to the end of an operation, failed ones included.", GroupLatency, -1, true},
	{"success_latency_p50_ms", "Latency p50, successes", "ms", "Median time to success, of the operations that succeeded.", GroupLatency, -1, false},
	{"success_latency_p95_ms", "Latency p95, successes", "ms", "95th percentile time to success.", GroupLatency, -1, false},
	{"success_latency_p99_ms", "Latency p99, successes", "ms", "99th percentile time to success.", GroupLatency, -1, false},
	{"success_latency_max_ms", "Latency max, successes", "ms", "Longest time to success.", GroupLatency, -1, false},
	{"recovery_s", "Recovery time", "s", "Time from the end of the fault until the success rate of the operations starting in every following second stays at or above 99%, judged only on operations that start while the workload arrives at its nominal rate and cannot outlast its arrivals (their deadline, else their attempts' time-outs and waits): a recovery must hold under the load the fault met (Bronson et al., HotOS 2021; Huang et al., OSDI 2022), not come from the backlog draining once arrivals stop. None (not recovered under load) when the bad state lasts to the end of that span, so with several seeds a time only when every seed recovered; n/a without a fault that ends, or when arrivals stop too soon after it to judge one second.", GroupRecovery, -1, false},
	{"recovered", "Recovered", "%", "Share of runs that recovered under load: after the fault ended, the success rate of every following second got back to and stayed at 99% or more, judged only on operations that start while the workload still arrives at its nominal rate and whose longest possible span (their deadline, or their attempts' time-outs and waits) ends before arrivals do, so that operations succeeding only because arrivals stopped and the backlog drained prove nothing (Bronson et al., HotOS 2021; Huang et al., OSDI 2022); n/a without a fault that ends (no phase harming the dependency, no report.recovery_from), or when arrivals stop too soon after it to judge a whole second of such operations.", GroupRecovery, 1, false},
	{"goodput_per_s", "Goodput", "operations/s", "Successful operations per second of the workload's duration.", GroupOutcome, 1, false},
	{"settle_s", "Time to settle", "s", "Time until the last operation ended.", GroupRecovery, -1, false},
	{"duplicates", "Duplicates", "", "Extra times the dependency applied a non-idempotent operation after its first time (a double charge counts once, a triple twice), whether its client then saw success or failure.", GroupOutcome, -1, false},
	{"wasted_work", "Wasted work", "", "Calls the dependency served for a caller that had already given up.", GroupLoad, -1, false},
	{"dropped_abandoned", "Dropped after the caller left", "", "Queued calls skipped because their caller had given up.", GroupLoad, 0, false},
	{"dead_lettered", "Dead-lettered", "", "Messages sent to the dead-letter queue.", GroupConsumer, 0, false},
	{"dead_lettered_max_deliveries", "Dead-lettered after max deliveries", "", "Messages dead-lettered after their last delivery failed.", GroupConsumer, 0, false},
	{"dead_lettered_non_transient", "Dead-lettered as non-transient", "", "Messages dead-lettered at once for an error that retrying cannot fix.", GroupConsumer, 0, false},
	{"dead_lettered_unreadable", "Dead-lettered as unreadable", "", "Messages the consumer could not parse.", GroupConsumer, 0, false},
	{"gave_up_attempts", "Out of attempts", "", "Operations that failed after their last allowed attempt.", GroupGiveUps, 0, false},
	{"gave_up_deadline", "Out of time (deadline)", "", "Operations stopped by their deadline.", GroupGiveUps, 0, false},
	{"gave_up_budget", "Retry denied by the budget", "", "Operations that failed because the budget refused a retry.", GroupGiveUps, 0, false},
	{"gave_up_breaker", "Failed fast by the breaker", "", "Operations that ended on an open breaker.", GroupGiveUps, 0, false},
	{"gave_up_not_retryable", "Not retryable", "", "Operations that ended on an answer the policy does not retry.", GroupGiveUps, 0, false},
	{"gave_up_non_idempotent", "Not retried: not idempotent", "", "Operations not retried because repeating them is unsafe.", GroupGiveUps, 0, false},
	{"gave_up_unreadable", "Unreadable", "", "Messages that could not be processed at all.", GroupGiveUps, 0, false},
	{"gave_up_pool", "Refused by the client's pool", "", "Operations that failed because the client's pool refused one of their calls.", GroupGiveUps, 0, false},
	{"gave_up_bulkhead", "Refused by a bulkhead", "", "Operations that failed because a bulkhead refused one of their calls.", GroupGiveUps, 0, false},
	{"gave_up_throttle", "Rejected by client-side throttling", "", "Operations that failed because a client-side throttle or a fixed-window rate limiter rejected one of their attempts locally.", GroupGiveUps, 0, false},
	{"gave_up_overflow", "Overflowed by connection limits", "", "Operations that failed because an attempt overflowed a proxy's connection limits: its local 503 is not retried.", GroupGiveUps, 0, false},
	{"hedges", "Hedged copies sent", "", "Copies of a hedged call sent after the first one, at any level, to cut its latency; at the client they are retries too.", GroupLoad, -1, false},
	{"hedges_won", "Calls won by a hedge", "", "Hedged calls whose first success came from a copy after the first one.", GroupLoad, 0, false},
	{"cache_hits", "Cache hits", "", "Calls a cache in front of the dependency answered from a fresh entry, without their reaching the dependency.", GroupLoad, 0, false},
	{"cache_misses", "Cache misses", "", "Calls a cache held no fresh entry for (none, or older than its TTL): forwarded to the dependency, or waiting for a fetch of the same key in progress (coalesced).", GroupLoad, 0, false},
	{"cache_hit_rate", "Cache hit rate", "%", "Share of a cache's lookups that were hits: every call to the dependency goes through its cache, retries included.", GroupLoad, 1, false},
	{"cache_coalesced", "Misses coalesced", "", "Cache misses that waited for the fetch of the same key already in progress (request coalescing) and got its answer, instead of reaching the dependency.", GroupLoad, 0, false},
	{"events", "Simulated events", "", "Events the simulation processed: its cost.", GroupRun, 0, false},
}

// DescribeMetric returns the description of the metric with the given JSON
// name.
func DescribeMetric(key string) (MetricInfo, bool) {
	for _, m := range MetricInfos {
		if m.Key == key {
			return m, true
		}
	}
	return MetricInfo{}, false
}
