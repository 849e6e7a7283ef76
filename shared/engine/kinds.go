package engine

// The kinds a scenario names. Each is a string type, so the JSON is the
// constant's value.
type (
	// An ArrivalKind says how a workload starts operations (Workload.Arrival).
	ArrivalKind string
	// A ServiceTimeKind is a distribution of service times (Distribution.Kind).
	ServiceTimeKind string
	// A DelayKind is a distribution of network travel times (Delay.Kind).
	DelayKind string
	// A PhaseKind is what a phase does to the dependency (Phase.Kind).
	PhaseKind string
	// A BackoffKind is how the wait grows from retry to retry (Backoff.Kind).
	BackoffKind string
	// A JitterKind is how a wait is randomised (Jitter.Kind).
	JitterKind string
	// A BudgetKind is how a retry budget counts (Budget.Kind).
	BudgetKind string
	// A BudgetCharge is when a token bucket charges (Budget.Charge).
	BudgetCharge string
	// A BudgetShare is what a concurrency budget's ratio is a share of
	// (Budget.ShareOf).
	BudgetShare string
	// A BreakerKind is when a circuit breaker opens (Breaker.Kind).
	BreakerKind string
	// A Placement is what a circuit breaker wraps (Breaker.Placement).
	Placement string
	// A BreakEnd says whether a call at exactly the end of a breaker's
	// open state passes (Breaker.BreakEnd).
	BreakEnd string
	// A HalfOpenDecision is when a half-open breaker decides
	// (Breaker.HalfOpenDecision).
	HalfOpenDecision string
	// A HedgeAfterFailure is what a hedged copy's failure does
	// (Hedging.AfterFailure).
	HedgeAfterFailure string
	// A WindowBuckets is how a breaker's time window counts its
	// outcomes (Breaker.WindowBuckets).
	WindowBuckets string
	// A RetryAfterMode is how an honoured Retry-After sets the wait
	// (RetryAfterUse.Mode).
	RetryAfterMode string
	// A Scope is whose calls a breaker or budget counts (Breaker.Scope,
	// Budget.Scope).
	Scope string
	// A Class is a request's priority for a dependency's load shedding
	// (PlanCall.Class), highest first, as the Google SRE book's
	// criticalities ("Handling Overload").
	Class string
	// A ShedMeasure is what a dependency's shedding thresholds compare
	// with (Shedding.Measure).
	ShedMeasure string
	// A LoadKind is how a load phase changes the arrival rate
	// (LoadPhase.Kind).
	LoadKind string
	// A LatencyLaw is how a dependency's service time grows with its
	// load (LoadLatency.Law).
	LatencyLaw string
	// A LoadMeasure is which requests a dependency's load-dependent
	// latency counts (LoadLatency.Of).
	LoadMeasure string
	// A RateLimitKind is a client-side rate limiter (RateLimit.Kind).
	RateLimitKind string
	// A QueueDiscipline is the order in which a dependency's workers take
	// queued requests, and which it drops (Dependency.QueueDiscipline).
	QueueDiscipline string
	// A ScriptThen is what a dependency's script does once a list of
	// answers has run out (Script.Then).
	ScriptThen string
	// A BalancerKind is how a load balancer picks a dependency's backend
	// (Backends.Balancer).
	BalancerKind string
	// A RetryHostPredicate is which backends a retry avoids
	// (Policy.RetryHostPredicate).
	RetryHostPredicate string
	// An AutoscaleMetric is what a dependency's autoscaler tracks
	// (Autoscale.Metric).
	AutoscaleMetric string
	// A KeyLaw is how popular each key of a cache's key space is
	// (KeySpace.Law).
	KeyLaw string
	// A CacheFill is when a dependency's answer fills its cache
	// (Cache.Fill).
	CacheFill string
)

const (
	ArrivalPoisson ArrivalKind = "poisson"
	ArrivalUniform ArrivalKind = "uniform"
	ArrivalClosed  ArrivalKind = "closed"
	ArrivalBurst   ArrivalKind = "burst"
)

const (
	LoadStep  LoadKind = "step"
	LoadRamp  LoadKind = "ramp"
	LoadDaily LoadKind = "daily"
	LoadSpike LoadKind = "spike"
	LoadFlash LoadKind = "flash"
)

const (
	LawLinear      LatencyLaw = "linear"
	LawPolynomial  LatencyLaw = "polynomial"
	LawExponential LatencyLaw = "exponential"
	LawUSL         LatencyLaw = "usl"
)

const (
	MeasureInService LoadMeasure = "in_service"
	MeasureInSystem  LoadMeasure = "in_system"
)

const (
	ServiceConstant    ServiceTimeKind = "constant"
	ServiceExponential ServiceTimeKind = "exponential"
	ServiceLognormal   ServiceTimeKind = "lognormal"
)

const (
	DelayConstant  DelayKind = "constant"
	DelayNormal    DelayKind = "normal"
	DelayLognormal DelayKind = "lognormal"
)

const (
	PhaseFreeze   PhaseKind = "freeze"
	PhaseOutage   PhaseKind = "outage"
	PhaseCapacity PhaseKind = "capacity"
	PhaseErrors   PhaseKind = "errors"
	PhaseLatency  PhaseKind = "latency"
	// PhaseFlush empties the dependency's cache at the phase's start.
	PhaseFlush PhaseKind = "flush"
)

const (
	BackoffNone        BackoffKind = "none"
	BackoffConstant    BackoffKind = "constant"
	BackoffLinear      BackoffKind = "linear"
	BackoffExponential BackoffKind = "exponential"
)

const (
	JitterNone         JitterKind = "none"
	JitterFull         JitterKind = "full"
	JitterEqual        JitterKind = "equal"
	JitterDecorrelated JitterKind = "decorrelated"
	JitterProportional JitterKind = "proportional"
	JitterAdditive     JitterKind = "additive"
)

const (
	BudgetTokenBucket BudgetKind = "token_bucket"
	BudgetRatio       BudgetKind = "ratio"
	BudgetConcurrency BudgetKind = "concurrency"
)

// When a token bucket charges a retry's cost (Budget.Charge).
const (
	ChargeFailure BudgetCharge = "failure"
	ChargeRetry   BudgetCharge = "retry"
)

// What a concurrency budget's ratio is a share of (Budget.ShareOf).
const (
	ShareExecutions BudgetShare = "executions"
	ShareAttempts   BudgetShare = "attempts"
)

const (
	BreakerConsecutive BreakerKind = "consecutive"
	BreakerRatio       BreakerKind = "ratio"
)

const (
	BreakInclusive BreakEnd = "inclusive"
	BreakStrict    BreakEnd = "strict"
)

const (
	HalfOpenEarly     HalfOpenDecision = "early"
	HalfOpenAllTrials HalfOpenDecision = "all_trials"
)

const (
	HedgeSendNow  HedgeAfterFailure = "send"
	HedgeWaitNext HedgeAfterFailure = "wait"
)

const (
	WindowExact        WindowBuckets = "exact"
	WindowEpochSeconds WindowBuckets = "epoch_seconds"
)

const (
	RetryAfterAtLeast         RetryAfterMode = "at_least"
	RetryAfterReplace         RetryAfterMode = "replace"
	RetryAfterReplaceAndReset RetryAfterMode = "replace_and_reset"
)

const (
	PlaceInside  Placement = "inside"
	PlaceOutside Placement = "outside"
)

const (
	ScopeDependency Scope = "dependency"
	ScopeClient     Scope = "client"
)

const (
	ClassCriticalPlus  Class = "critical_plus"
	ClassCritical      Class = "critical"
	ClassSheddablePlus Class = "sheddable_plus"
	ClassSheddable     Class = "sheddable"
)

const (
	ShedQueue ShedMeasure = "queue"
	ShedLoad  ShedMeasure = "load"
)

const (
	QueueFIFO         QueueDiscipline = "fifo"
	QueueLIFO         QueueDiscipline = "lifo"
	QueueCoDel        QueueDiscipline = "codel"
	QueueAdaptiveLIFO QueueDiscipline = "adaptive-lifo"
)

// CoDelDisciplines are the queue disciplines that a dependency's codel
// (its target and interval) sets; the validator refuses it with the others.
var CoDelDisciplines = []QueueDiscipline{QueueCoDel, QueueAdaptiveLIFO}

const (
	KeysZipf    KeyLaw = "zipf"
	KeysUniform KeyLaw = "uniform"
)

const (
	// FillReadThrough: the cache stores every successful answer of the
	// dependency, whether or not its caller still waits (a caching proxy).
	FillReadThrough CacheFill = "read_through"
	// FillLookAside: the client stores the answer it got, so an answer
	// nobody waits for any more is not stored (a look-aside cache).
	FillLookAside CacheFill = "look_aside"
)

const (
	ThenServe  ScriptThen = "serve"
	ThenRepeat ScriptThen = "repeat"
	ThenLast   ScriptThen = "last"
)

const (
	BalanceRoundRobin   BalancerKind = "round_robin"
	BalanceRandom       BalancerKind = "random"
	BalanceLeastRequest BalancerKind = "least_request"
	BalancePowerOfTwo   BalancerKind = "power_of_two_choices"
)

const HostPreviousHosts RetryHostPredicate = "previous_hosts"

const (
	// MetricUtilization is the share of the workers busy serving a
	// request (Kubernetes' CPU utilization, AWS's
	// ASGAverageCPUUtilization): at most 1.
	MetricUtilization AutoscaleMetric = "utilization"
	// MetricQueuePerWorker is the requests waiting in the queue per
	// worker (AWS's "backlog per instance" for a queue's consumers).
	MetricQueuePerWorker AutoscaleMetric = "queue_per_worker"
)

const (
	RateLimitAWSAdaptive RateLimitKind = "aws-adaptive"
	RateLimitFixedWindow RateLimitKind = "fixed-window"
)

// The lists of kinds, each in the order forms offer them. The validator
// accepts exactly these; the playground's form, descriptions and converters
// read them from here (through Vocabulary in the browser).
var (
	ArrivalKinds        = []ArrivalKind{ArrivalPoisson, ArrivalUniform, ArrivalClosed, ArrivalBurst}
	ServiceTimeKinds    = []ServiceTimeKind{ServiceConstant, ServiceExponential, ServiceLognormal}
	DelayKinds          = []DelayKind{DelayConstant, DelayNormal, DelayLognormal}
	PhaseKinds          = []PhaseKind{PhaseFreeze, PhaseOutage, PhaseCapacity, PhaseErrors, PhaseLatency, PhaseFlush}
	LoadKinds           = []LoadKind{LoadStep, LoadRamp, LoadDaily, LoadSpike, LoadFlash}
	LatencyLaws         = []LatencyLaw{LawLinear, LawPolynomial, LawExponential, LawUSL}
	LoadMeasures        = []LoadMeasure{MeasureInService, MeasureInSystem}
	BackoffKinds        = []BackoffKind{BackoffNone, BackoffConstant, BackoffLinear, BackoffExponential}
	JitterKinds         = []JitterKind{JitterNone, JitterFull, JitterEqual, JitterDecorrelated, JitterProportional, JitterAdditive}
	BudgetKinds         = []BudgetKind{BudgetTokenBucket, BudgetRatio, BudgetConcurrency}
	BudgetCharges       = []BudgetCharge{ChargeFailure, ChargeRetry}
	BudgetShares        = []BudgetShare{ShareExecutions, ShareAttempts}
	BreakerKinds        = []BreakerKind{BreakerConsecutive, BreakerRatio}
	Placements          = []Placement{PlaceInside, PlaceOutside}
	Scopes              = []Scope{ScopeDependency, ScopeClient}
	Classes             = []Class{ClassCriticalPlus, ClassCritical, ClassSheddablePlus, ClassSheddable}
	ShedMeasures        = []ShedMeasure{ShedQueue, ShedLoad}
	ScriptThens         = []ScriptThen{ThenServe, ThenRepeat, ThenLast}
	QueueDisciplines    = []QueueDiscipline{QueueFIFO, QueueLIFO, QueueCoDel, QueueAdaptiveLIFO}
	BreakEnds           = []BreakEnd{BreakInclusive, BreakStrict}
	HalfOpenDecisions   = []HalfOpenDecision{HalfOpenEarly, HalfOpenAllTrials}
	WindowBucketings    = []WindowBuckets{WindowExact, WindowEpochSeconds}
	HedgeAfterFailures  = []HedgeAfterFailure{HedgeSendNow, HedgeWaitNext}
	RetryAfterModes     = []RetryAfterMode{RetryAfterAtLeast, RetryAfterReplace, RetryAfterReplaceAndReset}
	RateLimitKinds      = []RateLimitKind{RateLimitAWSAdaptive, RateLimitFixedWindow}
	BalancerKinds       = []BalancerKind{BalanceRoundRobin, BalanceRandom, BalanceLeastRequest, BalancePowerOfTwo}
	RetryHostPredicates = []RetryHostPredicate{HostPreviousHosts}
	AutoscaleMetrics    = []AutoscaleMetric{MetricUtilization, MetricQueuePerWorker}
	KeyLaws             = []KeyLaw{KeysZipf, KeysUniform}
	CacheFills          = []CacheFill{FillReadThrough, FillLookAside}
)

// PhaseFields names the fields each kind of phase takes besides kind, from,
// to and label; the validator refuses the others.
var PhaseFields = map[PhaseKind][]string{
	PhaseFreeze:   {"status"},
	PhaseOutage:   {"status", "error", "latency"},
	PhaseCapacity: {"workers"},
	PhaseErrors:   {"rate", "status", "error", "latency"},
	PhaseLatency:  {"factor"},
	PhaseFlush:    {},
}

// LoadFields names the fields each kind of load phase takes besides kind,
// from, to and label; the validator refuses the others.
var LoadFields = map[LoadKind][]string{
	LoadStep:  {"factor"},
	LoadRamp:  {"factor"},
	LoadDaily: {"amplitude", "period"},
	LoadSpike: {"rate"},
	LoadFlash: {"operations"},
}

// LatencyLawFields names the fields each law of load-dependent latency
// takes besides law, of and max_factor; the validator refuses the others.
var LatencyLawFields = map[LatencyLaw][]string{
	LawLinear:      {"slope", "knee"},
	LawPolynomial:  {"slope", "knee", "power"},
	LawExponential: {"slope", "knee"},
	LawUSL:         {"sigma", "kappa"},
}

// DelayFields names the fields each kind of network delay takes besides
// kind; the validator refuses the others.
var DelayFields = map[DelayKind][]string{
	DelayConstant:  {"mean"},
	DelayNormal:    {"mean", "stddev"},
	DelayLognormal: {"p50", "p99"},
}

// ServiceTimeFields names the fields each kind of service time takes
// besides kind.
var ServiceTimeFields = map[ServiceTimeKind][]string{
	ServiceConstant:    {"mean"},
	ServiceExponential: {"mean"},
	ServiceLognormal:   {"p50", "p99"},
}

// JitterFields names the fields each kind of jitter takes besides kind; the
// validator refuses the others.
var JitterFields = map[JitterKind][]string{
	JitterProportional: {"fraction"},
	JitterAdditive:     {"amount"},
}

// A Vocabulary is every list of kinds, for a form or a converter.
type Vocabulary struct {
	Arrivals            []ArrivalKind                `json:"arrivals"`
	ServiceTimes        []ServiceTimeKind            `json:"service_times"`
	ServiceTimeFields   map[ServiceTimeKind][]string `json:"service_time_fields"`
	Delays              []DelayKind                  `json:"delays"`
	DelayFields         map[DelayKind][]string       `json:"delay_fields"`
	Phases              []PhaseKind                  `json:"phases"`
	PhaseFields         map[PhaseKind][]string       `json:"phase_fields"`
	Backoffs            []BackoffKind                `json:"backoffs"`
	Jitters             []JitterKind                 `json:"jitters"`
	JitterFields        map[JitterKind][]string      `json:"jitter_fields"`
	Budgets             []BudgetKind                 `json:"budgets"`
	BudgetCharges       []BudgetCharge               `json:"budget_charges"`
	BudgetShares        []BudgetShare                `json:"budget_shares"`
	Breakers            []BreakerKind                `json:"breakers"`
	BreakEnds           []BreakEnd                   `json:"break_ends"`
	HalfOpenDecisions   []HalfOpenDecision           `json:"half_open_decisions"`
	WindowBucketings    []WindowBuckets              `json:"window_buckets"`
	HedgeAfterFailures  []HedgeAfterFailure          `json:"hedge_after_failures"`
	Placements          []Placement                  `json:"placements"`
	RetryAfterModes     []RetryAfterMode             `json:"retry_after_modes"`
	Scopes              []Scope                      `json:"scopes"`
	Classes             []Class                      `json:"classes"`
	ShedMeasures        []ShedMeasure                `json:"shed_measures"`
	ScriptThens         []ScriptThen                 `json:"script_thens"`
	QueueDisciplines    []QueueDiscipline            `json:"queue_disciplines"`
	Loads               []LoadKind                   `json:"loads"`
	LoadFields          map[LoadKind][]string        `json:"load_fields"`
	LatencyLaws         []LatencyLaw                 `json:"latency_laws"`
	LatencyLawFields    map[LatencyLaw][]string      `json:"latency_law_fields"`
	LoadMeasures        []LoadMeasure                `json:"load_measures"`
	RateLimits          []RateLimitKind              `json:"rate_limits"`
	Balancers           []BalancerKind               `json:"balancers"`
	RetryHostPredicates []RetryHostPredicate         `json:"retry_host_predicates"`
	AutoscaleMetrics    []AutoscaleMetric            `json:"autoscale_metrics"`
	KeyLaws             []KeyLaw                     `json:"key_laws"`
	CacheFills          []CacheFill                  `json:"cache_fills"`
}

// Kinds returns the vocabulary of scenarios.
func Kinds() Vocabulary {
	return Vocabulary{ArrivalKinds, ServiceTimeKinds, ServiceTimeFields, DelayKinds, DelayFields, PhaseKinds, PhaseFields, BackoffKinds, JitterKinds, JitterFields,
		BudgetKinds, BudgetCharges, BudgetShares, BreakerKinds, BreakEnds, HalfOpenDecisions, WindowBucketings, HedgeAfterFailures, Placements, RetryAfterModes,
		Scopes, Classes, ShedMeasures, ScriptThens, QueueDisciplines, LoadKinds, LoadFields, LatencyLaws, LatencyLawFields, LoadMeasures, RateLimitKinds, BalancerKinds, RetryHostPredicates,
		AutoscaleMetrics, KeyLaws, CacheFills}
}
