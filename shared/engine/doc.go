// Package engine simulates client retry policies against a struggling
// dependency, deterministically, and measures what each policy does to it.
//
// A Scenario (JSON, version 1) describes a workload, a dependency and the
// strategies to compare. Decode reads it strictly, Validate checks every field
// and reports all problems at once as Errors naming JSON paths, and Run
// simulates every strategy on every seed and sweep value and returns a Result.
// The package does no I/O, reads no clock and uses no global randomness: the
// same scenario gives the same Result, byte for byte once encoded, natively
// and under GOOS=js GOARCH=wasm.
//
// # Time and randomness
//
// Virtual time is an int64 count of nanoseconds from 0. Random numbers come
// from math/rand/v2's PCG, seeded from the run's seed. Draws are keyed:
// the service time of the k-th dependency call of a client's n-th operation,
// whether it fails at random, the jitter of its retries, and the travel time
// of each leg of its k-th hop each come from a PCG seeded by (seed, purpose,
// client, n, k), with the plan call mixed into k for every call of a plan
// but the first (see Several dependencies). Every strategy of a run so
// sees the same arrivals and the same service times (common random numbers),
// and differences between strategies come from the policies alone.
// Logarithms and exponentials are computed by the package itself, not by
// package math, whose amd64 assembly may round differently from its pure Go
// code under wasm.
//
// # The model
//
// Clients start operations (open-loop Poisson or evenly spaced arrivals, a
// burst, or closed-loop clients that think between operations). Each
// operation runs the strategy's policy: an attempt at the client is one
// invocation of the first layer's policy, and so on down to the dependency,
// which serves calls with its workers from a FIFO queue and answers a full
// queue at once with queue_full_status.
//
// Calls travel as dependency.network says: every attempt at every level is a
// hop to the next level (a layer, or the dependency), whose request leg and
// answer leg each take a time drawn per call and leg from their distribution
// (constant; normal, a draw below 0 taking no time; lognormal). All hops share
// the dependency's network, layers included; a nested in-process policy is a
// hop too, so give such a scenario no network, or accept its extra round trip.
// Every answer travels back: a success, an error, a refusal, a 409, a
// Retry-After and an inner layer's 503; a breaker's fast failure at the
// client never leaves the client and takes no time. An attempt's timeout
// counts from the send, so a round trip longer than the attempt timeout
// times out; a layer's deadline counts from the request's arrival there. A
// request on its way still reaches the dependency if its caller gives up
// (and is served, as wasted work, or dropped); a request on its way to a
// layer whose caller gave up is not delivered. Work whose answer reaches a
// caller that no longer waits counts as wasted. With no network (the
// default) calls take no time to travel: a refusal returns at the same
// instant and a retry with no backoff lands in the same nanosecond.
//
// # Contention
//
// dependency.contention turns the dependency into the optimistic-concurrency
// resource of the simulator behind Brooker's "Exponential Backoff And
// Jitter" (aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py
// at commit 66cb169; docs/brooker-reference.md gives every line): one row
// with a version (lines 66-89). It is an option of the dependency, not a
// kind of its own, because it changes only what a call does there (every
// call is a read, then a conditional write) and keeps everything else of
// the dependency: workers, queue, service time, phases and the network.
//
// Each attempt that reaches the dependency is first a read: its request leg
// travels, the dependency answers the row's version at once (no worker,
// no queue, whatever the phases: the reference's server answers at once,
// lines 66-89), and the answer leg travels back; the caller then sends the
// write, unless it gave up meanwhile. The write travels, passes the usual
// checks and admission, and when its service ends it commits if the version
// is still the one it read (the version then goes up by one) or is answered
// contention.status (default 409) unapplied: a conflict (lines 66-89). A
// conflict is decided at commit, not at arrival, so of two writes that read
// the same version the first served wins; with an instant service time
// (constant 0) and workers enough for every client this is the reference's
// check at the write's arrival. Each attempt so pays four legs, each drawn
// on its own (lines 85, 89, 101, 104, 109); the read's legs draw from keys
// of their own, apart from the write's. The policy retries a conflict like
// any status in its retry_on.
//
// Work in the reference's sense is the writes, successful or not, reads
// left out (line 79): dependency_calls, which counts a call when its write
// reaches the dependency. Completion time, the arrival of the last client's
// successful write answer (lines 114-125), is settle_s with a burst
// workload. Deliberate differences: a normal leg below 0 counts as 0 where
// the reference folds it (abs; about 3·10⁻⁷ of draws); draws come from the
// seed's keyed streams, not one shared unseeded generator (line 5); and the
// write may wait for a worker and take service time when the scenario says
// so. Without contention calls never conflict.
//
// Phases change the dependency over [from, to): "outage" answers every call
// with a status (or a connection error) after an optional latency; "errors"
// does so for a share of calls; "capacity" changes the number of workers (work
// in service finishes; no new work starts beyond the new number); "latency"
// multiplies service times of work started during it; "freeze" holds every
// arriving call that gets past the error checks below (random, phase and
// load-dependent errors still answer at once) and pauses work in service,
// then at its end either answers the
// whole backlog (queued and held) with its status or serves it, held calls
// passing admission again in arrival order (served, queued, or refused when
// the queue is full). Load-dependent errors fail a call with the probability
// interpolated from the calls offered in the last window; the curve describes
// the dependency at its usual number of workers, so during a capacity phase
// with twice the workers each rate comes at twice the load. Random, phase and
// load-dependent errors are answered without using a worker.
//
// The dependency applies an operation when it finishes serving a call for it.
// It keeps working on calls whose caller has given up (wasted work) unless
// drop_abandoned is set, in which case it skips them when they reach the head
// of the queue. A non-idempotent operation applied more than once counts a
// duplicate. An operation with an idempotency key is applied at most once:
// while one call with its key is queued or in service, another is answered
// 409; after it was applied, another is answered with the stored success.
//
// # Scripted answers
//
// dependency.script answers calls from a list instead of serving them:
// a test's scripted outcomes, or an incident's answers replayed from a
// log. Each answer is a status (200 a success, any other a failure) or a
// connection error ("error": "connection"), given after its latency (at
// once when 0): a latency longer than the attempt timeout is a timeout. A
// script lists either answers, which the calls reaching the dependency get
// in the order they arrive, counted over the run (every operation and
// client, every level's attempts and hedged copies), or operations, one
// list per operation: the n-th operation started in the run (from 0) gets
// operations[n], whose k-th answer goes to the k-th call its plan call
// sends to the dependency (its attempts, counted at the send, so whatever
// their network draws). then says what a list that has run out does:
// "serve" (the default) serves the calls as usual, "repeat" starts it
// over, "last" gives its last answer again. Operations past the list, and
// those whose list is empty, are served as usual.
//
// A scripted answer replaces what the dependency would do with the call:
// it uses no worker and no queue, whatever the phases (an outage does not
// answer it, a freeze does not hold it), the random and load-dependent
// errors, the shedding and the idempotency keys, and a scripted success
// does not apply the operation (no duplicate is counted), as an outage
// answering 200 would not. The call still counts in dependency_calls, the
// peaks and the load that load_errors measures; retry_after applies to its
// status, and its answer travels back over the network. With contention
// the write is scripted and the read answered as usual. Each of several
// dependencies has its own script, or none. Every simulation (strategy,
// seed, sweep value) plays the script from its start: each strategy meets
// the same answers in the same order, which, with answers in arrival
// order, go to other calls once the strategies' retries differ (Warnings
// says so when several strategies replay such a list).
//
// Both lists, because they serve two needs. A test needs per-operation
// outcomes ("call 3 fails twice, then succeeds", "call 4 times out"), kept
// whatever the policy did to earlier calls: a denied retry must not shift
// the answers of the calls after it, as it would in one list in arrival
// order. A log of an incident gives the answers a service sent, in order,
// without saying which call or retry each was for. Answers keyed by time
// already exist as phases (an outage answers every call over [from, to)
// with a status after a latency), so a script has none. The estimate
// counts a scripted call as a served one, one event, and bounds an
// attempt's time by the longest scripted latency too.
//
// # A policy, step by step
//
// An attempt starts; if the policy has a breaker placed "inside", the breaker
// must let it through, or the invocation fails fast (breaker_open) and is not
// retried. The attempt ends with the answer, or with a timeout when the
// attempt timeout or the invocation's deadline passes first; an answer at the
// very instant of the timeout is in time. A timeout abandons the attempt: the
// inner invocation stops (its pending retries are cancelled) and calls left at
// the dependency stay there.
//
// After a failure, in this order: an outcome the policy does not retry ends
// the invocation (not_retryable); a non-idempotent operation without a key is
// not retried unless retry_non_idempotent (non_idempotent); the last allowed
// attempt ends it (attempts; max_attempts 0 allows any number, so only the
// deadline, max_elapsed, the budget or Run's event limit stops a call that
// keeps failing); then the wait is computed — backoff, jitter, the adaptive
// factor, and what an honoured Retry-After makes of it (below); a
// Retry-After that replaces the backoff and is negative (a server's
// pushback asking not to retry) ends the invocation (not_retryable); when
// the time since the invocation began plus the wait exceeds max_elapsed,
// it ends (deadline: the limit is checked before the wait and never cuts an
// attempt, unlike the deadline); and if the
// deadline has passed, or the wait plus min_attempt_time no longer fits before
// it, the invocation ends at once (deadline); finally the budget is asked and
// a denied retry ends it (budget). A denied retry is not an attempt; it is
// counted in retries_denied and the operation fails with the last outcome.
// When an inner invocation ends without success, its caller sees the last
// outcome it had; an inner breaker's fast failure is seen as 503.
//
// Waits: retry n (n = 1 first) waits base, base·n or base·multiplier^(n-1)
// for constant, linear and exponential backoff, capped by max. Full jitter
// draws uniformly in [0, d), equal jitter d/2 + [0, d/2), decorrelated
// jitter min(max, [base, 3·previous wait)), proportional d·(1 ± fraction),
// additive d + [0, amount).
//
// # retry_on and Retry-After
//
// retry_on names the outcomes a level retries: statuses, status_ranges
// ("from-to", both included: "500-599" is every 5xx) minus except (so
// "every 5xx but 501" is status_ranges ["500-599"] and except [501]),
// timeouts with timeout and connection errors with connection. Without
// retry_on a level retries 408, 429, 502, 503, 504, timeouts and connection
// errors.
//
// With honor_retry_after, the Retry-After a failed attempt's answer
// carries (the dependency's retry_after) sets the wait as retry_after.mode
// says: "at_least" (the default) waits the longer of it and the backoff;
// "replace" waits the Retry-After even when shorter (go-retryablehttp,
// failsafe-go); "replace_and_reset" does so and starts the backoff over,
// so the next retry without one waits as the first did (gRPC's
// grpc-retry-pushback-ms, cenkalti/backoff v5's RetryAfterError). With
// either replace mode a negative Retry-After stops the retries (gRPC's
// pushback -1), and one of 0 retries at once (gRPC's pushback 0, which
// grpc-go honours as a wait of 0); "at_least" ignores it. retry_after.statuses, when given,
// limits the answers whose Retry-After is read (go-retryablehttp reads it
// on 429 and 503 only).
//
// # Budgets and breakers
//
// Each level of a strategy has its own budget, breaker and adaptive state, one
// per instance (client i uses instance i mod instances).
//
// A token bucket starts full (max_tokens) and never holds more. With charge
// "failure" (the default; gRPC's retry throttling, gRFC A6 and grpc-go's
// retryThrottler) every attempt that fails with an outcome the policy
// retries costs its cost, the last attempt's included and before any
// other check, and a retry is then allowed while tokens > threshold (0
// means max_tokens/2). With charge "retry" (the AWS SDKs' retry quota:
// aws-sdk-go-v2 aws/retry, middleware.go and standard.go) only a retry that
// is made costs: the bucket is asked last, after the attempts and deadline
// checks, and grants the retry when its cost is available above the
// threshold (default 0), tokens − cost ≥ threshold, taking the cost. The
// cost is failure_cost (default 1), throttle_cost after a 429 (a
// throttling error) and timeout_cost after a timeout, each failure_cost
// when left out. Every success adds token_ratio; with refund, a success of
// a retry gives back what its retry cost instead (the last one charged:
// the cost of a retry that failed is not given back). A hedged copy
// costs failure_cost and is never refunded.
//
// A ratio budget counts first attempts and granted retries (since the
// start, or over a sliding window [now − window, now]) and grants a retry only if, with it, retries ≤ ratio × first
// attempts + min_per_second × window. With slices n it is Finagle's retry
// budget (RetryBudget.scala, TokenRetryBudget over twitter/util's
// TokenBucket.newLeakyBucket): each first attempt deposits 1000 and each
// granted retry withdraws ⌊1000/ratio⌋, both counted in slices of
// window/n; a retry is granted when the sum of the current slice and the
// n−1 before it, plus a reserve of ⌊min_per_second × window in seconds ×
// ⌊1000/ratio⌋⌋, covers its withdrawal. A new slice begins at the first
// use of the budget at least window/n after the current one began (not
// on a fixed grid), as WindowedAdder's do, and the slices skipped are
// cleared; so a deposit counts for about one window, at least (n−1)/n of
// it and longer when the budget is used rarely, where the sliding window
// counts it exactly one window.
//
// A concurrency budget (failsafe-go's budget, budget.go; Envoy's cluster
// retry_budget, resource_manager_impl.h) counts the retries in progress,
// from the grant to the end of the retry's attempt (its wait included).
// With share_of "executions" (the default; failsafe-go) it also counts
// the invocations of the level's instance in progress, from their first
// attempt to their end, and grants a retry while fewer than
// min_concurrency retries are in progress, or while retries in progress /
// (invocations + retries in progress) ≤ ratio, both counted before the
// new retry; failsafe-go takes the permit after the retry's delay, the
// engine at the failure (the same without a delay, failsafe-go's
// default). With share_of "attempts" (Envoy) it counts the level's
// attempts in flight instead (sent and not yet answered or timed out; the
// one whose failure is being decided no longer counted) and grants a
// retry while retries in progress < max(⌊ratio × attempts in flight⌋,
// min_concurrency). It is not available on a hedged level.
//
// After a throttling answer (429) the wait grows from backoff.throttle_base
// when it is set (the AWS SDKs' 1 s), instead of backoff.base.
//
// A breaker counts as failures timeouts, connection errors, 408, 429 and every
// 5xx; inside the retry it counts every attempt, outside it counts whole
// invocations. Closed, a "consecutive" breaker opens after that many failures
// in a row; a "ratio" breaker opens when the outcomes in the window (now-W,
// now], or the last window_calls outcomes, number at least min_throughput and
// failures make up at least ratio of them, or, given failures instead of
// ratio with window_calls n, when at least failures (k) of the last n
// failed: k of n, which can open before n outcomes are in (failsafe-go's
// WithFailureThresholdRatio). With slow_call, an outcome that took longer
// than slow_call (an attempt's time inside, the invocation's outside),
// failed or not, is slow, and a ratio breaker opens too when slow outcomes
// make up at least slow_ratio (default 1) of the window (resilience4j's
// slow-call thresholds). Outcomes arriving while it is not closed, other
// than trials', are ignored.
// With window_buckets "epoch_seconds" a time window counts whole seconds
// of the run's clock (the run starts at a whole second): an outcome at t
// counts those of the window/1s seconds up to t's, t's own included, as
// resilience4j's TIME_BASED SlidingTimeWindowMetrics does with its
// buckets of one epoch second; "exact" (the default) slides it exactly.
// Open, it fails calls fast; the first call after the break's end turns it
// half-open (lazily, as Polly and resilience4j do) and is a trial call: a
// call at exactly the end passes with break_end "inclusive" (the default)
// and is refused with "strict" (resilience4j). With auto_half_open it
// turns half-open at the break's end itself, with or without a call, and
// a call at exactly the end is a trial whatever break_end
// (resilience4j's automaticTransitionFromOpenToHalfOpenEnabled); a run
// that ends first, with nothing left to happen, records no half-open.
// With open_multiplier each opening after a failed half-open round lasts
// the previous one times open_multiplier, at most max_open, and the first
// opening after the breaker closes lasts break again (resilience4j's
// enableExponentialBackoff in the open state). In half-open,
// half_open_calls trials pass (default 1) and other calls fail fast.
// half_open_failures failed (or abandoned) trials (default 1) reopen it,
// as do ⌈slow_ratio × half_open_calls⌉ slow ones with slow_call, and the
// other trials succeeding close it. half_open_decision "early" (the
// default) decides as soon as the trials' outcomes settle it — by default
// the first failed trial reopens it and half_open_calls successes close
// it (failsafe-go's success threshold); k of n close on the (n-k+1)th
// success (failsafe-go's k-of-n half-open); "all_trials" decides once all
// half_open_calls trials are in (resilience4j, whose failure rate
// threshold r over n permitted calls is half_open_failures ⌈r·n⌉).
// Its samples are cleared when it opens and at every half-open decision.
//
// # Several dependencies
//
// A scenario may list several dependencies (dependencies, each named)
// instead of the one dependency. Each has all the fields of a dependency:
// its workers, queue, service time, phases, network and the rest, and its
// own state during a run. An operation then follows the workload's plan: a
// list of steps run one after the other, each a list of calls started
// together, the step ending when all its calls have ended. Without a plan
// an operation makes one call to the only dependency, as before.
//
// Each call of the plan runs the strategy's whole policy chain (the client's
// policy, then its layers) against its own dependency, and every hop of that
// chain travels over that dependency's network. The same dependency may be
// called twice, under two names (for instance once critical and once
// sheddable). A call with a share is made by that share of operations
// only, drawn per operation and call, the same for every strategy (a page
// mix: one page in four a checkout); a step none of whose calls an
// operation makes is over at once, and an operation that makes no call at
// all ends at once, succeeded. A call succeeds, falls back or fails. It
// falls back when it fails and the strategy has a fallback for it
// (fallbacks, by the call's name: Polly's fallback strategy, resilience4j's
// fallbackMethod, failsafe-go's fallback): the fallback answers in its
// place after its latency (at once when 0), like a cached or empty answer.
// An operation fails as soon as a call without a
// fallback fails: the other calls of its step still in progress are
// abandoned, as by a caller that gave up (their requests already sent stay
// at their dependency, to be served as wasted work or dropped), the later
// steps never start, and the operation gives up for that call's reason. A
// call without a fallback that fails at the very instant its step starts (a
// refusal by the pool, a breaker's fast failure, an answer that takes no
// time) keeps the step's calls listed after it from starting at all. Otherwise the
// operation ends after its last step: succeeded when no call fell back,
// degraded when one did. Degraded operations count neither as successes
// (success_rate, the latencies of successes, recovery and the series'
// successes leave them out) nor as failures: failed is operations less
// succeeded less degraded.
//
// Each call's draws are common random numbers per plan call: the service
// time of the k-th call a plan call sends to its dependency is the same for
// every strategy, whatever the other calls did. The first call of the plan
// keeps the keys of a one-dependency scenario.
//
// A strategy's pool is the client's limit on calls in progress (threads or
// connections of a synchronous client), per instance of the client (level
// 0). A call of the plan takes a slot before its first attempt and holds it
// until it ends, through all its attempts and waits. With no free slot it
// waits in line, first come first served, if fewer than max_waiting calls
// wait; otherwise it is refused at once (pool_full). A call still waiting
// after max_wait (when above 0) is refused (pool_timeout). The wait counts
// in the call's and the operation's latency, while the client's deadline
// counts from the first attempt. A refused call is a failed call (so a
// fallback answers for it), counted in pool_rejected, and an operation that
// fails for it in gave_up_pool.
//
// A bulkhead limits the calls in progress to one dependency, per client
// instance, with the same rules, taken after the pool's slot and held for
// the whole call; its refusals (bulkhead_full, bulkhead_timeout) count in
// bulkhead_rejected and gave_up_bulkhead. It is the semaphore bulkhead of
// resilience4j (maxConcurrentCalls, maxWaitDuration:
// https://resilience4j.readme.io/docs/bulkhead), of failsafe-go
// (bulkhead.NewBuilder(maxConcurrency).WithMaxWaitTime:
// https://failsafe-go.dev/bulkhead/) and Polly's concurrency limiter
// (PermitLimit, QueueLimit: https://www.pollydocs.org/strategies/rate-limiter.html).
// The simulator holds it around the whole call, retries included, as a
// thread blocked in a synchronous client holds it; resilience4j's Spring
// Boot aspects put the bulkhead innermost by default,
// Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))), so that
// each attempt takes and gives back a permit: that order is not modelled.
//
// A budget or a breaker has a scope. "dependency" (the default) gives each
// dependency its own state, per level and instance: a breaker opened by one
// dependency's failures does not stop the calls to another. "client"
// shares one state among all the calls of the level and instance, whatever
// their dependency: one breaker for everything, which opens on one
// dependency's failures and then fails the calls to the others fast too.
// The adaptive backoff state is per level and instance, whatever the
// dependency.
//
// # Client-side throttling
//
// Before an attempt leaves, two policy features may hold it back. A
// client_rate_limit ("aws-adaptive": the AWS SDKs' adaptive retry mode,
// see RateLimit and AWSRateLimiter) gives every attempt, the first
// included, a token first; one without a token waits for the next, in
// turn with the instance's other waiting attempts, and one whose wait
// would pass the deadline ends with it. A "fixed-window" one
// (resilience4j's RateLimiter, see FixedWindowLimiter) gives
// limit_for_period permits per refresh_period cycle; an attempt without
// one reserves a later cycle's and waits for it when it can within
// timeout, and otherwise waits timeout and is refused: it ends as a
// throttle's rejection does, "throttled", unretried. Then a throttle (the Google SRE
// book's client-side throttling, see Throttle) rejects the attempt
// locally with probability max(0, (requests − K·accepts)/(requests + 1))
// over its window, drawn from the seeded stream keyed by operation, level
// and attempt; then the inside breaker decides (an attempt it fails fast
// was a request, and is no accept). A breaker outside the retry counts an
// invocation that ended on the throttle as a failure. A rejected attempt ends
// the invocation, unretried, as a breaker's fast-fail: outcome
// "throttled", reason gave_up_throttle, counted in throttled. The rate
// limiter's state is per level and instance; the throttle's also per
// dependency. Each answer updates both: the limiter by whether it was a
// 429, the throttle's accepts unless it was a 429, a 503, a timeout or a
// connection error.
//
// A dependency's shedding refuses requests of lower priority early, to keep
// serving the higher ones. Each call of the plan has a class: critical_plus,
// critical (the default), sheddable_plus or sheddable, the criticalities of
// Google's SRE book ("Handling Overload", Site Reliability Engineering,
// chapter 21: CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS, SHEDDABLE). When a
// request is admitted, where the dependency checks its queue, a class that
// has a threshold is answered status (default 503) at once if the measure
// has reached it: "queue" counts the requests waiting in the queue, "load"
// those in service too. Such a request is counted as shed, not as a
// rejection. Shedding refuses early, while the queue has room: a request
// that a full queue refuses is a rejection, whatever its class. A class
// without a threshold is refused only by a full queue.
// The policy retries a shed request like any answer with that status.
//
// With more than one call in the plan, the result reports each call
// (calls): how many started, succeeded, fell back or failed, its attempts,
// its calls reaching its dependency, refusals, shed requests, fast
// failures and pool and bulkhead refusals, and the latency from its start
// (its wait for a slot included) to its end, with its own series of
// attempts, successes and failures. Breaker transitions name their
// dependency when each has its own breaker, and the series' breaker state
// is then the first dependency's. Phases name their dependency. With a
// pool the series report the slots in use.
//
// # Hedging
//
// A level with hedging sends copies of its call without waiting for the
// first to fail, to cut the latency of the slow ones: gRPC's hedgingPolicy
// (gRFC A6, "gRPC Retry Design") and Polly v8's hedging strategy
// (HedgingStrategyOptions). Its max_attempts, at least 2, counts the copies
// in all, the first included, as gRPC's maxAttempts does (Polly's
// MaxHedgedAttempts, default 1, counts only the extra ones). The first
// copy leaves at once, each next one hedging.delay after the previous one
// (gRPC's hedgingDelay; Polly's Delay, default 2 s), or at once when a copy
// fails with an outcome in retry_on (gRPC's nonFatalStatusCodes; Polly's
// ShouldHandle, by default every exception but a cancellation); with
// hedging.after_failure "wait" such a failure brings nothing forward and
// the next copy still leaves at its delay (failsafe-go's hedge policy
// with CancelIf, whose loop waits for the hedge timer or a result it
// cancels on). The first success wins. A failure the level does not retry ends the call with it
// (gRPC's fatal status); when every copy has failed, the call fails with
// the last outcome (attempts). When the call ends, the copies still out
// are cancelled as by a caller that gave up: requests already sent stay at
// the dependency and are served as wasted work (or dropped, with
// drop_abandoned), and inner invocations stop. Copies do not back off:
// backoff, jitter and Retry-After do not apply.
//
// Each copy is an attempt: it passes the inside breaker, has its own
// attempt_timeout (a copy that times out has failed, and timeouts in
// retry_on bring the next copy forward), its own service time and network
// draws, counts in attempts and, after the first, in retries, the retry
// peaks and the series' retries, and its outcome feeds the breaker, the
// token bucket and the adaptive state as an attempt's does. The deadline
// counts from the call's start: when it passes, the call fails (deadline)
// and every copy is cancelled; no copy leaves once it has passed or once
// min_attempt_time no longer fits before it.
//
// The budget is asked for every copy after the first, as for a retry (gRFC
// A6: throttling applies to hedged RPCs, the first always being sent). A
// denied copy is not sent and counts in retries_denied, and no further
// copy is sent: the copies already out may still win, and when the last
// of them fails (with an outcome the level retries) the call fails with
// its outcome, or at once when none is out; either way it gave up on the
// budget. An open inside breaker fails a copy fast (fast_failed) in the
// same way: that copy is not sent, nor is any further one (the breaker
// would refuse it too), the copies out may still win, and the call gives
// up on the breaker: at once with breaker_open when no copy is out, else
// with the last copy's failure. A non-idempotent operation
// without an idempotency key gets no copy after the first unless
// retry_non_idempotent, as for retries (non_idempotent); copies of a keyed
// operation share its key, so a copy arriving while another is in
// progress is answered 409.
//
// With delay_percentile p, the delay is the p-th percentile (nearest rank)
// of the latencies of the last window (default 1000) successful copies of
// the level's instance, each from its copy's send to its answer, and
// hedging.delay until 20 are known; it is computed again when the 20th
// arrives and then after every 64 more. (Polly's DelayGenerator can supply
// such a delay; gRPC's is fixed.) Only winners' latencies are known: a slow
// copy cut short by a faster one never enters the window, so with a long
// tail and frequent hedges the delay settles below the dependency's own
// p-th percentile, and more than 100 − p percent of calls hedge.
//
// hedges counts the copies sent after the first and hedges_won the calls
// that one of them won, summed over levels; both are left out of a result
// when 0. The cost estimate counts all of a hedged level's copies, as
// attempts.
//
// # What the result reports
//
// Counts of attempts, first attempts and retries are at the client (level 0);
// retries_all_levels sums the retries of every level (each invocation's
// attempts after its first, hedged copies included), and when a strategy
// has layers layer_attempts, layer_retries and layer_retries_denied give
// each level's attempts, retries and retries a budget denied, client
// first; dependency_calls and amplification (calls per operation, and per
// call of the plan when it has several) are at the dependencies, summed;
// retries_denied and fast_failed are summed over levels.
//
// An operation's outcome is what its client saw: succeeded, degraded or
// failed, and success_rate is the share succeeded. What the dependency did
// is counted beside it, for non-idempotent operations: duplicates are the
// times it applied one again after its first (a double charge counts once,
// whether the client then saw success or failure), and
// applied_after_give_up the failed ones it applied all the same, before or
// after their client gave up. Peaks are
// the most calls reaching the dependency in a window of 10 ms, 100 ms, 1 s (and
// any report.peak_resolutions), windows aligned at t = 0; retry peaks count
// only calls that a retry at some level led to.
//
// Latency percentiles (nearest rank) are over all operations, failures
// included, and separately over successful ones (success_latency_*). They
// are exact up to 524,288 operations a run (2^19, twice any built-in's);
// beyond, they come from a log-linear histogram and are within 1/2048
// (0.049%) of the exact value, exact for values below 2,048 ns and for a
// mass of equal values such as a constant service time; the maximum is
// always exact (see Memory). An
// operation is affected when it starts in [affected_from, affected_to), by
// default the span of the dependencies' phases, or the whole run without
// phases (Scenario.AffectedWindow, which the form and the view show); the
// window ends with the phases, not with the state they leave behind,
// which recovery measures. Recovery is measured after the
// fault ends: report.recovery_from, by default the end of the last phase that
// harms a dependency (a phase adding workers or speeding service is a
// remedy). Recovery is judged only on the operations that start while the
// workload still arrives at its nominal rate and whose horizon ends by
// then: the judged span runs from the fault's end to the end of arrivals
// (the workload's duration, or operations / rate with an operation cap,
// as the cost estimate takes it)
// less the strategy's horizon, the longest one of its operations can
// last as the span estimate bounds it (its deadline or max_elapsed, else
// its attempts' time-outs and the longest backoff waits, or the queue's
// drain where nothing times out). An operation starting later may succeed
// only because arrivals stopped and the backlog drained, which proves
// nothing: a metastable failure persists at unchanged load (Bronson et
// al., HotOS 2021; Huang et al., OSDI 2022), so a recovery must show
// under it. recovery_s is the time from the fault's end until the success
// rate of operations starting in every 1 s window (stepped by 100 ms)
// wholly inside the judged span stays at or above 99% to its end;
// recovered is 1. When the bad state lasts to the end of the judged span
// the run did not recover under load: recovered is 0 and recovery_s has
// no time (null in JSON, "not recovered under load" in tables); over
// several seeds recovery_s is the mean only when every seed recovered.
// Without a fault that ends (no phase that harms a dependency, no
// report.recovery_from) there is nothing to recover from, and with a
// judged span shorter than one window (arrivals end too soon after the
// fault) nothing to judge: both do not apply, null in JSON, "n/a" in
// tables, 0 from Metrics.Metric (Metrics.Applies says so), even when the
// dependency fails all along (error_rate, load_errors). A burst has no
// nominal rate after its instant: no judged span. In a search, a seed
// that did not recover counts as worse than any recovery time, and a
// report.thresholds condition on recovery_s is crossed on it. Goodput is
// successful operations per second of the workload's duration (or of the
// run, if longer).
//
// With several runs, metrics are means over runs and spread gives each
// metric's minimum and maximum; series and breaker transitions are those of
// the first run. Transitions are those of instance 0 of each level with a
// breaker; the series' breaker state is the outermost one's.
//
// # Memory
//
// A run's memory does not grow with the simulated duration, for a given
// scenario shape (clients, instances, operations in flight). Each
// simulation keeps at most 2^19 latencies exactly (4 MiB) per recorder
// (operations, successful ones, and each plan call's), then a histogram
// of at most 55,296 buckets (786 kB for latencies below 8.6 s, 1.8 MB at
// most). Its series bins are at most 65,536 per counter: a long run gets
// coarser bins, not more; the JSON series have at most 600 buckets (as
// many as the bins with report.series_bucket), and fine series are left
// out beyond 20,000 windows. Recovery's counts per 100 ms are decided as
// the run goes and kept only from the oldest operation still open.
// Sliding windows (a ratio budget's, adaptive backoff's, load-dependent
// errors') drop times older than their window as they record new ones.
// What still grows with time: a breaker's transitions, 16 bytes each
// (the result lists the first 1,000), and an autoscaler's decisions and
// changes of workers, 24 and 16 bytes each, at most one of each per
// evaluation and warm-up (the result lists the first 1,000 decisions).
// An autoscaler's stabilization window keeps only the recommendations
// that may still be its highest.
//
// # Search
//
// A scenario's search block (Search) asks which settings of one strategy
// to ship: every combination of its knobs' values is a candidate, run on
// the scenario's seeds by successive halving (SearchResult says how),
// with every candidate on the same seeds (common random numbers). Run
// reports the scenario's strategies as it would without the search, and
// in Result.Search the Pareto frontier of the objectives among the
// candidates that meet the constraints, and the recommended one. A
// search runs whole, through Run: Simulations, RunPart and Merge refuse
// it. Its estimated cost counts every candidate on every seed. Only a
// program that imports package search (shared/engine/search, which calls
// EnableSearch) runs searches; in one that does not (the Cloudflare
// Worker) a search block is invalid, at "search", and the search's code
// is not linked.
//
// A search across variants (Search.Across) asks for settings that hold up
// under several versions of the fault: each variant is the scenario with
// one value set at one path, as a sweep sets its values (or the scenario
// as written), every candidate runs on every variant on the same seeds,
// and a candidate counts by its worst case over the variants: the lowest
// mean of a "max" objective, the highest of a "min" one, and a constraint
// must hold in every variant. The halving, the fronts and the frontier
// compare those worst cases; each point gives its metrics in every
// variant and the variant each worst case comes from (the one that
// binds), and the recommendation's reason names the variant that binds
// its first objective. At most MaxSearchVariants variants; the estimate
// counts every candidate on every variant, at that variant's cost.
//
// # Cost
//
// Estimate gives the events a run is expected to process (operations ×
// product of max attempts along the chain × 3, plus one per network leg
// of every hop and, with contention and a network, two more per hop for
// the read, plus each simulation's set-up:
// its clients, instances and the counting bins of its time span; × strategies
// × runs × sweep values; plus, for a search, every candidate on every seed
// of every variant;
// plus the numbers of its result, which EstimateSize gives alone). A level with unlimited attempts (max_attempts 0) counts, in the
// estimate, as many attempts as fit in its deadline or max_elapsed, or
// else in the workload's arrivals, at the shortest time from one attempt
// to the next (the network's round trip or the attempt time-out, plus
// the backoff's wait at the middle of its jitter's range), and at least
// MaxAttempts (100); when that time is 0 (no backoff, and a dependency
// that refuses at once), the estimate has no bound and Run refuses the
// scenario whatever the limit but 0 — unless the level has a ratio budget
// or a token bucket, which bounds its retries over the whole run (twice
// the ratio of its first attempts plus the reserve of every window, or
// the bucket's tokens plus what successes add): the estimate counts the
// fewer of the two (a Linkerd ServiceProfile's routes, unlimited and
// without backoff, are bounded so; their route timeout cannot bound
// attempts that take no time). The worst-case bounds on
// a run's span count it as MaxAttempts; it may run longer. Run refuses a scenario above
// Options.MaxEvents with a CostError before running, stops any single
// simulation that processes more than that many events with a CostError
// (Processed set) that also wraps ErrStopped, and checks its context; both
// are looked at every 16,384 events, so a simulation stops at the first
// multiple of 16,384 past the limit.
package engine
