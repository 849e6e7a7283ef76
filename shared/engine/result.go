package engine

import (
	"encoding/json"
	"maps"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// EngineVersion changes whenever the same scenario and seed could give a
// different result. Stored results are keyed by it. Version 2: percentiles
// of runs beyond 2^19 operations come from a bounded histogram (within
// 0.049%), results carry the tail over seeds, scenarios may carry a search.
// Version 3: recovery is judged only on operations that start while the
// workload arrives and whose horizon ends by then (recoveryCounts), and a
// run that did not recover under load has no recovery time. Version 4:
// retries_all_levels, layer_retries and layer_retries_denied count the
// retries of every level, applied_after_give_up the failed operations the
// dependency applied all the same (parts carry each level's retries).
const EngineVersion = "4"

// A Result is what a run of a scenario reports. It is a public format: field
// names are stable and snake_case.
type Result struct {
	Scenario      string           `json:"scenario"`
	EngineVersion string           `json:"engine_version"`
	Seeds         []int64          `json:"seeds"`
	Events        int64            `json:"events"`
	Phases        []PhaseSpan      `json:"phases,omitempty"`
	Strategies    []StrategyResult `json:"strategies,omitempty"`
	SweepPath     string           `json:"sweep_path,omitempty"`
	Sweep         []SweepPoint     `json:"sweep,omitempty"`
	// Search is what the scenario's search found; the strategies above
	// are the scenario's own, as without it.
	Search   *SearchResult `json:"search,omitempty"`
	Warnings []string      `json:"warnings"`
}

// A PhaseSpan is a dependency phase, or a load phase, for shading charts.
// Dependency names the phase's dependency in a scenario that lists
// several. A load phase has Load, its kind, and no Kind.
type PhaseSpan struct {
	Kind       PhaseKind `json:"kind,omitempty"`
	Load       LoadKind  `json:"load,omitempty"`
	Label      string    `json:"label"`
	FromS      float64   `json:"from_s"`
	ToS        float64   `json:"to_s"`
	Dependency string    `json:"dependency,omitempty"`
}

// phaseSpans returns the phases of every dependency of sc, for Result.Phases.
func phaseSpans(sc *Scenario) []PhaseSpan {
	var spans []PhaseSpan
	deps := sc.Dependencies
	if len(deps) == 0 {
		deps = []Dependency{sc.Dependency}
	}
	for i := range deps {
		for _, ph := range deps[i].Phases {
			label := ph.Label
			if label == "" {
				label = phaseLabel(&ph)
			}
			span := PhaseSpan{Kind: ph.Kind, Label: label, FromS: ph.From.D().Seconds(), ToS: ph.To.D().Seconds()}
			if len(sc.Dependencies) > 0 {
				span.Dependency = deps[i].Name
			}
			spans = append(spans, span)
		}
	}
	for _, lp := range sc.Workload.Load {
		label := lp.Label
		if label == "" {
			label = loadLabel(&lp)
		}
		spans = append(spans, PhaseSpan{Load: lp.Kind, Label: label, FromS: lp.From.D().Seconds(), ToS: lp.To.D().Seconds()})
	}
	return spans
}

// A SweepPoint is the result for one value of the swept parameter.
type SweepPoint struct {
	Value      any              `json:"value"`
	Strategies []StrategyResult `json:"strategies"`
}

// A StrategyResult reports one strategy. With several runs, Metrics are means
// over the runs, Spread holds each metric's minimum and maximum, Quantiles
// its 5th, 50th and 95th percentiles over the seeds and WorstSeeds, for
// the scenario's report.focus and the Headline metrics, the seed on which
// each is worst; the series and breaker transitions are those of the
// first run. Thresholds say how often the strategy crosses each of the
// scenario's report.thresholds.
type StrategyResult struct {
	Name       string               `json:"name"`
	Metrics    Metrics              `json:"metrics"`
	Spread     map[string]MinMax    `json:"spread,omitempty"`
	Quantiles  map[string]Quantiles `json:"quantiles,omitempty"`
	WorstSeeds map[string]SeedValue `json:"worst_seeds,omitempty"`
	Thresholds []ThresholdResult    `json:"thresholds,omitempty"`
	Peaks      []Peak               `json:"peaks,omitempty"`
	// LayerAttempts are the attempts made at each level, the client first,
	// when the strategy has layers.
	LayerAttempts []float64 `json:"layer_attempts,omitempty"`
	// LayerRetries are the retries made at each level (its attempts after
	// the first of each of its invocations, hedged copies included) and
	// LayerRetriesDenied the retries a budget denied there, the client
	// first, when the strategy has layers: they add up to
	// retries_all_levels and retries_denied.
	LayerRetries       []float64    `json:"layer_retries,omitempty"`
	LayerRetriesDenied []float64    `json:"layer_retries_denied,omitempty"`
	Transitions        []Transition `json:"breaker_transitions,omitempty"`
	// Scaling are the autoscalers' decisions, with an autoscaler.
	Scaling []ScalingEvent `json:"scaling,omitempty"`
	Series  *Series        `json:"series,omitempty"`
	// Calls report each call of the plan, when it has more than one.
	Calls []CallResult `json:"calls,omitempty"`
	// Fleets report each fleet, the workload's own clients first, when
	// the workload has fleets; Metrics above count them all.
	Fleets []FleetResult `json:"fleets,omitempty"`
	// Backends report each backend of the dependencies with backends.
	Backends []BackendResult `json:"backends,omitempty"`
}

// A FleetResult reports one fleet: Metrics are means over runs and Spread
// their minimum and maximum, as for the strategy's. Own marks the
// workload's own clients, whose policy is the strategy.
type FleetResult struct {
	Name    string            `json:"name"`
	Own     bool              `json:"own,omitempty"`
	Metrics FleetMetrics      `json:"metrics"`
	Spread  map[string]MinMax `json:"spread,omitempty"`
}

// FleetMetrics measure one fleet's operations, as Metrics does all of
// them: how many started, succeeded and, of those started in the affected
// window, succeeded; the calls they made that reached a dependency, and
// those per operation (and per call of the plan).
type FleetMetrics struct {
	Operations          float64 `json:"operations"`
	Succeeded           float64 `json:"succeeded"`
	SuccessRate         float64 `json:"success_rate"`
	AffectedOperations  float64 `json:"affected_operations"`
	AffectedSuccessRate float64 `json:"affected_success_rate"`
	DependencyCalls     float64 `json:"dependency_calls"`
	Amplification       float64 `json:"amplification"`
}

// A CallResult reports one call of the plan: Metrics are means over runs
// and Spread their minimum and maximum, as for the strategy's.
type CallResult struct {
	Name       string            `json:"name"`
	Dependency string            `json:"dependency"`
	Class      Class             `json:"class"`
	Metrics    CallMetrics       `json:"metrics"`
	Spread     map[string]MinMax `json:"spread,omitempty"`
}

// CallMetrics measure one call of the plan. Calls counts the calls
// started (one per operation that got to its step and makes it); each
// ended succeeded, fell back (failed, and the strategy has a fallback for
// it) or failed, or was abandoned when another call of its operation
// failed first. The success rate is of the calls that ended: an abandoned
// call says nothing of its dependency. Attempts are the
// client's (level 0) for it; dependency_calls, rejections and shed are at
// its dependency, counting its calls only. Latencies run from the call's
// start, its wait for a pool or bulkhead slot included, to its end (before
// any fallback's latency). Goodput is successful calls per second of the
// workload's duration (or of the run, if longer).
type CallMetrics struct {
	Calls            float64 `json:"calls"`
	Succeeded        float64 `json:"succeeded"`
	FellBack         float64 `json:"fell_back"`
	Failed           float64 `json:"failed"`
	Abandoned        float64 `json:"abandoned"`
	SuccessRate      float64 `json:"success_rate"`
	Attempts         float64 `json:"attempts"`
	DependencyCalls  float64 `json:"dependency_calls"`
	Rejections       float64 `json:"rejections"`
	Shed             float64 `json:"shed"`
	FastFailed       float64 `json:"fast_failed"`
	PoolRejected     float64 `json:"pool_rejected"`
	BulkheadRejected float64 `json:"bulkhead_rejected"`
	LatencyP50ms     float64 `json:"latency_p50_ms"`
	LatencyP99ms     float64 `json:"latency_p99_ms"`
	GoodputPerS      float64 `json:"goodput_per_s"`
}

// MinMax is the range of a metric over runs.
type MinMax struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// A Peak is the most calls reaching the dependency in any window of the given
// resolution (windows aligned at t = 0).
type Peak struct {
	ResolutionMS float64 `json:"resolution_ms"`
	Attempts     float64 `json:"attempts"`
	Retries      float64 `json:"retries"`
}

// A Transition is a circuit breaker changing state. Layer 0 is the client; with
// several instances, only instance 0 is reported. Dependency names the
// dependency whose breaker it is, when there are several and each has its
// own (scope "dependency").
type Transition struct {
	AtS        float64 `json:"at_s"`
	Layer      int     `json:"layer"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	Dependency string  `json:"dependency,omitempty"`
}

// Series are counts per time bucket of BucketMS, from t = 0. Attempts and
// retries are calls arriving at the dependency; successes and failures are
// operations ending; rejections are calls refused by a full queue; fast_failed
// calls refused by a breaker; queue_length and in_flight (operations started
// and not finished) are the highest level in the bucket; breaker_state is the
// state at the bucket's end (0 closed, 1 half-open, 2 open) of the outermost
// breaker's instance 0 (of the first dependency, when each has its own).
// Fine holds calls at each peak resolution, for charts that switch
// resolution, when it has at most 20,000 windows. Operations that end
// degraded count in neither successes nor failures. With a pool,
// pool_in_use is the most slots in use in the bucket, all instances
// together; with several plan calls, calls has each one's series.
type Series struct {
	BucketMS     float64      `json:"bucket_ms"`
	Attempts     []int32      `json:"attempts"`
	Retries      []int32      `json:"retries"`
	Successes    []int32      `json:"successes"`
	Failures     []int32      `json:"failures"`
	Rejections   []int32      `json:"rejections"`
	FastFailed   []int32      `json:"fast_failed"`
	QueueLength  []int32      `json:"queue_length"`
	InFlight     []int32      `json:"in_flight"`
	BreakerState []int8       `json:"breaker_state,omitempty"`
	Fine         []FineSeries `json:"fine,omitempty"`
	PoolInUse    []int32      `json:"pool_in_use,omitempty"`
	Calls        []CallSeries `json:"calls,omitempty"`
	// Fleets are each fleet's, with fleets: its calls reaching a
	// dependency (retries included: the load it offers), and its
	// operations that succeeded and failed.
	Fleets []CallSeries `json:"fleets,omitempty"`
	// Workers are each autoscaled dependency's workers, with an
	// autoscaler.
	Workers []WorkerSeries `json:"workers,omitempty"`
	// Cache is the caches' lookups, with a cache.
	Cache *CacheSeries `json:"cache,omitempty"`
}

// CacheSeries are the lookups of the dependencies' caches per bucket:
// hits, misses (coalesced ones included), and the hit rate, the share of
// hits, 0 in a bucket without lookups.
type CacheSeries struct {
	Hits    []int32   `json:"hits"`
	Misses  []int32   `json:"misses"`
	HitRate []float64 `json:"hit_rate"`
}

// CallSeries are one plan call's counts per bucket: attempts are its calls
// reaching its dependency; successes and failures are the plan call
// ending (a call that fell back is a failure here).
type CallSeries struct {
	Name      string  `json:"name"`
	Attempts  []int32 `json:"attempts"`
	Successes []int32 `json:"successes"`
	Failures  []int32 `json:"failures"`
}

// FineSeries are dependency calls per window at one resolution.
type FineSeries struct {
	ResolutionMS float64 `json:"resolution_ms"`
	Attempts     []int32 `json:"attempts"`
	Retries      []int32 `json:"retries"`
}

// Metrics of one strategy. Counts are over the whole run. Latencies are from
// an operation's start to its end, over all operations (failures included:
// a fast failure lowers them) and, as success_latency_*, over successful ones.
type Metrics struct {
	Operations float64 `json:"operations"`
	Succeeded  float64 `json:"succeeded"`
	Degraded   float64 `json:"degraded,omitempty"`
	Failed     float64 `json:"failed"`
	// AppliedAfterGiveUp are the non-idempotent operations among the
	// failed that the dependency applied all the same, before or after
	// they ended (a payment taken for an order its client saw fail).
	AppliedAfterGiveUp  float64 `json:"applied_after_give_up"`
	SuccessRate         float64 `json:"success_rate"`
	DegradedRate        float64 `json:"degraded_rate,omitempty"`
	AffectedOperations  float64 `json:"affected_operations"`
	AffectedSuccessRate float64 `json:"affected_success_rate"`
	Attempts            float64 `json:"attempts"`
	FirstAttempts       float64 `json:"first_attempts"`
	Retries             float64 `json:"retries"`
	// RetriesAllLevels are the retries of every level, the client's and
	// each layer's (layer_retries has them by level).
	RetriesAllLevels float64 `json:"retries_all_levels"`
	RetriesDenied    float64 `json:"retries_denied"`
	FastFailed       float64 `json:"fast_failed"`
	// Throttled are the attempts a client-side throttle or a fixed-window
	// rate limiter rejected locally, at every level. Left out when 0.
	Throttled float64 `json:"throttled,omitempty"`
	// Overflowed are the attempts that overflowed a level's connection
	// limits, answered locally with a 503. Left out when 0.
	Overflowed          float64 `json:"overflowed,omitempty"`
	DependencyCalls     float64 `json:"dependency_calls"`
	Amplification       float64 `json:"amplification"`
	Rejections          float64 `json:"rejections"`
	Shed                float64 `json:"shed,omitempty"`
	PoolRejected        float64 `json:"pool_rejected,omitempty"`
	BulkheadRejected    float64 `json:"bulkhead_rejected,omitempty"`
	PeakPer10ms         float64 `json:"peak_per_10ms"`
	PeakPer100ms        float64 `json:"peak_per_100ms"`
	PeakPer1s           float64 `json:"peak_per_1s"`
	RetryPeakPer10ms    float64 `json:"retry_peak_per_10ms"`
	RetryPeakPer100ms   float64 `json:"retry_peak_per_100ms"`
	RetryPeakPer1s      float64 `json:"retry_peak_per_1s"`
	LatencyP50ms        float64 `json:"latency_p50_ms"`
	LatencyP95ms        float64 `json:"latency_p95_ms"`
	LatencyP99ms        float64 `json:"latency_p99_ms"`
	LatencyMaxms        float64 `json:"latency_max_ms"`
	SuccessLatencyP50ms float64 `json:"success_latency_p50_ms"`
	SuccessLatencyP95ms float64 `json:"success_latency_p95_ms"`
	SuccessLatencyP99ms float64 `json:"success_latency_p99_ms"`
	SuccessLatencyMaxms float64 `json:"success_latency_max_ms"`
	// RecoveryS and Recovered do not apply to a scenario without a fault
	// window to recover from, nor to a strategy whose judged span is
	// shorter than a window (see recoveryCounts.recovery): null then.
	// RecoveryS is null too where a run did not recover under load
	// (Recovered below 1): it has no time then.
	RecoveryS            Optional `json:"recovery_s"`
	Recovered            Optional `json:"recovered"`
	GoodputPerS          float64  `json:"goodput_per_s"`
	SettleS              float64  `json:"settle_s"`
	Duplicates           float64  `json:"duplicates"`
	WastedWork           float64  `json:"wasted_work"`
	DroppedAbandoned     float64  `json:"dropped_abandoned"`
	DeadLettered         float64  `json:"dead_lettered"`
	DeadLetteredAttempts float64  `json:"dead_lettered_max_deliveries"`
	DeadLetteredPerm     float64  `json:"dead_lettered_non_transient"`
	DeadLetteredUnread   float64  `json:"dead_lettered_unreadable"`
	GaveUpAttempts       float64  `json:"gave_up_attempts"`
	GaveUpDeadline       float64  `json:"gave_up_deadline"`
	GaveUpBudget         float64  `json:"gave_up_budget"`
	GaveUpBreaker        float64  `json:"gave_up_breaker"`
	GaveUpNotRetryable   float64  `json:"gave_up_not_retryable"`
	GaveUpNonIdempotent  float64  `json:"gave_up_non_idempotent"`
	GaveUpUnreadable     float64  `json:"gave_up_unreadable"`
	GaveUpPool           float64  `json:"gave_up_pool,omitempty"`
	GaveUpBulkhead       float64  `json:"gave_up_bulkhead,omitempty"`
	GaveUpThrottle       float64  `json:"gave_up_throttle,omitempty"`
	GaveUpOverflow       float64  `json:"gave_up_overflow,omitempty"`
	// Hedges are the copies of hedged invocations sent after the first,
	// and HedgesWon the invocations a copy after the first won, summed
	// over levels. Left out when 0.
	Hedges    float64 `json:"hedges,omitempty"`
	HedgesWon float64 `json:"hedges_won,omitempty"`
	// CacheHits and CacheMisses are the lookups of the dependencies'
	// caches that found a fresh entry and those that did not;
	// CacheHitRate is the share of hits, and CacheCoalesced the misses
	// that waited for a fetch in progress instead of reaching the
	// dependency. Left out without a cache (and when 0).
	CacheHits      float64 `json:"cache_hits,omitempty"`
	CacheMisses    float64 `json:"cache_misses,omitempty"`
	CacheHitRate   float64 `json:"cache_hit_rate,omitempty"`
	CacheCoalesced float64 `json:"cache_coalesced,omitempty"`
	Events         float64 `json:"events"`
}

// An Optional is a metric that does not apply to every result: NaN
// (NotApplicable) where it does not, which JSON writes as null and
// Metrics.Metric reads as 0, not applicable (see Metrics.Applies).
type Optional float64

// NotApplicable is an Optional that does not apply.
var NotApplicable = Optional(math.NaN())

// Applies reports whether x applies.
func (x Optional) Applies() bool { return !math.IsNaN(float64(x)) }

// MarshalJSON writes x as a number, or null when it does not apply.
func (x Optional) MarshalJSON() ([]byte, error) {
	if !x.Applies() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

// UnmarshalJSON reads a number, or null as NotApplicable.
func (x *Optional) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = NotApplicable
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*x = Optional(f)
	return nil
}

// optionalMetrics names the metrics of type Optional, which may not
// apply (found once, by reflection).
var optionalMetrics = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[Metrics]()
	for i := range t.NumField() {
		if t.Field(i).Type == reflect.TypeFor[Optional]() {
			n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			out[n] = true
		}
	}
	return out
})

// MayNotApply reports whether the metric with the given JSON name is an
// Optional one, which does not apply to every result.
func MayNotApply(name string) bool { return optionalMetrics()[name] }

// applies reports whether the metric with the given JSON name applies to
// the model's results: an Optional one (recovery) only where a fault ends.
func (m *model) applies(name string) bool { return m.faultEnd != 0 || !optionalMetrics()[name] }

// Applies reports whether the metric with the given JSON name applies
// to the result (see Optional).
func (m *Metrics) Applies(name string) bool {
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			return !math.IsNaN(v.Field(i).Float())
		}
	}
	return false
}

// NotRecovered is what a table writes in place of the recovery time of a
// strategy that did not recover while the workload still arrived at its
// nominal rate (recovered 0; see recoveryCounts.recovery): there is no
// time to show.
const NotRecovered = "not recovered under load"

// Missing returns the words a table writes in place of the value of the
// metric with the given JSON name where it has none: NotRecovered for the
// recovery time where recovery was judged and a run did not recover (",
// on some seeds" when others did), "n/a" where the metric does not apply;
// "" and false where it has a value.
func (m *Metrics) Missing(name string) (string, bool) {
	switch {
	case m.Applies(name) || !MayNotApply(name):
		return "", false
	case name == "recovery_s" && m.Recovered.Applies() && m.Recovered > 0:
		return NotRecovered + ", on some seeds", true
	case name == "recovery_s" && m.Recovered.Applies():
		return NotRecovered, true
	}
	return "n/a", true
}

// MetricNames lists the JSON names of the metrics in display order.
func MetricNames() []string { return fieldNames(reflect.TypeFor[Metrics]()) }

// Metric returns the metric with the given JSON name.
func (m *Metrics) Metric(name string) (float64, bool) { return fieldByName(m, name) }

// CallMetricNames lists the JSON names of a plan call's metrics in
// display order.
func CallMetricNames() []string { return fieldNames(reflect.TypeFor[CallMetrics]()) }

// Metric returns the call's metric with the given JSON name.
func (m *CallMetrics) Metric(name string) (float64, bool) { return fieldByName(m, name) }

// FleetMetricNames lists the metrics of one fleet, in FleetMetrics's order.
func FleetMetricNames() []string { return fieldNames(reflect.TypeFor[FleetMetrics]()) }

// Metric returns the fleet's metric with the given JSON name.
func (m *FleetMetrics) Metric(name string) (float64, bool) { return fieldByName(m, name) }

// fieldByName returns the field of *m, a struct of numbers, with the
// given JSON name.
func fieldByName[T any](m *T, name string) (float64, bool) {
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			if x := v.Field(i).Float(); !math.IsNaN(x) {
				return x, true
			}
			return 0, true // not applicable: see Metrics.Applies
		}
	}
	return 0, false
}

// runOutput is what one strategy on one seed produced.
type runOutput struct {
	metrics      Metrics
	calls        []CallMetrics // per plan call, with several
	xbins        [][]int32     // see counters.xbins
	levels       []int64       // attempts by level, the client first
	levelRetries []int64       // retries by level
	levelDenied  []int64       // retries denied by level
	peaks        []Peak
	bins         *[numBins][]int32
	nbins        int
	base         int64 // the bins' width
	transitions  []transition
	scaling      []scaleEvent    // autoscalers' decisions
	workers      []workersChange // autoscaled dependencies' serving workers
	outerBreaker int             // the outermost level with a breaker, -1 if none
	// affectedCalls are the calls that reached the dependency for the
	// operations started in the affected window (a probe's amplification
	// there); a Part does not carry them.
	affectedCalls int64
	// segs are the affected window's operations by segment, with a
	// model's segment (a probe's).
	segs   []segCounts
	fleets []FleetMetrics // per fleet, with fleets
	// backends are each backend's, in server order (see Backends).
	backends []BackendMetrics
}

// output measures a finished run.
func (s *sim) output(keepSeries bool) runOutput {
	m := s.m
	c := &s.c
	var x Metrics
	nb := s.lastBin + 1
	n := float64(c.operations)
	x.Operations = n
	x.Succeeded = float64(c.succeeded)
	x.Degraded = float64(c.degraded)
	x.Failed = n - x.Succeeded - x.Degraded
	x.AppliedAfterGiveUp = float64(c.appliedAfterGiveUp)
	x.SuccessRate = ratio(x.Succeeded, n)
	x.DegradedRate = ratio(x.Degraded, n)
	x.AffectedOperations = float64(c.affected)
	x.AffectedSuccessRate = ratio(float64(c.affectedOK), float64(c.affected))
	if c.affected == 0 {
		x.AffectedSuccessRate = 1
	}
	x.Attempts = float64(c.attempts)
	x.FirstAttempts = float64(c.firstAttempts)
	x.Retries = float64(c.attempts - c.firstAttempts)
	x.RetriesDenied = float64(c.retriesDenied)
	levelRetries := make([]int64, len(c.levelAttempts))
	for l, a := range c.levelAttempts {
		levelRetries[l] = a - c.levelFirst[l]
		x.RetriesAllLevels += float64(levelRetries[l])
	}
	x.FastFailed = float64(c.fastFailed)
	x.Throttled = float64(c.throttled)
	x.Overflowed = float64(c.overflowed)
	x.DependencyCalls = float64(c.depCalls)
	x.Amplification = ratio(x.DependencyCalls, n*m.callsPerOp)
	x.Rejections = float64(c.rejections)
	x.Shed = float64(c.shed)
	x.PoolRejected = float64(c.limited[rejPoolFull] + c.limited[rejPoolTimeout])
	x.BulkheadRejected = float64(c.limited[rejBulkheadFull] + c.limited[rejBulkheadTimeout])

	var peaks []Peak
	for i := range s.peaks {
		p := &s.peaks[i]
		p.flush()
		peaks = append(peaks, Peak{ResolutionMS: ms(p.res), Attempts: float64(p.bestCalls), Retries: float64(p.bestRetries)})
	}
	x.PeakPer10ms, x.RetryPeakPer10ms = peaks[0].Attempts, peaks[0].Retries
	x.PeakPer100ms, x.RetryPeakPer100ms = peaks[1].Attempts, peaks[1].Retries
	x.PeakPer1s, x.RetryPeakPer1s = peaks[2].Attempts, peaks[2].Retries

	x.LatencyP50ms, x.LatencyP95ms, x.LatencyP99ms, x.LatencyMaxms = c.lat.percentiles()
	x.SuccessLatencyP50ms, x.SuccessLatencyP95ms, x.SuccessLatencyP99ms, x.SuccessLatencyMaxms = c.okLat.percentiles()

	x.RecoveryS, x.Recovered = c.rec.recovery(m)
	span := float64(max(m.work.duration, c.lastEnd)) / 1e9
	if span > 0 {
		x.GoodputPerS = round3(x.Succeeded / span)
	}
	x.SettleS = round3(float64(c.lastEnd) / 1e9)
	x.Duplicates = float64(c.duplicates)
	x.WastedWork = float64(c.wasted)
	x.DroppedAbandoned = float64(c.dropped)
	dl := &c.deadLettered
	x.DeadLetteredAttempts = float64(dl[reasonAttempts])
	x.DeadLetteredPerm = float64(dl[reasonNotRetryable] + dl[reasonNonIdempotent])
	x.DeadLetteredUnread = float64(dl[reasonUnreadable])
	for _, v := range dl {
		x.DeadLettered += float64(v)
	}
	g := &c.gaveUp
	x.GaveUpAttempts = float64(g[reasonAttempts])
	x.GaveUpDeadline = float64(g[reasonDeadline])
	x.GaveUpBudget = float64(g[reasonBudget])
	x.GaveUpBreaker = float64(g[reasonBreaker])
	x.GaveUpNotRetryable = float64(g[reasonNotRetryable])
	x.GaveUpNonIdempotent = float64(g[reasonNonIdempotent])
	x.GaveUpUnreadable = float64(g[reasonUnreadable])
	x.GaveUpPool = float64(g[reasonPool])
	x.GaveUpBulkhead = float64(g[reasonBulkhead])
	x.GaveUpThrottle = float64(g[reasonThrottle])
	x.GaveUpOverflow = float64(g[reasonOverflow])
	x.Hedges = float64(c.hedges)
	x.HedgesWon = float64(c.hedgesWon)
	x.CacheHits, x.CacheMisses, x.CacheCoalesced = float64(c.cacheHits), float64(c.cacheMisses), float64(c.coalesced)
	x.CacheHitRate = ratio(x.CacheHits, x.CacheHits+x.CacheMisses)
	x.Events = float64(s.events)

	out := runOutput{metrics: x, levels: c.levelAttempts, levelRetries: levelRetries, levelDenied: c.levelDenied, peaks: peaks[3:], transitions: c.transitions, nbins: nb, base: s.base, outerBreaker: -1,
		affectedCalls: c.affectedCalls, segs: c.segs, backends: s.backendMetrics(),
		scaling: c.scaling, workers: c.workers}
	for i := range c.calls {
		cc := &c.calls[i]
		cm := CallMetrics{
			Calls:            float64(cc.calls),
			Succeeded:        float64(cc.succeeded),
			FellBack:         float64(cc.fellBack),
			Failed:           float64(cc.failed),
			Abandoned:        float64(cc.calls - cc.succeeded - cc.fellBack - cc.failed),
			SuccessRate:      ratio(float64(cc.succeeded), float64(cc.succeeded+cc.fellBack+cc.failed)),
			Attempts:         float64(cc.attempts),
			DependencyCalls:  float64(cc.depCalls),
			Rejections:       float64(cc.rejections),
			Shed:             float64(cc.shed),
			FastFailed:       float64(cc.fastFailed),
			PoolRejected:     float64(cc.poolRejected),
			BulkheadRejected: float64(cc.bulkheadRejected),
		}
		cm.LatencyP50ms, _, cm.LatencyP99ms, _ = cc.lat.percentiles()
		if span > 0 {
			cm.GoodputPerS = round3(cm.Succeeded / span)
		}
		out.calls = append(out.calls, cm)
	}
	for _, f := range c.fleets {
		n := float64(f.ops)
		out.fleets = append(out.fleets, FleetMetrics{Operations: n, Succeeded: float64(f.ok), SuccessRate: ratio(float64(f.ok), n),
			AffectedOperations: float64(f.affected), AffectedSuccessRate: ratio(float64(f.affectedOK), float64(f.affected)),
			DependencyCalls: float64(f.depCalls), Amplification: ratio(float64(f.depCalls), n*m.callsPerOp)})
	}
	for l := s.st.own - 1; l >= 0; l-- {
		if s.st.levels[l].breaker != nil {
			out.outerBreaker = l
		}
	}
	if keepSeries {
		// Copies: the sim's bins are reset for its next run.
		out.bins = new([numBins][]int32)
		for k := range c.bins {
			out.bins[k] = slices.Clone(c.bins[k][:nb])
		}
		out.xbins = make([][]int32, len(c.xbins))
		for k := range c.xbins {
			out.xbins[k] = slices.Clone(c.xbins[k][:nb])
		}
	}
	return out
}

// percentiles returns the 50th, 95th and 99th percentiles (nearest rank:
// the value at index ⌈p·n⌉-1 of the sorted values) and the maximum of xs ≥
// 0, in milliseconds, exactly. A counting pass over logarithmic buckets
// finds the bucket holding each rank; only those buckets' values are then
// selected among. Two linear passes: sorting the latencies of a long run
// would cost more than simulating it.
func percentiles(xs []int64) (p50, p95, p99, mx float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0, 0, 0
	}
	// bucket: the bit length and the next four bits below the top one, so
	// buckets rise with the value.
	bucket := func(x int64) int {
		l := bits.Len64(uint64(x))
		if l <= 5 {
			return int(x)
		}
		return l<<4 | int(uint64(x)>>(l-5)&15)
	}
	var counts [65 << 4]int32
	top := xs[0]
	for _, x := range xs {
		counts[bucket(x)]++
		top = max(top, x)
	}
	value := func(p float64) float64 {
		r := int(rank(p, int64(n)))
		b, below := 0, 0
		for ; below+int(counts[b]) <= r; b++ {
			below += int(counts[b])
		}
		in := make([]int64, 0, counts[b])
		for _, x := range xs {
			if bucket(x) == b {
				in = append(in, x)
			}
		}
		return round3(ms(selectNth(in, r-below)))
	}
	return value(0.50), value(0.95), value(0.99), round3(ms(top))
}

// selectNth reorders xs so that xs[k] is the value a sort would put there,
// with nothing larger before it and nothing smaller after it, and returns it.
func selectNth(xs []int64, k int) int64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		// Median of three as pivot; deterministic, so results never vary.
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// round3 rounds to three decimals, so results print short and stay exact
// across platforms (math.Round is exact everywhere).
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

var stateNames = [...]string{"closed", "half_open", "open"}

// summarize turns the outputs of one strategy over all runs into its result.
func summarize(m *model, st *strategyModel, runs []runOutput, bucket, span int64, withSeries bool) StrategyResult {
	sr := StrategyResult{Name: st.name}
	first := runs[0]
	if len(runs) == 1 {
		sr.Metrics = first.metrics
		sr.Peaks = first.peaks
	} else {
		sr.Metrics, sr.Spread = meanSpread(runs, func(r *runOutput) Metrics { return r.metrics })
		for j, p := range first.peaks {
			var a, b float64
			for _, r := range runs {
				a += r.peaks[j].Attempts
				b += r.peaks[j].Retries
			}
			sr.Peaks = append(sr.Peaks, Peak{p.ResolutionMS, round6(a / float64(len(runs))), round6(b / float64(len(runs)))})
		}
	}
	qs, worst, ths := tail(runs, m.seeds, m.sc)
	if len(runs) > 1 {
		sr.Quantiles, sr.WorstSeeds = qs, worst
	}
	sr.Thresholds = ths
	if m.faultEnd == 0 || st.judged < recoveryWindow {
		// No fault to recover from, or no span to judge recovery in.
		notApplicable(&sr, slices.Sorted(maps.Keys(optionalMetrics()))...)
	}
	if st.own > 1 {
		// The strategy's own levels: the fleets' follow them.
		perLevel := func(get func(*runOutput) []int64) []float64 {
			out := make([]float64, st.own)
			for l := range out {
				var sum float64
				for j := range runs {
					sum += float64(get(&runs[j])[l])
				}
				out[l] = round6(sum / float64(len(runs)))
			}
			return out
		}
		sr.LayerAttempts = perLevel(func(r *runOutput) []int64 { return r.levels })
		sr.LayerRetries = perLevel(func(r *runOutput) []int64 { return r.levelRetries })
		sr.LayerRetriesDenied = perLevel(func(r *runOutput) []int64 { return r.levelDenied })
	}
	for _, t := range first.transitions {
		if len(sr.Transitions) == 1000 {
			break
		}
		if int(t.level) >= st.own {
			continue // a fleet's breaker
		}
		tr := Transition{AtS: round6(float64(t.at) / 1e9), Layer: int(t.level), From: stateNames[t.from], To: stateNames[t.to]}
		if st.levels[t.level].breakerPerDep {
			tr.Dependency = m.deps[t.dep].name
		}
		sr.Transitions = append(sr.Transitions, tr)
	}
	sr.Scaling = scalingEvents(m, first.scaling)
	for i := range first.calls {
		cr := CallResult{Name: m.calls[i].name, Dependency: m.deps[m.calls[i].dep].name, Class: Classes[m.calls[i].class]}
		if len(runs) == 1 {
			cr.Metrics = first.calls[i]
		} else {
			cr.Metrics, cr.Spread = meanSpread(runs, func(r *runOutput) CallMetrics { return r.calls[i] })
		}
		sr.Calls = append(sr.Calls, cr)
	}
	for i := range first.fleets {
		fr := FleetResult{Name: m.fleets[i], Own: i == 0}
		if len(runs) == 1 {
			fr.Metrics = first.fleets[i]
		} else {
			fr.Metrics, fr.Spread = meanSpread(runs, func(r *runOutput) FleetMetrics { return r.fleets[i] })
		}
		sr.Fleets = append(sr.Fleets, fr)
	}
	sr.Backends = backendResults(m, runs)
	if withSeries && first.bins != nil {
		sr.Series = buildSeries(&first, m, bucket, span)
	}
	return sr
}

// notApplicable marks metrics keys of sr as not applying: NaN, without
// spread, quantiles or worst seed, and no threshold crossed on them.
func notApplicable(sr *StrategyResult, keys ...string) {
	v := reflect.ValueOf(&sr.Metrics).Elem()
	t := v.Type()
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); slices.Contains(keys, n) {
			v.Field(i).SetFloat(math.NaN())
		}
	}
	for _, k := range keys {
		delete(sr.Spread, k)
		delete(sr.Quantiles, k)
		delete(sr.WorstSeeds, k)
	}
	for i := range sr.Thresholds {
		if th := &sr.Thresholds[i]; slices.Contains(keys, th.Metric) {
			th.Crossed, th.Share = 0, 0
		}
	}
}

// meanSpread returns the means over runs of the metrics get takes from
// each run, rounded to six decimals, and each metric's minimum and maximum
// (left out for a metric that may be omitted and is 0 in every run, so
// results without the feature it measures do not list it). An Optional
// metric that does not apply on one run does not apply to the mean either
// (NaN, without a range): a recovery time exists only when every run
// recovered.
func meanSpread[T any](runs []runOutput, get func(*runOutput) T) (T, map[string]MinMax) {
	var mean T
	spread := map[string]MinMax{}
	mv := reflect.ValueOf(&mean).Elem()
	vals := make([]reflect.Value, len(runs))
	for j := range runs {
		vals[j] = reflect.ValueOf(get(&runs[j]))
	}
	for i := range mv.NumField() {
		name, opts, _ := strings.Cut(mv.Type().Field(i).Tag.Get("json"), ",")
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, v := range vals {
			x := v.Field(i).Float()
			lo, hi, sum = min(lo, x), max(hi, x), sum+x
		}
		mv.Field(i).SetFloat(round6(sum / float64(len(runs))))
		if lo == 0 && hi == 0 && strings.Contains(opts, "omitempty") {
			continue
		}
		if math.IsNaN(sum) {
			// An Optional metric that does not apply on some run (the
			// recovery time of a run that did not recover): no mean,
			// no range.
			continue
		}
		spread[name] = MinMax{lo, hi}
	}
	return mean, spread
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// RoundMean rounds a mean as a Result's means are rounded: to six
// decimals.
func RoundMean(x float64) float64 { return round6(x) }

// chooseBucket picks a 1-2-5 bucket width giving at most 600 buckets over a
// span of virtual time, unless the scenario set one. The bucket is a multiple
// of base, the coarsest bin width of the runs.
func chooseBucket(m *model, span, base int64) int64 {
	if m.seriesBucket > 0 {
		return (m.seriesBucket + base - 1) / base * base
	}
	for _, b := range []int64{10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 300000, 600000, 1800000, 3600000} {
		b *= int64(time.Millisecond)
		if b%base == 0 && (span+b-1)/b <= 600 {
			return b
		}
	}
	return max(1, (span/600+base-1)/base) * base
}

func buildSeries(r *runOutput, m *model, bucket, span int64) *Series {
	k := int(bucket / r.base)
	n := int((span + bucket - 1) / bucket)
	b := r.bins
	sum := func(kind int) []int32 {
		out := make([]int32, n)
		for i, v := range b[kind][:r.nbins] {
			out[i/k] += v
		}
		return out
	}
	peak := func(kind int) []int32 {
		out := make([]int32, n)
		for i, v := range b[kind][:r.nbins] {
			out[i/k] = max(out[i/k], v)
		}
		return out // after the run ends nothing is queued or in flight
	}
	s := &Series{
		BucketMS:    ms(bucket),
		Attempts:    sum(binCalls),
		Retries:     sum(binRetries),
		Successes:   sum(binOK),
		Failures:    sum(binFail),
		Rejections:  sum(binReject),
		FastFailed:  sum(binFast),
		QueueLength: peak(binQueue),
		InFlight:    peak(binInflight),
	}
	if outer := r.outerBreaker; outer >= 0 {
		s.BreakerState = make([]int8, n)
		var state uint8
		ti := 0
		for i := range n {
			end := int64(i+1) * bucket
			for ti < len(r.transitions) && r.transitions[ti].at < end {
				if t := r.transitions[ti]; int(t.level) == outer && t.dep == 0 {
					state = t.to
				}
				ti++
			}
			s.BreakerState[i] = int8(state)
		}
	}
	for _, res := range m.resolutions {
		w := (span + res - 1) / res
		if res%r.base != 0 || w > 20000 {
			continue // the run's bins are coarser than res, or the list too long
		}
		k := int(res / r.base)
		f := FineSeries{ResolutionMS: ms(res), Attempts: make([]int32, w), Retries: make([]int32, w)}
		for i := range r.nbins {
			f.Attempts[i/k] += b[binCalls][i]
			f.Retries[i/k] += b[binRetries][i]
		}
		s.Fine = append(s.Fine, f)
	}
	xsum := func(bins []int32) []int32 {
		out := make([]int32, n)
		for i, v := range bins[:r.nbins] {
			out[i/k] += v
		}
		return out
	}
	if len(m.calls) > 1 {
		for i := range m.calls {
			s.Calls = append(s.Calls, CallSeries{Name: m.calls[i].name, Attempts: xsum(r.xbins[3*i]),
				Successes: xsum(r.xbins[3*i+1]), Failures: xsum(r.xbins[3*i+2])})
		}
	}
	at := 3 * len(s.Calls) // the fleets' bins follow the calls'
	for i := range m.fleets {
		s.Fleets = append(s.Fleets, CallSeries{Name: m.fleets[i], Attempts: xsum(r.xbins[at+3*i]),
			Successes: xsum(r.xbins[at+3*i+1]), Failures: xsum(r.xbins[at+3*i+2])})
	}
	s.Workers = workerSeries(r, m, bucket, n)
	at += 3 * len(s.Fleets) // a cache's follow the fleets'
	if m.cached {
		c := &CacheSeries{Hits: xsum(r.xbins[at]), Misses: xsum(r.xbins[at+1]), HitRate: make([]float64, n)}
		for i := range n {
			c.HitRate[i] = ratio(float64(c.Hits[i]), float64(c.Hits[i]+c.Misses[i]))
		}
		s.Cache = c
		at += 2
	}
	if len(r.xbins) > at { // the pool's
		s.PoolInUse = make([]int32, n)
		for i, v := range r.xbins[len(r.xbins)-1][:r.nbins] {
			s.PoolInUse[i/k] = max(s.PoolInUse[i/k], v)
		}
	}
	return s
}
