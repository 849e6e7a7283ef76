package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Version is the scenario format version this engine reads.
const Version = 1

// A Scenario describes one experiment: a workload, a dependency and the client
// strategies to compare on them. It is the JSON document users write, share and
// store; Decode reads it strictly and Validate checks it.
type Scenario struct {
	Version     int      `json:"version"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Seed        int64    `json:"seed,omitempty"`
	Runs        int      `json:"runs,omitempty"`
	Seeds       []int64  `json:"seeds,omitempty"`
	Workload    Workload `json:"workload"`
	// Dependency is the one dependency of a scenario that has one; a
	// scenario with several lists them in Dependencies instead (never both).
	Dependency   Dependency   `json:"dependency,omitzero"`
	Dependencies []Dependency `json:"dependencies,omitempty"`
	Strategies   []Strategy   `json:"strategies"`
	Sweep        *Sweep       `json:"sweep,omitempty"`
	// Search looks for the best settings of one strategy (see Search);
	// a scenario has a sweep or a search, not both.
	Search *Search `json:"search,omitempty"`
	Report Report  `json:"report,omitzero"`
}

// A Workload says when operations start. Arrival is one of "poisson" (the
// default: open loop, exponential gaps at the total rate), "uniform" (evenly
// spaced at the total rate from t = 0, the clients taking turns), "closed" (each client
// starts its next operation ThinkTime after the previous one ends) or "burst"
// (every client starts one operation at BurstAt).
type Workload struct {
	Clients       int         `json:"clients"`
	Arrival       ArrivalKind `json:"arrival,omitempty"`
	Rate          float64     `json:"rate,omitempty"`
	RatePerClient float64     `json:"rate_per_client,omitempty"`
	ThinkTime     Duration    `json:"think_time,omitzero"`
	BurstAt       Duration    `json:"burst_at,omitzero"`
	Duration      Duration    `json:"duration,omitzero"`
	Operations    int         `json:"operations,omitempty"`
	Mix           Mix         `json:"mix,omitzero"`
	// Plan is what an operation calls: its steps run in sequence, the
	// calls of a step in parallel. Without a plan an operation makes one
	// call to the only dependency; with several dependencies a plan is
	// required.
	Plan []Step `json:"plan,omitempty"`
	// Load changes the arrival rate of "poisson" arrivals over time: a
	// step, a ramp, a spike on top, a flash crowd, a daily curve (see
	// LoadPhase). Without it the rate holds for the whole duration.
	Load []LoadPhase `json:"load,omitempty"`
	// Fleets are other client populations calling the same dependencies,
	// each with its own policy, which every compared strategy leaves as it
	// is: the strategies replace the policy of this workload's own
	// clients (the fleet named Fleet) only. See Fleet.
	Fleet  string  `json:"fleet,omitempty"`
	Fleets []Fleet `json:"fleets,omitempty"`
}

// A Fleet is a population of clients beside the workload's own, with its
// own size, rate and policy (an old SDK retrying five times beside a
// well-behaved service). Its operations arrive as the workload's do
// ("poisson" arrivals, over the same duration, with the same mix and
// plan), at its own rate, and the load phases scale every fleet's rate
// alike (extra rates are shared in proportion to the fleets' rates). The
// workload's Clients and Rate are its own clients'; a strategy compared
// in the scenario is their policy, and each fleet keeps its own policy
// (and layers) in every run: so a run shows whether one fleet's retries
// take everyone down, and whether changing only the workload's own
// policy is enough. Results count every fleet's operations, and each
// fleet's apart (StrategyResult.Fleets).
type Fleet struct {
	Name          string  `json:"name"`
	Description   string  `json:"description,omitempty"`
	Clients       int     `json:"clients"`
	Rate          float64 `json:"rate,omitempty"`
	RatePerClient float64 `json:"rate_per_client,omitempty"`
	Policy
	Layers []Policy `json:"layers,omitempty"`
}

// DefaultFleet names the workload's own clients among fleets.
const DefaultFleet = "clients"

// MaxFleets is the most fleets a workload may have besides its own clients.
const MaxFleets = 8

// A LoadPhase changes the workload's arrival rate during [From, To), for
// "poisson" arrivals over a duration. Kind is one of:
//
//   - "step": the rate is multiplied by Factor (above 1 a load increase,
//     below 1 load shed, 0 none at all).
//   - "ramp": the multiplier grows (or falls) linearly from 1 at From to
//     Factor at To; after To it is 1 again (a step after it holds the
//     new rate).
//   - "daily": the rate is multiplied by 1 + Amplitude·sin(2π(t−From)/Period),
//     a day's curve (Period 24h, or shorter to see several cycles).
//   - "spike": Rate more operations per second arrive, at random, on top of
//     the others (a burst of traffic).
//   - "flash": Operations more operations arrive, most of them at once:
//     their rate starts at 2·Operations/(To−From) and falls linearly to 0
//     at To, as the clients that a failover sends here reconnect, the
//     stragglers last. The crowd is new load, not retries: its
//     operations are first attempts, retried by the strategy like any.
//
// Where phases overlap their multipliers multiply and their extra rates
// add. A step or ramp above 1, a spike and a flash crowd raise the load:
// they are the scenario's trigger, as the dependency's harmful phases
// are, for the affected window, recovery and probes (Huang et al., OSDI
// 2022: load increases are one of the two trigger classes of metastable
// failures); a daily curve is the load's own shape and is not.
type LoadPhase struct {
	Kind       LoadKind `json:"kind"`
	From       Duration `json:"from"`
	To         Duration `json:"to"`
	Label      string   `json:"label,omitempty"`
	Factor     float64  `json:"factor,omitempty"`
	Rate       float64  `json:"rate,omitempty"`
	Operations int      `json:"operations,omitempty"`
	Amplitude  float64  `json:"amplitude,omitempty"`
	Period     Duration `json:"period,omitzero"`
}

// Raises reports whether the phase raises the load: a trigger.
func (lp *LoadPhase) Raises() bool {
	switch lp.Kind {
	case LoadStep, LoadRamp:
		return lp.Factor > 1
	case LoadSpike, LoadFlash:
		return true
	}
	return false
}

// A Step of a plan: its calls start together, and the step ends when all
// of them have ended.
type Step struct {
	Calls []PlanCall `json:"calls"`
}

// A PlanCall is one call of an operation to one dependency, through the
// strategy's whole policy chain. Name (default: the dependency's name)
// tells the plan's calls apart in results and must be unique. Share, when
// given, is the probability in (0, 1] that an operation makes the call
// (drawn per operation, the same for every strategy): a page mix, such as
// one page in four being a checkout. A call that fails makes the operation
// fail, unless the strategy has a fallback for it.
type PlanCall struct {
	Name       string   `json:"name,omitempty"`
	Dependency string   `json:"dependency"`
	Class      Class    `json:"class,omitempty"`
	Share      *float64 `json:"share,omitempty"`
}

// A Fallback answers in the client's place (a cached or empty answer) when
// the plan call named Call fails, after Latency: the operation goes on,
// degraded instead of failed (Polly's fallback strategy, resilience4j's
// fallbackMethod, failsafe-go's fallback).
type Fallback struct {
	Call    string   `json:"call"`
	Latency Duration `json:"latency,omitzero"`
}

// A Mix gives the shares of operations with special properties. Each share is a
// probability in [0, 1], drawn per operation from the run's seed.
type Mix struct {
	// NonIdempotent is the share of operations that must not be applied twice
	// (a payment POST).
	NonIdempotent float64 `json:"non_idempotent,omitempty"`
	// Keyed is the share of non-idempotent operations sent with an idempotency
	// key regardless of the strategy.
	Keyed float64 `json:"keyed,omitempty"`
	// Unreadable is the share of operations (messages) a consumer cannot parse:
	// they fail at once without reaching the dependency.
	Unreadable float64 `json:"unreadable,omitempty"`
}

// A Dependency is the struggling service at the bottom of every call chain:
// Workers serve a queue of QueueCapacity, FIFO unless QueueDiscipline
// says otherwise; a full queue answers QueueFullStatus at once. Statuses
// left 0 are DefaultStatus.
type Dependency struct {
	// Name names a dependency among several (required there); the one
	// dependency of a scenario may leave it out.
	Name            string       `json:"name,omitempty"`
	Workers         int          `json:"workers"`
	ServiceTime     Distribution `json:"service_time"`
	QueueCapacity   int          `json:"queue_capacity"`
	QueueFullStatus int          `json:"queue_full_status,omitempty"`
	// QueueDiscipline is the order in which free workers take queued
	// requests, and which queued requests the dependency drops; a drop is
	// answered as a full queue answers (QueueFullStatus, at once). One of
	// QueueDisciplines:
	//
	//   - "fifo" (the default): oldest first, no drop.
	//   - "lifo": newest first, no drop.
	//   - "codel": oldest first, with CoDel's drops (Nichols and
	//     Jacobson, "Controlling Queue Delay", ACM Queue 10(5), 2012, and
	//     its pseudocode appendix): each request is stamped when queued,
	//     and a worker taking one computes its sojourn time. Once the
	//     sojourn times of the requests taken have stayed at or above
	//     Target for Interval, CoDel may drop; it enters its drop state
	//     when it may and either its last planned drop is less than
	//     Interval ago or the sojourn times have stayed above for one
	//     Interval more (the appendix's test). Entering, it drops the
	//     request taken and takes the next; in the drop state the k-th
	//     drop comes Interval/√k after the previous one, until a request
	//     taken has waited less than Target or leaves the queue empty. A
	//     drop state entered within Interval of the last planned drop
	//     starts from the previous count less 2, otherwise from 1. Open
	//     in the source, our reading: the dependency's requests are
	//     packets of one size, so "less than one packet queued" is a
	//     queue left empty; the queue is looked at only when a worker is
	//     free to take a request (CoDel runs at dequeue), so requests are
	//     dropped no sooner than that, and a freeze, which stops the
	//     workers, stops the drops.
	//   - "adaptive-lifo": Facebook's adaptive LIFO with its controlled
	//     delay (Maurer, "Fail at Scale", ACM Queue 13(8), 2015): a
	//     request queued when the queue has not been empty for the last
	//     Interval (N) may wait Target (M), otherwise Interval; workers
	//     take the oldest request first, but the newest while the queue
	//     has not been empty for the last Interval. Open in the source,
	//     our reading: the queue is "congested", and LIFO, on the same
	//     test that chooses the short timeout; a request past its time
	//     is dropped when a worker would take it (Apache Thrift's C++
	//     ThreadManager finds a task expired when a worker takes it), so
	//     under LIFO the oldest wait, past their time, until the queue
	//     drains down to them or a freeze's end flushes it.
	//
	// A queue discipline acts on the queue only: a request that finds a
	// worker free is served at once, whatever the discipline.
	QueueDiscipline QueueDiscipline `json:"queue_discipline,omitempty"`
	// CoDel sets the "codel" and "adaptive-lifo" disciplines' Target and
	// Interval (both sources' 5 ms and 100 ms when left out).
	CoDel *CoDel `json:"codel,omitempty"`
	// RateLimit is a token bucket in front of the dependency answering
	// 429 with a computed Retry-After (see ServerRateLimit).
	RateLimit *ServerRateLimit `json:"rate_limit,omitempty"`
	// ConcurrencyLimit refuses, answering 503 at once, the requests beyond
	// an adaptive limit on those the dependency has taken on and not
	// answered; the limit follows AIMD (see ConcurrencyLimit).
	ConcurrencyLimit *ConcurrencyLimit `json:"concurrency_limit,omitempty"`
	// DropAbandoned makes the dependency skip queued requests whose caller has
	// already given up. By default it serves them: that is wasted work.
	DropAbandoned bool        `json:"drop_abandoned,omitempty"`
	ErrorRate     float64     `json:"error_rate,omitempty"`
	ErrorStatus   int         `json:"error_status,omitempty"`
	LoadErrors    *LoadErrors `json:"load_errors,omitempty"`
	// LoadLatency makes service times grow with the dependency's load.
	LoadLatency *LoadLatency `json:"load_latency,omitempty"`
	RetryAfter  *RetryAfter  `json:"retry_after,omitempty"`
	Phases      []Phase      `json:"phases,omitempty"`
	// Network is how long calls take to travel, on every hop: from a
	// level to the next (a layer, or the dependency) and back. Without it
	// calls travel in no time.
	Network *Network `json:"network,omitempty"`
	// Contention makes every call an optimistic-concurrency update of one
	// shared row: a read of its version, then a write that commits only if
	// no other write committed in between. Without it calls do not conflict.
	Contention *Contention `json:"contention,omitempty"`
	// Shedding refuses requests of lower classes early, when the
	// dependency is loaded, to keep serving the higher ones.
	Shedding *Shedding `json:"shedding,omitempty"`
	// Script answers calls from a list instead of serving them: a
	// replayed incident, or a test's scripted outcomes.
	Script *Script `json:"script,omitempty"`
	// Backends makes the dependency several identical backends behind a
	// load balancer, each sized as above: see Backends.
	Backends *Backends `json:"backends,omitempty"`
	// Autoscale adds and removes workers, or backends when the dependency
	// has Backends, toward a target (see Autoscale); without it they
	// change only by capacity phases.
	Autoscale *Autoscale `json:"autoscale,omitempty"`
	// Cache answers the calls it holds an answer for before they reach
	// the dependency (cache.go). Without it every call reaches it.
	Cache *Cache `json:"cache,omitempty"`
}

// A Script answers the calls that reach a dependency from a list, in
// order, instead of serving them: each scripted answer is given after its
// Latency, with no worker and no queue, whatever the phases, the error
// rates, the shedding and the idempotency keys, like an outage's answer
// (a scripted success does not apply the operation). Give one of:
//
//   - Answers: the k-th call that reaches the dependency in a run (all
//     operations, in arrival order) gets Answers[k], as in a log of an
//     incident's answers;
//   - Operations: operation n (the n-th started in the run, from 0) gets
//     Operations[n]: its k-th call to the dependency (its plan call's
//     k-th, counted at the send) gets Operations[n][k], as in a test's
//     "call 3 fails twice, then succeeds". Operations past the list, and
//     those with an empty list, are served as usual.
//
// Then says what a list that has run out does: "serve" (the default)
// serves the calls as usual, "repeat" starts the list over, "last" gives
// its last answer again.
type Script struct {
	Answers    []Answer   `json:"answers,omitempty"`
	Operations [][]Answer `json:"operations,omitempty"`
	Then       ScriptThen `json:"then,omitempty"`
}

// An Answer of a Script: Status (200 is a success, any other status a
// failure) or, with Error "connection", a connection error, after Latency
// (at once when 0).
type Answer struct {
	Status  int      `json:"status,omitempty"`
	Error   string   `json:"error,omitempty"`
	Latency Duration `json:"latency,omitzero"`
}

// Shedding is a dependency's priority load shedding: a request whose class
// has a threshold is answered Status (default DefaultStatus) at once,
// without being queued, when Measure is at or above that threshold.
// Measure is "queue" (requests waiting) or "load" (requests in service and
// waiting). A class without a threshold is refused only by a full queue.
type Shedding struct {
	Measure    ShedMeasure   `json:"measure"`
	Thresholds map[Class]int `json:"thresholds"`
	Status     int           `json:"status,omitempty"`
}

// Contention is the resource of Brooker's simulator
// (aws-samples/aws-arch-backoff-simulator): one row with a version. Each
// call first reads the version (a round trip of its own over the network,
// answered at once, using no worker), then sends the write, which is queued
// and served like any call; when its service ends it commits if the version
// is still the one it read, and otherwise fails with Status (default 409)
// without being applied. Status must be in the strategy's retry_on for the
// conflict to be retried.
type Contention struct {
	Status int `json:"status,omitempty"`
}

// A Network gives the travel time of every hop's request leg (caller to
// callee) and answer leg (back), each drawn per call and leg. A leg left
// out takes no time.
type Network struct {
	Request Delay `json:"request,omitzero"`
	Answer  Delay `json:"answer,omitzero"`
}

// A Delay is a distribution of travel times: "constant" Mean; "normal" Mean
// and Stddev, a draw below 0 counting as 0; "lognormal" fitted to P50 and
// P99, as service times are. Kind is one of DelayKinds.
type Delay struct {
	Kind   DelayKind `json:"kind"`
	Mean   Duration  `json:"mean,omitzero"`
	Stddev Duration  `json:"stddev,omitzero"`
	P50    Duration  `json:"p50,omitzero"`
	P99    Duration  `json:"p99,omitzero"`
}

// A Distribution of service times: "constant" and "exponential" use Mean;
// "lognormal" is fitted to P50 and P99.
type Distribution struct {
	Kind ServiceTimeKind `json:"kind"`
	Mean Duration        `json:"mean,omitzero"`
	P50  Duration        `json:"p50,omitzero"`
	P99  Duration        `json:"p99,omitzero"`
}

// LoadErrors makes the failure probability of each call depend on the load
// offered to the dependency (calls per second over the last Window), by linear
// interpolation between Points sorted by load; outside them the nearest point's
// rate holds.
type LoadErrors struct {
	Window Duration    `json:"window,omitzero"`
	Status int         `json:"status,omitempty"`
	Points []LoadPoint `json:"points"`
}

// LoadLatency makes the dependency slower as it gets busier (garbage
// collection under memory pressure, lock contention): each service time
// drawn is multiplied by a factor of N, the requests at the dependency
// when the service starts: those in service, the one starting included
// (Of "in_service", the default), or those and the queued ones (Of
// "in_system": every request the server holds in memory). The factor is
// at most MaxFactor (DefaultLoadLatencyMax when 0) and never below 1.
// With x = N/workers (1 when every worker is busy), Law is one of:
//
//   - "linear": 1 + Slope·max(0, x − Knee);
//   - "polynomial": 1 + Slope·max(0, x − Knee)^Power;
//   - "exponential": e^(Slope·max(0, x − Knee));
//   - "usl": 1 + Sigma·(N−1) + Kappa·N·(N−1), the Universal Scalability
//     Law (Gunther, Guerrilla Capacity Planning, 2007, ch. 4): N
//     concurrent requests each take that much longer, for contention
//     (Sigma) and coherency (Kappa), so that the throughput of N,
//     N/(1 + Sigma·(N−1) + Kappa·N·(N−1)) service times, peaks at
//     N = √((1−Sigma)/Kappa) and falls beyond it.
type LoadLatency struct {
	Law       LatencyLaw  `json:"law"`
	Of        LoadMeasure `json:"of,omitempty"`
	Knee      float64     `json:"knee,omitempty"`
	Slope     float64     `json:"slope,omitempty"`
	Power     float64     `json:"power,omitempty"`
	Sigma     float64     `json:"sigma,omitempty"`
	Kappa     float64     `json:"kappa,omitempty"`
	MaxFactor float64     `json:"max_factor,omitempty"`
}

// A LoadPoint maps an offered load in calls per second to a failure probability.
type LoadPoint struct {
	Load float64 `json:"load"`
	Rate float64 `json:"rate"`
}

// RetryAfter attaches a Retry-After of After to every answer with one of
// Statuses. A negative After is a server pushback asking the client not to
// retry (gRPC's grpc-retry-pushback-ms below 0): levels whose retry_after
// mode replaces the backoff stop retrying, the others ignore it.
type RetryAfter struct {
	Statuses []int    `json:"statuses"`
	After    Duration `json:"after"`
}

// A Phase changes the dependency during [From, To). Kind is one of:
//
//   - "freeze": requests are accepted and held, nothing is answered and work in
//     service pauses; at To the backlog is answered with Status, or served when
//     Status is 0.
//   - "outage": every call is answered with Status (or a connection error when
//     Error is "connection") after Latency.
//   - "capacity": the number of workers becomes Workers.
//   - "errors": each call fails with probability Rate, answered like an outage.
//   - "latency": service times are multiplied by Factor.
//
// In a dependency with backends a phase hits every backend, or only those
// it selects: Backends lists their indexes (from 0), BackendShare selects
// the first ⌈BackendShare·count⌉ of them. A backend crash is an outage
// phase with no latency (fast errors, or "connection" for a refused
// connection).
type Phase struct {
	Kind    PhaseKind `json:"kind"`
	From    Duration  `json:"from"`
	To      Duration  `json:"to"`
	Label   string    `json:"label,omitempty"`
	Status  int       `json:"status,omitempty"`
	Error   string    `json:"error,omitempty"`
	Latency Duration  `json:"latency,omitzero"`
	Workers int       `json:"workers,omitempty"`
	Rate    float64   `json:"rate,omitempty"`
	Factor  float64   `json:"factor,omitempty"`
	// Backends and BackendShare select the backends the phase hits.
	Backends     []int   `json:"backends,omitempty"`
	BackendShare float64 `json:"backend_share,omitempty"`
}

// A Strategy is a named client policy. Layers are the policies of the services
// (or nested in-process policies, such as an SDK inside an application loop)
// between the client and the dependency, outermost first: each attempt of a
// level is one invocation of the level below.
type Strategy struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Policy
	Layers []Policy `json:"layers,omitempty"`
	// Pool is the client's shared pool of concurrent calls (threads,
	// connections), per instance; without it calls are not limited.
	Pool *Pool `json:"pool,omitempty"`
	// Bulkheads limit the concurrent calls to one dependency each, per
	// instance, within the pool.
	Bulkheads []Bulkhead `json:"bulkheads,omitempty"`
	// Fallbacks answer for failed calls of the plan, at most one per call.
	Fallbacks []Fallback `json:"fallbacks,omitempty"`
}

// A Pool is a number of slots a call holds from before its first attempt
// to its end. A call that finds no free slot waits in line if fewer than
// MaxWaiting wait, and is refused otherwise; it is refused too when it has
// waited MaxWait (when MaxWait > 0).
type Pool struct {
	Slots      int      `json:"slots"`
	MaxWaiting int      `json:"max_waiting,omitempty"`
	MaxWait    Duration `json:"max_wait,omitzero"`
}

// A Bulkhead is a pool for the calls to one dependency (Polly's concurrency
// limiter, resilience4j's Bulkhead, failsafe-go's bulkhead), taken after a
// slot of the client's pool.
type Bulkhead struct {
	Dependency    string   `json:"dependency"`
	MaxConcurrent int      `json:"max_concurrent"`
	MaxWaiting    int      `json:"max_waiting,omitempty"`
	MaxWait       Duration `json:"max_wait,omitzero"`
}

// A Policy is how one level retries.
//
// Preset names a library's defaults to start from (see DecodeWith); the
// policy's own fields override them, nested objects field by field. Decoding
// expands the preset and records its name in BasedOn, which is a label only:
// a decoded policy is complete without the preset.
type Policy struct {
	Preset  string `json:"preset,omitempty"`
	BasedOn string `json:"based_on,omitempty"`
	// MaxAttempts counts the first attempt. 0 means no limit: only the
	// deadline, the budget or the run's event limit stops a call that
	// keeps failing.
	MaxAttempts     int      `json:"max_attempts"`
	AttemptTimeout  Duration `json:"attempt_timeout,omitzero"`
	Deadline        Duration `json:"deadline,omitzero"`
	MinAttemptTime  Duration `json:"min_attempt_time,omitzero"`
	Backoff         Backoff  `json:"backoff,omitzero"`
	Jitter          Jitter   `json:"jitter,omitzero"`
	RetryOn         *RetryOn `json:"retry_on,omitempty"`
	HonorRetryAfter bool     `json:"honor_retry_after,omitempty"`
	// RetryAfter says how an honoured Retry-After (or server pushback)
	// sets the wait; it needs HonorRetryAfter. Without it the wait is the
	// longer of the backoff and the Retry-After, on any status.
	RetryAfter *RetryAfterUse `json:"retry_after,omitempty"`
	// MaxElapsed stops retrying when the time since the invocation began
	// plus the coming wait would exceed it, checked before each wait
	// (cenkalti/backoff's MaxElapsedTime). Unlike Deadline it never cuts
	// an attempt short. 0: no limit.
	MaxElapsed         Duration `json:"max_elapsed,omitzero"`
	RetryNonIdempotent bool     `json:"retry_non_idempotent,omitempty"`
	IdempotencyKey     bool     `json:"idempotency_key,omitempty"`
	// DeadLetter turns the level into a queue consumer: an operation that fails
	// goes to the dead-letter queue with its reason instead of being lost, and
	// MaxAttempts is the maximum number of deliveries.
	DeadLetter bool      `json:"dead_letter,omitempty"`
	Budget     *Budget   `json:"budget,omitempty"`
	Breaker    *Breaker  `json:"breaker,omitempty"`
	Adaptive   *Adaptive `json:"adaptive,omitempty"`
	// Throttle rejects attempts locally, at random, while the dependency
	// accepts too few of them: see Throttle.
	Throttle *Throttle `json:"throttle,omitempty"`
	// RateLimit paces the level's attempts with a client-side rate
	// limiter: see RateLimit.
	RateLimit *RateLimit `json:"client_rate_limit,omitempty"`
	// Instances splits the clients among this many instances, each with its
	// own budget, breaker, adaptive, throttle and rate limiter state (a
	// fleet). Client i uses instance i mod Instances.
	Instances int `json:"instances,omitempty"`
	// Hedging makes the level's attempts overlap: see Hedging.
	Hedging *Hedging `json:"hedging,omitempty"`
	// ConnectionLimits limit the level's attempts in progress to each
	// dependency, per instance, as a proxy's connection pool does: see
	// ConnectionLimits.
	ConnectionLimits *ConnectionLimits `json:"connection_limits,omitempty"`
	// RetryHostPredicate "previous_hosts" makes the level's retries avoid
	// the backends its invocation has tried, reselecting at most
	// HostSelectionRetryMaxAttempts times (default 1): see Backends.
	RetryHostPredicate            RetryHostPredicate `json:"retry_host_predicate,omitempty"`
	HostSelectionRetryMaxAttempts int                `json:"host_selection_retry_max_attempts,omitempty"`
}

// ConnectionLimits are a proxy's limits on the attempts it sends to one
// upstream (Envoy's cluster circuit_breakers thresholds, which Istio's
// DestinationRule connectionPool sets), kept per instance of the level
// and per dependency, and counting attempts: each retry is a request of
// its own. A zero field sets no limit.
//
//   - MaxRequests: at most this many attempts in progress; one more
//     overflows.
//   - MaxConnections: at most this many connections, each carrying one
//     attempt at a time (HTTP/1.1). An attempt that finds every
//     connection busy waits in the pending line for the first one freed,
//     when fewer than MaxPending already wait, and overflows otherwise.
//   - MaxPending: the pending line's length; it needs MaxConnections (0:
//     no attempt waits).
//
// An attempt that overflows is not sent: it is answered at once, locally,
// with a 503 that is not retried (Envoy's router never retries an
// overflow), so its invocation ends with that 503; it is counted in
// overflowed. A waiting attempt's attempt_timeout starts when it gets its
// connection (Envoy starts the per-try timeout when the pool is ready);
// the deadline counts the wait, and an attempt still waiting at the
// deadline ends the invocation as the deadline does.
type ConnectionLimits struct {
	MaxConnections int `json:"max_connections,omitempty"`
	MaxPending     int `json:"max_pending,omitempty"`
	MaxRequests    int `json:"max_requests,omitempty"`
}

// Hedging sends copies of a call instead of retrying it after a failure
// (gRPC's hedgingPolicy, Polly's hedging strategy). The level's
// MaxAttempts is the number of copies in all, the first included; each
// next copy leaves Delay after the previous one, or at once when a copy
// fails with an outcome in RetryOn. The first success wins and the copies
// still out are cancelled. With DelayPercentile p in (0, 100), the delay
// is the p-th percentile of the last Window (default 1000) successful
// copies' latencies at this level and instance, and Delay until 20 are
// known.
//
// AfterFailure "send" (the default) sends the next copy at once when a
// copy fails with an outcome in RetryOn; "wait" lets the failure bring
// nothing forward: the next copy still leaves at its delay, as
// failsafe-go's hedge policy with CancelIf does (a result it does not
// cancel on only ends the wait for it).
type Hedging struct {
	Delay           Duration          `json:"delay"`
	DelayPercentile float64           `json:"delay_percentile,omitempty"`
	Window          int               `json:"window,omitempty"`
	AfterFailure    HedgeAfterFailure `json:"after_failure,omitempty"`
}

// Backoff is the wait before retry n (n = 1 for the first retry): "constant"
// Base; "linear" Base·n; "exponential" Base·Multiplier^(n-1) (Multiplier
// DefaultMultiplier when 0); each capped by Max when Max > 0. "none" retries
// at once. Kind is one of BackoffKinds. After a throttling answer (429)
// ThrottleBase, when set, stands in for Base.
type Backoff struct {
	Kind       BackoffKind `json:"kind"`
	Base       Duration    `json:"base,omitzero"`
	Multiplier float64     `json:"multiplier,omitempty"`
	Max        Duration    `json:"max,omitzero"`
	// ThrottleBase, when set, replaces Base for a retry after a
	// throttling answer (429), as the AWS SDKs' 1 s base does.
	ThrottleBase Duration `json:"throttle_base,omitzero"`
}

// Jitter randomises the backoff d: "full" random(0, d); "equal" d/2 +
// random(0, d/2); "decorrelated" min(Max, random(Base, 3·previous wait));
// "proportional" d·(1 ± Fraction) (Fraction DefaultFraction when 0);
// "additive" d + random(0, Amount). Kind is one of JitterKinds.
type Jitter struct {
	Kind     JitterKind `json:"kind"`
	Fraction float64    `json:"fraction,omitempty"`
	Amount   Duration   `json:"amount,omitzero"`
}

// RetryOn is the set of outcomes a policy retries: the Statuses, every
// status of the StatusRanges (each "from-to", both included, such as
// "500-599"), but none of Except; timeouts when Timeout and connection
// errors when Connection. When a policy has no RetryOn, it retries 408,
// 429, 502, 503, 504, timeouts and connection errors.
type RetryOn struct {
	Statuses     []int    `json:"statuses,omitempty"`
	StatusRanges []string `json:"status_ranges,omitempty"`
	Except       []int    `json:"except,omitempty"`
	Timeout      bool     `json:"timeout,omitempty"`
	Connection   bool     `json:"connection,omitempty"`
}

// RetryAfterUse is how a level honours a Retry-After (or a gRPC server's
// pushback) carried by a failed attempt's answer. Mode is one of
// RetryAfterModes:
//
//   - "at_least" (the default): the wait is the longer of the backoff and
//     the Retry-After.
//   - "replace": the wait is the Retry-After, even when shorter than the
//     backoff (go-retryablehttp).
//   - "replace_and_reset": as "replace", and the backoff starts over: the
//     retry after the next failure waits as the first retry did (gRPC's
//     grpc-retry-pushback-ms, cenkalti/backoff v5's RetryAfterError).
//
// With "replace" and "replace_and_reset" a negative Retry-After (a
// dependency's retry_after.after below 0, gRPC's pushback -1) stops the
// retries, and a Retry-After of 0 (gRPC's pushback 0) retries at once. Statuses, when given, are the only answers whose Retry-After
// is read (go-retryablehttp reads it on 429 and 503 only); the others
// wait the backoff.
type RetryAfterUse struct {
	Mode     RetryAfterMode `json:"mode,omitempty"`
	Statuses []int          `json:"statuses,omitempty"`
}

// A Budget limits retries across all operations of a client instance.
//
// "token_bucket" (gRPC retry throttling, the AWS SDKs' retry quota): tokens
// start at MaxTokens and never exceed it. Charge says when a retry costs:
//
//   - "failure" (the default; gRPC): every attempt that fails with an
//     outcome the policy retries costs its cost, the last attempt's
//     included, and a retry is then allowed only while tokens > Threshold
//     (default MaxTokens/2).
//   - "retry" (the AWS SDKs): only a retry that is made costs, asked after
//     every other check (attempts, deadline); it is allowed when its cost
//     is available above Threshold (default 0): tokens − cost ≥ Threshold.
//
// The cost is FailureCost (default 1), ThrottleCost after a throttling
// answer (429) and TimeoutCost after a timeout (each FailureCost when 0).
// Each success adds TokenRatio; with Refund, a success of a retry gives
// back the cost of that retry instead.
//
// "ratio" (Google SRE, Finagle): a retry is allowed only while retries stay
// within Ratio of first attempts over Window (since start when Window is 0),
// plus MinPerSecond·Window retries that are always allowed. With Slices n,
// it is Finagle's leaky token bucket instead of an exactly sliding window:
// each first attempt deposits 1000, each retry withdraws ⌊1000/Ratio⌋
// when the balance (the deposits and withdrawals of the current slice and
// the n−1 before it, each slice Window/n long, plus a reserve of
// MinPerSecond·Window seconds·⌊1000/Ratio⌋) covers it.
//
// "concurrency" (failsafe-go's budget, Envoy's retry_budget): a retry is
// allowed while fewer than MinConcurrency retries are in progress, or,
// with ShareOf "executions" (the default; failsafe-go), while the retries
// in progress are at most Ratio of the executions in progress (the
// invocations of the level's instance, plus those retries); with ShareOf
// "attempts" (Envoy), while they are fewer than Ratio of the attempts in
// flight, rounded down.
//
// Scope is whose retries it counts: "dependency" (the default) one budget
// per dependency, "client" one for all the calls of the level's instance.
type Budget struct {
	Kind         BudgetKind   `json:"kind"`
	Scope        Scope        `json:"scope,omitempty"`
	MaxTokens    float64      `json:"max_tokens,omitempty"`
	TokenRatio   float64      `json:"token_ratio,omitempty"`
	Threshold    float64      `json:"threshold,omitempty"`
	FailureCost  float64      `json:"failure_cost,omitempty"`
	Charge       BudgetCharge `json:"charge,omitempty"`
	ThrottleCost float64      `json:"throttle_cost,omitempty"`
	TimeoutCost  float64      `json:"timeout_cost,omitempty"`
	// Refund makes a successful retry give back what it cost, in place
	// of TokenRatio (the AWS SDKs).
	Refund       bool     `json:"refund,omitempty"`
	Ratio        float64  `json:"ratio,omitempty"`
	Window       Duration `json:"window,omitzero"`
	MinPerSecond float64  `json:"min_per_second,omitempty"`
	// Slices counts a "ratio" budget's window in that many slices, as
	// Finagle's WindowedAdder does (10), instead of sliding it exactly.
	Slices int `json:"slices,omitempty"`
	// MinConcurrency is the retries a "concurrency" budget allows in
	// progress whatever the ratio.
	MinConcurrency int `json:"min_concurrency,omitempty"`
	// ShareOf is what a "concurrency" budget's Ratio is a share of.
	ShareOf BudgetShare `json:"share_of,omitempty"`
}

// A Breaker is a circuit breaker. "consecutive" opens after Failures failures
// in a row; "ratio" opens when, within the sliding Window (or among the last
// WindowCalls outcomes, a count-based window as resilience4j's default), at
// least MinThroughput outcomes were seen and the share of failures is ≥
// Ratio, or, with Failures instead of Ratio (count-based windows only), at
// least Failures of them failed: k of the last n, failsafe-go's
// WithFailureThresholdRatio(k, n), which can open before n outcomes are in.
//
// With SlowCall, an outcome that took longer than SlowCall (an attempt
// inside, the whole operation outside) is slow, failed or not, and a
// "ratio" breaker opens too when the share of slow outcomes in the window
// is ≥ SlowRatio (default 1): resilience4j's slowCallDurationThreshold and
// slowCallRateThreshold.
//
// It stays open for Break: a call at exactly the end passes when BreakEnd
// is "inclusive" (the default) and is still refused when "strict"
// (resilience4j). Then it lets HalfOpenCalls trial calls through (default
// 1). HalfOpenFailures failed trials (default 1) reopen it, and the other
// trials succeeding close it. HalfOpenDecision "early" (the default)
// decides as soon as the trials' outcomes settle it: the first failure
// reopens with the default 1, HalfOpenCalls successes close, and
// HalfOpenFailures k of HalfOpenCalls n close on the (n-k+1)th success
// (failsafe-go). "all_trials" waits for all HalfOpenCalls trials and then
// decides (resilience4j, whose failure rate threshold r over n trials is
// HalfOpenFailures ⌈r·n⌉; with SlowCall, as many slow trials reopen it
// too).
//
// WindowBuckets "exact" (the default) slides a time Window exactly;
// "epoch_seconds" counts it in whole seconds of the run's clock, as
// resilience4j's TIME_BASED window does (SlidingTimeWindowMetrics, one
// bucket per epoch second, the run starting at a whole second): an
// outcome at t counts the outcomes of the Window/1s seconds up to t's,
// t's own included, so between Window − 1 s and Window of them by age.
// Window must then be a whole number of seconds. A count window
// (WindowCalls) is not affected.
//
// Open turns half-open lazily, at the first call after Break, unless
// AutoHalfOpen, when it turns half-open at the very end of Break, with or
// without a call, and a call at exactly the end is a trial whatever
// BreakEnd: resilience4j's automaticTransitionFromOpenToHalfOpenEnabled.
//
// OpenMultiplier, when set, lengthens the open state each time the
// breaker opens again after a failed half-open round: the nth opening in
// a row lasts Break·OpenMultiplier^(n−1), at most MaxOpen when MaxOpen is
// set, and once the breaker closes the next opening lasts Break again.
// It is resilience4j's enableExponentialBackoff,
// exponentialBackoffMultiplier and exponentialMaxWaitDurationInOpenState
// (CircuitBreakerStateMachine.java at af9e7c9: an OpenState's wait is the
// wait interval function applied to its attempts, 1 when it opens from
// closed, one more at each transition to open from half-open, and
// ClosedState's attempts are 0; IntervalFunction.ofExponentialBackoff
// with a multiplier and a maximum). resilience4j rounds each wait down to
// a whole millisecond before multiplying it again; the engine multiplies
// exactly.
//
// Placement "inside" (the default) puts it around each attempt; "outside"
// around the whole retrying operation. Scope is what it guards:
// "dependency" (the default) one breaker per dependency, "client" one for
// all the calls of the level's instance, whatever their dependency.
type Breaker struct {
	Kind             BreakerKind      `json:"kind"`
	Scope            Scope            `json:"scope,omitempty"`
	Placement        Placement        `json:"placement,omitempty"`
	Failures         int              `json:"failures,omitempty"`
	Ratio            float64          `json:"ratio,omitempty"`
	MinThroughput    int              `json:"min_throughput,omitempty"`
	Window           Duration         `json:"window,omitzero"`
	WindowCalls      int              `json:"window_calls,omitempty"`
	SlowCall         Duration         `json:"slow_call,omitzero"`
	SlowRatio        float64          `json:"slow_ratio,omitempty"`
	Break            Duration         `json:"break"`
	BreakEnd         BreakEnd         `json:"break_end,omitempty"`
	HalfOpenCalls    int              `json:"half_open_calls,omitempty"`
	HalfOpenFailures int              `json:"half_open_failures,omitempty"`
	HalfOpenDecision HalfOpenDecision `json:"half_open_decision,omitempty"`
	WindowBuckets    WindowBuckets    `json:"window_buckets,omitempty"`
	AutoHalfOpen     bool             `json:"auto_half_open,omitempty"`
	OpenMultiplier   float64          `json:"open_multiplier,omitempty"`
	MaxOpen          Duration         `json:"max_open,omitzero"`
}

// Adaptive multiplies backoff waits by Factor while the share of failed
// attempts of this level and instance over the last Window exceeds Above.
type Adaptive struct {
	Window Duration `json:"window"`
	Above  float64  `json:"above"`
	Factor float64  `json:"factor"`
}

// Throttle is the Google SRE book's client-side throttling ("Handling
// Overload", chapter 21): each instance of the level keeps, per
// dependency, the requests it attempted and the requests the dependency
// accepted over the trailing Window (default DefaultThrottleWindow, the
// book's two minutes), and rejects each new attempt locally with
// probability max(0, (requests − K·accepts) / (requests + 1)), K
// DefaultThrottleK (2) when 0.
//
// Requests are every attempt the level tried to send in the window, the
// ones it rejected locally included (the book counts the requests the
// application attempted), not counting the attempt being decided.
// Accepts are the attempts that got an answer other than an overload
// rejection: every status except 429 and 503, and not a timeout or a
// connection error (no answer at all). A failure such as 500 or 404 is an
// accept: the dependency took the request and worked on it.
//
// A locally rejected attempt never leaves the client: the invocation ends
// at once with the outcome "throttled", is not retried, and counts in
// Metrics.Throttled and, when it ends an operation, GaveUpThrottled. The
// draws are keyed by the operation and its attempt, as jitter's are.
type Throttle struct {
	K      float64  `json:"k,omitempty"`
	Window Duration `json:"window,omitzero"`
}

// RateLimit is a client-side rate limiter every attempt of the level,
// the first included, takes a token (a permit) from before it is sent.
// Kind is one of RateLimitKinds.
//
// "aws-adaptive" is the AWS SDKs'
// adaptive retry mode as aws-sdk-go-v2 implements it (package
// aws/retry, adaptive_ratelimit.go): a token bucket that starts disabled
// and is enabled by the first throttling answer (429); each answer
// updates a measured send rate (in half-second buckets, smoothed 0.8) and
// sets the bucket's fill rate by CUBIC (a throttle multiplies the rate by
// 0.7, successes grow it back along 0.4·(t − W)³ + the rate at the last
// throttle), never above twice the measured rate nor below 0.5 per
// second. An attempt that finds no token waits for one (the SDK sleeps);
// the instance's waiting attempts take tokens in turn. An attempt whose
// wait would pass the level's deadline ends at once with the deadline; one
// waiting in line ends at its deadline and takes no token.
// See AWSRateLimiter.
//
// "fixed-window" is resilience4j's RateLimiter (AtomicRateLimiter): the
// run's clock is cut into cycles of RefreshPeriod from 0, each starting
// with LimitForPeriod permits. An attempt that finds none reserves the
// first permit of a later cycle when it can have it within Timeout, and
// waits for it; otherwise it waits Timeout (0, the default: not at all)
// and fails locally, as RequestNotPermitted, unretried: outcome
// "throttled", counted in throttled, reason gave_up_throttle. An attempt
// whose wait would pass the level's deadline ends at once with the
// deadline (its reservation kept, as resilience4j's is). The limiter is
// per level and instance; every attempt, retries included, asks it, as
// the RateLimiter aspect sits inside the Retry by resilience4j's default
// order, Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))).
// The engine asks it before the breaker, where resilience4j's breaker
// decides first (so an open breaker spends no permit there, and a refusal
// counts as the breaker's failure). See FixedWindowLimiter.
type RateLimit struct {
	Kind           RateLimitKind `json:"kind"`
	LimitForPeriod int           `json:"limit_for_period,omitempty"`
	RefreshPeriod  Duration      `json:"refresh_period,omitzero"`
	Timeout        Duration      `json:"timeout,omitzero"`
}

// A Sweep runs the scenario once per value, with the value set at Path (a JSON
// path such as "dependency.error_rate" or "strategies[1].max_attempts").
type Sweep struct {
	Path   string            `json:"path"`
	Values []json.RawMessage `json:"values"`
}

// Report sets what the result measures.
type Report struct {
	// AffectedFrom and AffectedTo bound the start times of the operations
	// that affected_success_rate counts, and pin that window. By default it
	// spans the dependencies' phases (Scenario.AffectedWindow decides it).
	AffectedFrom *Duration `json:"affected_from,omitempty"`
	AffectedTo   *Duration `json:"affected_to,omitempty"`
	// RecoveryFrom is when the fault ends, for recovery_s. By default it is
	// the end of the last phase that harms the dependency (a freeze, an
	// outage, errors, slower service or fewer workers); a phase that adds
	// workers is a remedy, not a fault.
	RecoveryFrom *Duration `json:"recovery_from,omitempty"`
	// PeakResolutions are the window sizes of the reported peaks, in addition
	// to the fixed 10 ms, 100 ms and 1 s metrics.
	PeakResolutions []Duration `json:"peak_resolutions,omitempty"`
	// SeriesBucket is the width of a time-series bucket (default: a 1-2-5 step
	// giving at most 600 buckets).
	SeriesBucket Duration `json:"series_bucket,omitzero"`
	// Focus names the metrics (JSON names, at most 3) the experiment is
	// about: pages lead with a verdict on the first and chart it. It does
	// not change the simulation.
	Focus []string `json:"focus,omitempty"`
	// Thresholds are conditions each seed's metrics should meet, such as
	// {"metric": "peak_per_10ms", "op": "<=", "value": 150}: the result
	// says, for each strategy, on how many seeds it crosses each one
	// (StrategyResult.Thresholds). At most MaxThresholds.
	Thresholds []Constraint `json:"thresholds,omitempty"`
	// Yours names the strategies that are the user's own policies (an
	// import marks those it adds): pages lead with how they do against
	// the others. It does not change the simulation.
	Yours []string `json:"yours,omitempty"`
}

// MaxThresholds bounds report.thresholds.
const MaxThresholds = 8

// A Duration is a length of virtual time, written in JSON as a Go duration
// string such as "250ms", "1.5s" or "2m".
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d as a Go duration string.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, d.String()), nil
}

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not a duration string such as \"250ms\" or \"2s\"", b)
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDuration parses a duration string such as "250ms" or "1.5s".
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"250ms\" or \"2s\"", s)
	}
	return Duration(v), nil
}
