package view

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// Description is a scenario in words, as a page shows it beside its
// results: who calls, what they call, what happens to it when, and each
// strategy's policy (and its layers'). Everything is plain text; the
// templates escape it.
type Description struct {
	Workload   []string        `json:"workload"`
	Dependency []string        `json:"dependency"`
	Timeline   []string        `json:"timeline,omitempty"`
	Strategies []StrategyWords `json:"strategies"`
}

// StrategyWords is a strategy in words: its policy, one phrase each, and
// its layers' policies, outermost first.
type StrategyWords struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Policy      []string   `json:"policy"`
	Layers      [][]string `json:"layers,omitempty"`
}

// Describe returns sc in words.
func Describe(sc *engine.Scenario) *Description {
	d := &Description{Workload: describeWorkload(&sc.Workload), Dependency: describeDependency(&sc.Dependency)}
	for i := range sc.Workload.Load {
		d.Timeline = append(d.Timeline, describeLoad(&sc.Workload.Load[i]))
	}
	for i := range sc.Dependency.Phases {
		d.Timeline = append(d.Timeline, describePhase(&sc.Dependency.Phases[i], sc.Dependency.Backends))
	}
	for i := range sc.Strategies {
		st := &sc.Strategies[i]
		sw := StrategyWords{Name: st.Name, Description: st.Description, Policy: describePolicy(&st.Policy)}
		for j := range st.Layers {
			sw.Layers = append(sw.Layers, describePolicy(&st.Layers[j]))
		}
		d.Strategies = append(d.Strategies, sw)
	}
	return d
}

func describeWorkload(w *engine.Workload) []string {
	var out []string
	switch w.Arrival {
	case "uniform":
		out = append(out, fmt.Sprintf("%s send evenly spaced operations, %s per second in total", countOf(w.Clients, "client"), totalRate(w)))
	case "closed":
		out = append(out, fmt.Sprintf("%s each start an operation %s after their previous one ends", countOf(w.Clients, "client"), dw(w.ThinkTime)))
	case "burst":
		out = append(out, fmt.Sprintf("%s each start one operation at %s", countOf(w.Clients, "client"), dw(w.BurstAt)))
	default:
		out = append(out, fmt.Sprintf("%s send operations at random (Poisson), %s per second in total", countOf(w.Clients, "client"), totalRate(w)))
	}
	if w.Duration > 0 {
		out = append(out, fmt.Sprintf("for %s", dw(w.Duration)))
	}
	if w.Operations > 0 {
		out = append(out, fmt.Sprintf("at most %d operations", w.Operations))
	}
	if m := w.Mix; m.NonIdempotent > 0 {
		out = append(out, fmt.Sprintf("%s of operations are not idempotent (%s of those carry an idempotency key)", pctWords(m.NonIdempotent), pctWords(m.Keyed)))
	}
	if w.Mix.Unreadable > 0 {
		out = append(out, fmt.Sprintf("%s of messages are unreadable", pctWords(w.Mix.Unreadable)))
	}
	if len(w.Fleets) > 0 {
		out = append(out, fmt.Sprintf("these clients are fleet %s, whose policy each strategy is", cmp.Or(w.Fleet, engine.DefaultFleet)))
	}
	for i := range w.Fleets {
		f := &w.Fleets[i]
		rate := f.Rate
		if f.RatePerClient != 0 {
			rate = f.RatePerClient * float64(f.Clients)
		}
		words := describePolicy(&f.Policy)
		for j := range f.Layers {
			words = append(words, fmt.Sprintf("layer %d below it: %s", j+1, strings.Join(describePolicy(&f.Layers[j]), ", ")))
		}
		out = append(out, fmt.Sprintf("beside them, fleet %s: %s sending %s operations per second in total, in every run with its own policy: %s",
			f.Name, countOf(f.Clients, "client"), strconv.FormatFloat(rate, 'g', 4, 64), strings.Join(words, "; ")))
	}
	return out
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func totalRate(w *engine.Workload) string {
	r := w.Rate
	if r == 0 {
		r = w.RatePerClient * float64(w.Clients)
	}
	return strconv.FormatFloat(r, 'g', 4, 64)
}

func pctWords(f float64) string { return strconv.FormatFloat(f*100, 'g', 4, 64) + "%" }

func describeDependency(d *engine.Dependency) []string {
	st := d.ServiceTime
	var service string
	switch st.Kind {
	case engine.ServiceLognormal:
		service = fmt.Sprintf("lognormal service times (p50 %s, p99 %s)", dw(st.P50), dw(st.P99))
	case engine.ServiceExponential:
		service = fmt.Sprintf("exponential service times averaging %s", dw(st.Mean))
	default:
		service = fmt.Sprintf("a constant %s per request", dw(st.Mean))
	}
	out := []string{fmt.Sprintf("%d workers, %s, a queue of %d; a full queue answers %d at once", d.Workers, service, d.QueueCapacity, orDefault(d.QueueFullStatus, engine.DefaultStatus))}
	if n := d.Network; n != nil {
		out = append(out, fmt.Sprintf("every call travels: %s there, %s back", describeDelay(n.Request), describeDelay(n.Answer)))
	}
	if c := d.Contention; c != nil {
		out = append(out, fmt.Sprintf("every call updates one shared row: it reads the version, then writes, and a write that finds another committed since its read fails with %d", orDefault(c.Status, 409)))
	}
	if sc := d.Script; sc != nil {
		out = append(out, describeScript(sc))
	}
	if q := describeQueueDiscipline(d); q != "" {
		out = append(out, q)
	}
	if rl := d.RateLimit; rl != nil {
		out = append(out, fmt.Sprintf("lets %g calls a second through a token bucket of %d and answers the others %d at once, with a Retry-After of the time until a token, rounded up to %s",
			rl.Rate, rl.Burst, engine.RateLimitStatus, dw(cmp.Or(rl.RetryAfterUnit, engine.DefaultRetryAfterUnit))))
	}
	if c := d.ConcurrencyLimit; c != nil {
		e := c.Effective()
		out = append(out, fmt.Sprintf("refuses at once with %d the requests beyond an adaptive limit on those in flight (AIMD, Netflix's concurrency-limits): from %d, times %g when one it took on is refused, answered after its caller left or slower than %s, plus 1 when one ends with at least half the limit in flight, between %d and %d",
			e.Status, e.Initial, e.BackoffRatio, dw(e.Timeout), e.Min, e.Max))
	}
	if c := d.Cache; c != nil {
		out = append(out, describeCache(c))
	}
	if b := d.Backends; b != nil {
		out = append(out, describeBackends(b)...)
	}
	if a := d.Autoscale; a != nil {
		out = append(out, describeAutoscale(a, d.Backends != nil))
	}
	if d.DropAbandoned {
		out = append(out, "skips queued requests whose caller has given up")
	} else {
		out = append(out, "keeps working on requests whose caller has given up (wasted work)")
	}
	if d.ErrorRate > 0 {
		out = append(out, fmt.Sprintf("fails %s of calls at random with %d", pctWords(d.ErrorRate), orDefault(d.ErrorStatus, engine.DefaultStatus)))
	}
	if le := d.LoadErrors; le != nil {
		var pts []string
		for _, p := range le.Points {
			pts = append(pts, fmt.Sprintf("%s at %g/s", pctWords(p.Rate), p.Load))
		}
		out = append(out, "fails more as load rises: "+strings.Join(pts, ", "))
	}
	if ra := d.RetryAfter; ra != nil {
		out = append(out, fmt.Sprintf("sends Retry-After: %s with %v", dw(ra.After), ra.Statuses))
	}
	if l := d.LoadLatency; l != nil {
		out = append(out, describeLoadLatency(l))
	}
	return out
}

// describeQueueDiscipline says in which order a dependency serves its
// queue and which requests it drops, or nothing for FIFO.
func describeQueueDiscipline(d *engine.Dependency) string {
	target, interval := engine.DefaultCoDelTarget, engine.DefaultCoDelInterval
	if c := d.CoDel; c != nil {
		target, interval = cmp.Or(c.Target, target), cmp.Or(c.Interval, interval)
	}
	full := orDefault(d.QueueFullStatus, engine.DefaultStatus)
	switch d.QueueDiscipline {
	case engine.QueueLIFO:
		return "serves the newest queued request first (LIFO)"
	case engine.QueueCoDel:
		return fmt.Sprintf("drops queued requests with CoDel once they have waited %s or more for %s, answering %d at once", dw(target), dw(interval), full)
	case engine.QueueAdaptiveLIFO:
		return fmt.Sprintf("serves its queue oldest first, newest first once it has not been empty for %s, and drops, answering %d at once, a request that waited over %s (%s when the queue was empty in the last %s): Facebook's adaptive LIFO",
			dw(interval), full, dw(target), dw(interval), dw(interval))
	}
	return ""
}

// describeCache says what a dependency's cache holds and answers.
func describeCache(c *engine.Cache) string {
	keys := fmt.Sprintf("%d keys asked for alike", c.Keys.Count)
	if c.Keys.Law == engine.KeysZipf {
		keys = fmt.Sprintf("%d keys of Zipf popularity (s = %g)", c.Keys.Count, c.Keys.Exponent)
	}
	out := fmt.Sprintf("a cache in front of it, %s, holds the %d most recently used", keys, c.Capacity)
	if c.TTL > 0 {
		out += fmt.Sprintf(" for at most %s", dw(c.TTL))
	}
	out += fmt.Sprintf(" and answers them in %s; ", dw(c.HitLatency))
	if c.Warm {
		out += "it starts warm"
	} else {
		out += "it starts empty"
	}
	if c.Fill == engine.FillLookAside {
		out += ", and only an answer that reaches a caller still waiting fills it (look-aside)"
	} else {
		out += ", and every successful answer fills it (read-through)"
	}
	if c.Coalesce {
		out += "; concurrent misses for a key wait for one fetch"
	}
	return out
}

// describeLoadLatency says how a dependency slows with its load.
func describeLoadLatency(l *engine.LoadLatency) string {
	x := "x"
	if l.Knee > 0 {
		x = fmt.Sprintf("(x − %g)", l.Knee)
	}
	held := "in service"
	if l.Of == engine.MeasureInSystem {
		held = "it holds (in service and queued)"
	}
	var law string
	switch l.Law {
	case engine.LawLinear:
		law = fmt.Sprintf("1 + %g·%s", l.Slope, x)
	case engine.LawPolynomial:
		law = fmt.Sprintf("1 + %g·%s^%g", l.Slope, x, l.Power)
	case engine.LawExponential:
		law = fmt.Sprintf("e^(%g·%s)", l.Slope, x)
	case engine.LawUSL:
		return fmt.Sprintf("slows as it gets busier: each service takes 1 + %g·(N − 1) + %g·N·(N − 1) times as long, N the requests %s (the Universal Scalability Law), at most %g×",
			l.Sigma, l.Kappa, held, cmp.Or(l.MaxFactor, engine.DefaultLoadLatencyMax))
	}
	when := ""
	if l.Knee > 0 {
		when = fmt.Sprintf(" once x exceeds %g", l.Knee)
	}
	return fmt.Sprintf("slows as it gets busier: each service takes %s times as long%s, x the requests %s per worker, at most %g×",
		law, when, held, cmp.Or(l.MaxFactor, engine.DefaultLoadLatencyMax))
}

// describeLoad says a load phase in words.
func describeLoad(lp *engine.LoadPhase) string {
	span := fmt.Sprintf("%s–%s: ", dw(lp.From), dw(lp.To))
	switch lp.Kind {
	case engine.LoadStep:
		if lp.Factor < 1 {
			return span + fmt.Sprintf("%s of arrivals shed", pctWords(1-lp.Factor))
		}
		return span + fmt.Sprintf("the load is %g× its rate", lp.Factor)
	case engine.LoadRamp:
		return span + fmt.Sprintf("the load ramps from its rate to %g× it", lp.Factor)
	case engine.LoadDaily:
		return span + fmt.Sprintf("the load swings %s above and below its rate, every %s", pctWords(lp.Amplitude), dw(lp.Period))
	case engine.LoadSpike:
		return span + fmt.Sprintf("%g more operations per second arrive", lp.Rate)
	case engine.LoadFlash:
		return span + fmt.Sprintf("a flash crowd of %d more operations arrives, most at once", lp.Operations)
	}
	return span + string(lp.Kind)
}

// describeScript says how a dependency's script answers.
func describeScript(sc *engine.Script) string {
	then := map[engine.ScriptThen]string{
		engine.ThenRepeat: "then starts over",
		engine.ThenLast:   "then gives the last answer again",
	}[sc.Then]
	if then == "" {
		then = "then serves as usual"
	}
	if len(sc.Operations) > 0 {
		return fmt.Sprintf("answers the calls of the first %s from a script, each operation's in order, %s", countOf(len(sc.Operations), "operation"), then)
	}
	return fmt.Sprintf("answers calls from a script of %s in arrival order, %s", countOf(len(sc.Answers), "answer"), then)
}

// describePhase says what phase p does to a dependency with backends b
// (nil: without), and which backends it hits when it aims at some.
func describePhase(p *engine.Phase, b *engine.Backends) string {
	span := fmt.Sprintf("%s–%s: ", dw(p.From), dw(p.To))
	if aim := phaseBackends(p, b); aim != "" {
		span += aim + " "
	}
	status := fmt.Sprint(orDefault(p.Status, engine.DefaultStatus))
	if p.Error != "" {
		status = p.Error + " errors"
	}
	switch p.Kind {
	case engine.PhaseFreeze:
		if p.Status != 0 {
			return span + fmt.Sprintf("freezes; the backlog is answered %d", p.Status)
		}
		return span + "freezes; the backlog is served afterwards"
	case engine.PhaseOutage:
		return span + "answers everything with " + status
	case engine.PhaseCapacity:
		return span + fmt.Sprintf("runs with %d workers", p.Workers)
	case engine.PhaseErrors:
		return span + fmt.Sprintf("fails %s of calls with %s", pctWords(p.Rate), status)
	case engine.PhaseLatency:
		return span + fmt.Sprintf("serves %g× slower", p.Factor)
	case engine.PhaseFlush:
		return span + "its cache is flushed at the start and refills from empty"
	}
	return span + string(p.Kind)
}

// phaseBackends says which backends phase p hits ("on backends 0 and
// 2"), or nothing when it hits them all.
func phaseBackends(p *engine.Phase, b *engine.Backends) string {
	switch {
	case len(p.Backends) > 0:
		ks := make([]string, len(p.Backends))
		for i, k := range p.Backends {
			ks[i] = strconv.Itoa(k)
		}
		if len(ks) == 1 {
			return "on backend " + ks[0] + ","
		}
		return "on backends " + strings.Join(ks[:len(ks)-1], ", ") + " and " + ks[len(ks)-1] + ","
	case p.BackendShare > 0 && b != nil:
		return fmt.Sprintf("on the first %d of its %d backends (%s),", int(math.Ceil(p.BackendShare*float64(b.Count))), b.Count, pctWords(p.BackendShare))
	case p.BackendShare > 0:
		return fmt.Sprintf("on the first %s of its backends,", pctWords(p.BackendShare))
	}
	return ""
}

// balancerWords says how each load balancer picks a backend.
var balancerWords = map[engine.BalancerKind]string{
	engine.BalanceRoundRobin:   "in turn (round robin)",
	engine.BalanceRandom:       "at random",
	engine.BalanceLeastRequest: "the one with the fewest requests under way (least request)",
	engine.BalancePowerOfTwo:   "the less busy of two drawn at random (power of two choices)",
}

// describeBackends says how many backends serve a dependency, how its
// load balancer picks one, and when it ejects one.
func describeBackends(b *engine.Backends) []string {
	out := []string{fmt.Sprintf("is %d identical backends, each as described, behind a load balancer that picks %s",
		b.Count, balancerWords[cmp.Or(b.Balancer, engine.BalanceRoundRobin)])}
	o := b.OutlierDetection
	if o == nil {
		return out
	}
	var after []string
	if o.EnforcingConsecutive5xx == nil || *o.EnforcingConsecutive5xx != 0 {
		after = append(after, fmt.Sprintf("%d 5xx answers in a row", cmp.Or(o.Consecutive5xx, engine.DefaultConsecutive5xx)))
	}
	if o.ConsecutiveGatewayFailure > 0 {
		after = append(after, fmt.Sprintf("%d gateway failures (502, 503, 504) in a row", o.ConsecutiveGatewayFailure))
	}
	base := cmp.Or(o.BaseEjectionTime, engine.DefaultBaseEjectionTime)
	most := cmp.Or(o.MaxEjectionTime, max(engine.DefaultMaxEjectionTime, base))
	pct := func(p *float64, def float64) string {
		if p != nil {
			return strconv.FormatFloat(*p, 'g', 4, 64) + "%"
		}
		return strconv.FormatFloat(def, 'g', 4, 64) + "%"
	}
	out = append(out, fmt.Sprintf("ejects a backend from the balancer's choice after %s, for %s times its ejections (at most %s), %s of the backends out at most; below %s left in, it uses them all",
		strings.Join(after, " or "), dw(base), dw(most), pct(o.MaxEjectionPercent, engine.DefaultMaxEjectionPercent), pct(o.MinHealthPercent, engine.DefaultMinHealthPercent)))
	return out
}

// autoscaleMetricWords says what each autoscaler's metric measures.
var autoscaleMetricWords = map[engine.AutoscaleMetric]string{
	engine.MetricUtilization:    "the share of workers busy",
	engine.MetricQueuePerWorker: "the queued requests per worker",
}

// describeAutoscale says what a dependency's autoscaler aims for and how
// fast it acts; over backends it adds and removes backends.
func describeAutoscale(a *engine.Autoscale, backends bool) string {
	tol := engine.DefaultAutoscaleTolerance
	if a.Tolerance != nil {
		tol = *a.Tolerance
	}
	stab := engine.DefaultAutoscaleStabilization
	if a.ScaleDownStabilization != nil {
		stab = *a.ScaleDownStabilization
	}
	warm := "at once"
	if a.WarmUp > 0 {
		warm = "after " + dw(a.WarmUp)
	}
	unit, added := "workers", "a worker added serves"
	if backends {
		unit, added = "backends", "a backend added joins the balancer"
	}
	return fmt.Sprintf("an autoscaler keeps %s near %g, between %d and %d %s: every %s it adds or removes %s when off by more than %s; %s %s, and %s are removed only when every recommendation of the last %s says so",
		autoscaleMetricWords[a.Metric], a.Target, a.Min, a.Max, unit, dw(a.Period), unit, pctWords(tol), added, warm, unit, dw(stab))
}

func describePolicy(p *engine.Policy) []string {
	var out []string
	if p.BasedOn != "" {
		out = append(out, "based on the "+p.BasedOn+" preset")
	}
	switch {
	case p.Hedging != nil:
		// Hedged copies are sent while none has answered, not retried
		// after a failure: their wait is the hedging delay.
		h := p.Hedging
		when := fmt.Sprintf("%s after the previous one", dw(h.Delay))
		if h.DelayPercentile > 0 {
			when = fmt.Sprintf("when the previous one has taken the p%g of recent successful copies' latencies (%s until 20 are known)", h.DelayPercentile, dw(h.Delay))
		}
		out = append(out, fmt.Sprintf("hedges: up to %d copies of a call, each %s while none has answered, or at once after a retryable failure; the first success wins", p.MaxAttempts, when))
	case p.DeadLetter && p.MaxAttempts == 0:
		out = append(out, "a queue consumer: redelivers until it succeeds, unless another limit sends it to the dead-letter queue")
	case p.DeadLetter:
		out = append(out, fmt.Sprintf("a queue consumer: at most %d deliveries, then the dead-letter queue", p.MaxAttempts))
	case p.MaxAttempts == 0:
		out = append(out, "retries until it succeeds (no limit on attempts)")
	default:
		out = append(out, "at most "+countOf(p.MaxAttempts, "attempt"))
	}
	if p.AttemptTimeout > 0 {
		out = append(out, fmt.Sprintf("each attempt times out after %s", dw(p.AttemptTimeout)))
	}
	if p.Deadline > 0 {
		out = append(out, fmt.Sprintf("gives up after %s in all", dw(p.Deadline)))
	}
	b := p.Backoff
	switch b.Kind {
	case engine.BackoffConstant:
		out = append(out, fmt.Sprintf("waits %s between attempts", dw(b.Base)))
	case engine.BackoffLinear:
		out = append(out, fmt.Sprintf("waits %s, then %s more each time", dw(b.Base), dw(b.Base)))
	case engine.BackoffExponential:
		m := b.Multiplier
		if m == 0 {
			m = engine.DefaultMultiplier
		}
		w := fmt.Sprintf("waits exponentially from %s, ×%g each time", dw(b.Base), m)
		if b.Max > 0 {
			w += fmt.Sprintf(", at most %s", dw(b.Max))
		}
		out = append(out, w)
	default:
		if p.MaxAttempts != 1 && p.Hedging == nil {
			out = append(out, "retries at once")
		}
	}
	switch j := p.Jitter; j.Kind {
	case engine.JitterFull, engine.JitterEqual, engine.JitterDecorrelated:
		out = append(out, string(j.Kind)+" jitter")
	case engine.JitterProportional:
		f := j.Fraction
		if f == 0 {
			f = engine.DefaultFraction
		}
		out = append(out, fmt.Sprintf("±%s jitter", pctWords(f)))
	case engine.JitterAdditive:
		out = append(out, fmt.Sprintf("plus up to %s of jitter", dw(j.Amount)))
	default:
		if j.Kind != "" && j.Kind != engine.JitterNone {
			out = append(out, string(j.Kind)+" jitter") // a kind this text does not know yet
		}
	}
	if ro := p.RetryOn; ro != nil {
		var what []string
		for _, s := range ro.Statuses {
			what = append(what, strconv.Itoa(s))
		}
		if ro.Timeout {
			what = append(what, "timeouts")
		}
		if ro.Connection {
			what = append(what, "connection errors")
		}
		out = append(out, "retries "+strings.Join(what, ", "))
	}
	if p.HonorRetryAfter {
		out = append(out, "honours Retry-After")
	}
	if p.IdempotencyKey {
		out = append(out, "sends an idempotency key")
	}
	if p.RetryNonIdempotent {
		out = append(out, "retries non-idempotent operations")
	}
	if bu := p.Budget; bu != nil {
		switch bu.Kind {
		case engine.BudgetTokenBucket:
			d := fmt.Sprintf("token-bucket budget: %g tokens, +%g per success", bu.MaxTokens, bu.TokenRatio)
			if bu.Charge == engine.ChargeRetry {
				d += ", a retry made costs"
			}
			if bu.Refund {
				d += ", a successful retry refunds its cost"
			}
			out = append(out, d)
		case engine.BudgetConcurrency:
			of := "calls"
			if bu.ShareOf == engine.ShareAttempts {
				of = "attempts"
			}
			out = append(out, fmt.Sprintf("concurrency budget: retries in progress up to %s of %s in progress, at least %d", pctWords(bu.Ratio), of, bu.MinConcurrency))
		default:
			w := "since the start"
			if bu.Window > 0 {
				w = "per " + dw(bu.Window)
			}
			out = append(out, fmt.Sprintf("retry budget: %s of requests %s", pctWords(bu.Ratio), w))
		}
	}
	if br := p.Breaker; br != nil {
		place := "around each attempt"
		if br.Placement == engine.PlaceOutside {
			place = "around the whole retrying call"
		}
		if br.Kind == engine.BreakerConsecutive {
			out = append(out, fmt.Sprintf("circuit breaker %s: opens after %d failures in a row for %s", place, br.Failures, dw(br.Break)))
		} else {
			out = append(out, fmt.Sprintf("circuit breaker %s: opens at %s failures over at least %d calls, for %s", place, pctWords(br.Ratio), br.MinThroughput, dw(br.Break)))
		}
	}
	if ad := p.Adaptive; ad != nil {
		out = append(out, fmt.Sprintf("waits ×%g while over %s of the last %s failed", ad.Factor, pctWords(ad.Above), dw(ad.Window)))
	}
	if th := p.Throttle; th != nil {
		k := th.K
		if k == 0 {
			k = engine.DefaultThrottleK
		}
		w := th.Window
		if w == 0 {
			w = engine.DefaultThrottleWindow
		}
		out = append(out, fmt.Sprintf("throttles itself: rejects an attempt locally with probability (requests − %g × accepts) / (requests + 1) over the last %s", k, dw(w)))
	}
	if rl := p.RateLimit; rl != nil && rl.Kind == engine.RateLimitAWSAdaptive {
		out = append(out, "paces attempts with the AWS SDKs' adaptive rate limiter, which a 429 turns on")
	} else if rl != nil && rl.Kind == engine.RateLimitFixedWindow {
		wait := "refusing an attempt that finds no permit"
		if rl.Timeout > 0 {
			wait = fmt.Sprintf("an attempt waiting up to %s for a permit, then refused", dw(rl.Timeout))
		}
		out = append(out, fmt.Sprintf("limits attempts to %d every %s (a fixed window, resilience4j's RateLimiter), %s", rl.LimitForPeriod, dw(rl.RefreshPeriod), wait))
	}
	if cl := p.ConnectionLimits; cl != nil {
		out = append(out, connectionWords(cl))
	}
	if p.RetryHostPredicate == engine.HostPreviousHosts {
		out = append(out, fmt.Sprintf("a retry avoids the backends its call has already tried (Envoy's previous_hosts), drawing another up to %s", countOf(cmp.Or(p.HostSelectionRetryMaxAttempts, 1), "time")))
	}
	if p.Instances > 1 {
		out = append(out, fmt.Sprintf("spread over %d instances, each with its own budget and breaker", p.Instances))
	}
	return out
}

// connectionWords describes a level's connection limits.
func connectionWords(cl *engine.ConnectionLimits) string {
	var parts []string
	if cl.MaxRequests > 0 {
		parts = append(parts, fmt.Sprintf("at most %s in progress", countOf(cl.MaxRequests, "attempt")))
	}
	if cl.MaxConnections > 0 {
		wait := "none waiting for one"
		if cl.MaxPending > 0 {
			wait = fmt.Sprintf("up to %d waiting for one", cl.MaxPending)
		}
		parts = append(parts, fmt.Sprintf("%s of one attempt each, %s", countOf(cl.MaxConnections, "connection"), wait))
	}
	return fmt.Sprintf("limits its attempts to each dependency, per instance, as a proxy's connection pool: %s; one more is answered 503 at once, not retried", strings.Join(parts, "; "))
}

// durationWords writes d as "500 ms" under a second, else "2 s" or "1.5 s".
func durationWords(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', -1, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + " s"
}

// dw writes a duration of the scenario as durationWords does: "500 ms",
// "2 s", "60 s".
func dw(d engine.Duration) string { return durationWords(d.D()) }

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// describeDelay says how long one leg of a call takes to travel.
func describeDelay(d engine.Delay) string {
	switch d.Kind {
	case engine.DelayConstant:
		return dw(d.Mean)
	case engine.DelayNormal:
		return fmt.Sprintf("%s ± %s (normal)", dw(d.Mean), dw(d.Stddev))
	case engine.DelayLognormal:
		return fmt.Sprintf("p50 %s, p99 %s (lognormal)", dw(d.P50), dw(d.P99))
	}
	return "no time"
}
