package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Backends behind a load balancer. A dependency with Backends is Count
// identical backends, each one the dependency as described (its workers,
// queue, service time, error rates, shedding…), with a state of its own,
// behind one load balancer that sends every request reaching the
// dependency to one of them. Plan calls, bulkheads, breakers and budgets
// still name the dependency: the backends are what serves it.
//
// Balancer is one of BalancerKinds (default "round_robin", Envoy's default
// lb_policy):
//
//   - "round_robin": the backends in turn, from backend 0 (Envoy's
//     ROUND_ROBIN with equal weights);
//   - "random": one at random (Envoy's RANDOM);
//   - "least_request": the backend with the fewest active requests, a
//     tie broken at random (Envoy's LEAST_REQUEST with selection_method
//     FULL_SCAN);
//   - "power_of_two_choices": two backends drawn at random (with
//     replacement), and of those the one with fewer active requests, the
//     first drawn on a tie (Envoy's LEAST_REQUEST default, choice_count 2;
//     Mitzenmacher, "The Power of Two Choices in Randomized Load
//     Balancing", 2001).
//
// A backend's active requests are those routed to it that it has not
// answered yet: on their way to it, queued, held by a freeze, in service,
// or waiting out an answer's latency. The engine's balancer is one for
// every client, and it forgets a request when the backend answers it,
// whether or not its caller still waits (an Envoy forgets it also when
// the downstream request is reset). A backend that answers at once (a
// crashed one, failing fast) has none, and so draws the least-request
// balancers' traffic: nothing special-cases it.
type Backends struct {
	Count    int          `json:"count"`
	Balancer BalancerKind `json:"balancer,omitempty"`
	// OutlierDetection takes backends out of the balancer's rotation
	// after consecutive errors: see OutlierDetection.
	OutlierDetection *OutlierDetection `json:"outlier_detection,omitempty"`
}

// OutlierDetection is Envoy's consecutive-error outlier detection (the
// cluster's outlier_detection; Istio's DestinationRule outlierDetection
// sets the same fields). A backend is ejected, taken out of the
// balancer's choice, as soon as its answers include Consecutive5xx
// failures in a row (default 5; a 5xx status or a connection error), or
// ConsecutiveGatewayFailure gateway failures in a row (502, 503, 504 or a
// connection error; 0, the default, does not eject: Envoy's
// enforcing_consecutive_gateway_failure defaults to 0). Any other answer
// ends both runs, in the order the answers come: a backend that fails
// while it still serves requests it took before answers those with
// successes among its first failures, and fails more than Consecutive5xx
// requests before its ejection. EnforcingConsecutive5xx 0 turns the first off (only 0
// and 100, Envoy's default, are modelled).
//
// It is ejected only if no backend is ejected, or if the ejected share of
// the backends is below MaxEjectionPercent (default 10): at least one
// backend can always be ejected. It stays out BaseEjectionTime (default
// 30 s) times the number of its ejections, at most MaxEjectionTime
// (default the larger of 300 s and BaseEjectionTime), and comes back at
// the first analysis sweep after that: sweeps run every Interval
// (default 10 s) from t = 0. At each sweep a backend that is not ejected
// has its number of ejections lowered by one (the ejection time
// multiplier decreasing while the host stays healthy). When the share of
// backends left in is below MinHealthPercent (default 50, Envoy's
// healthy_panic_threshold; Istio's minHealthPercent defaults to 0, which
// turns this off), the balancer is in panic and uses them all.
type OutlierDetection struct {
	Consecutive5xx            int      `json:"consecutive_5xx,omitempty"`
	EnforcingConsecutive5xx   *int     `json:"enforcing_consecutive_5xx,omitempty"`
	ConsecutiveGatewayFailure int      `json:"consecutive_gateway_failure,omitempty"`
	Interval                  Duration `json:"interval,omitzero"`
	BaseEjectionTime          Duration `json:"base_ejection_time,omitzero"`
	MaxEjectionTime           Duration `json:"max_ejection_time,omitzero"`
	MaxEjectionPercent        *float64 `json:"max_ejection_percent,omitempty"`
	MinHealthPercent          *float64 `json:"min_health_percent,omitempty"`
}

// The defaults of OutlierDetection, Envoy's (outlier_detection.proto).
const (
	DefaultConsecutive5xx     = 5
	DefaultOutlierInterval    = Duration(10 * time.Second)
	DefaultBaseEjectionTime   = Duration(30 * time.Second)
	DefaultMaxEjectionTime    = Duration(300 * time.Second)
	DefaultMaxEjectionPercent = 10.0
	DefaultMinHealthPercent   = 50.0
)

// MaxBackends bounds a dependency's backends. A scenario's dependencies
// and their backends together are at most maxDeps.
const MaxBackends = 8

// A BackendResult reports one backend of a dependency with backends:
// Metrics are means over runs and Spread their minimum and maximum, as
// for the strategy's.
type BackendResult struct {
	Dependency string            `json:"dependency"`
	Backend    int               `json:"backend"`
	Metrics    BackendMetrics    `json:"metrics"`
	Spread     map[string]MinMax `json:"spread,omitempty"`
}

// BackendMetrics measure one backend: the requests the balancer routed to
// it (Share of its dependency's), and of those it answered, the
// successes and the failures (every other answer: errors, refusals,
// shedding). Requests it served for callers that had given up, or
// dropped, are neither.
type BackendMetrics struct {
	Requests    float64 `json:"requests"`
	Share       float64 `json:"share"`
	Succeeded   float64 `json:"succeeded"`
	Failed      float64 `json:"failed"`
	SuccessRate float64 `json:"success_rate"`
	// Ejections counts the times outlier detection ejected it.
	Ejections float64 `json:"ejections"`
}

// backendCounts count one backend's requests in a run, and hold its
// outlier detection's state.
type backendCounts struct {
	routed, ok, failed int64
	ejections          int64
	fives, gateways    int   // the failures in a row: 5xx, gateway
	ejectedUntil       int64 // > 0: ejected, until the first sweep from then on
	times              int   // the ejection time multiplier
	owner              uint8 // its dependency's index + 1
}

// An outlierModel is a dependency's outlier detection, compiled.
type outlierModel struct {
	fives, gateways        int // 0: that run does not eject
	interval, base, maxOut int64
	maxPercent, minHealth  float64
}

// A balancerModel is a dependency's load balancer, compiled: its
// backends are the servers first..first+n-1 (see model.servers).
type balancerModel struct {
	kind   BalancerKind
	first  uint8
	n      int           // backends, or with an autoscaler its Max: the slots backends are added in
	count  int           // the backends at the start (n without an autoscaler)
	scaled bool          // an autoscaler adds and removes backends (see Autoscale)
	od     *outlierModel // nil: no outlier detection
}

// backendSlots returns the servers dependency d's backends take: Count,
// or with an autoscaler its Max, the most backends it may have at once.
func backendSlots(d *Dependency) int {
	if a := d.Autoscale; a != nil && a.Max > d.Backends.Count && a.Max <= MaxBackends {
		return a.Max
	}
	return d.Backends.Count
}

// compileBackends sets m.servers: the dependencies deps, compiled, then
// the backends of each that has backends. A backend is its dependency
// with the phases that hit it; the dependency itself keeps no phases and
// gets the balancer.
func (m *model) compileBackends(deps []Dependency) {
	m.servers = m.deps
	for i := range deps {
		d := &deps[i]
		if d.Backends == nil {
			continue
		}
		first, slots := len(m.servers), backendSlots(d)
		m.servers = m.depArray[:first+slots]
		for k := range slots {
			b := *d
			b.Cache = nil     // the dependency's, in front of the balancer
			b.Autoscale = nil // the dependency's: it adds and removes backends
			b.Phases = slices.DeleteFunc(slices.Clone(d.Phases), func(ph Phase) bool { return !ph.hits(k, d.Backends.Count) || ph.Kind == PhaseFlush })
			m.servers[first+k], _ = compileDependency(&b)
			m.servers[first+k].name = m.deps[i].name
		}
		m.deps[i].bal = &balancerModel{kind: d.Backends.Balancer, first: uint8(first), n: slots, count: d.Backends.Count,
			scaled: d.Autoscale != nil, od: compileOutliers(d.Backends.OutlierDetection)}
		if m.deps[i].bal.kind == "" {
			m.deps[i].bal.kind = BalanceRoundRobin
		}
		if d.Cache == nil {
			m.deps[i].phases = nil // the backends' phases change them
		} else {
			// The backends' phases change them; a flush empties the
			// dependency's cache.
			m.deps[i].phases = slices.DeleteFunc(m.deps[i].phases, func(ph phaseModel) bool { return ph.kind != PhaseFlush })
		}
	}
}

// compileOutliers compiles an outlier detection with its defaults.
func compileOutliers(o *OutlierDetection) *outlierModel {
	if o == nil {
		return nil
	}
	om := &outlierModel{fives: cmp.Or(o.Consecutive5xx, DefaultConsecutive5xx), gateways: o.ConsecutiveGatewayFailure,
		interval: int64(cmp.Or(o.Interval, DefaultOutlierInterval)), base: int64(cmp.Or(o.BaseEjectionTime, DefaultBaseEjectionTime)),
		maxPercent: DefaultMaxEjectionPercent, minHealth: DefaultMinHealthPercent}
	om.maxOut = int64(cmp.Or(o.MaxEjectionTime, max(DefaultMaxEjectionTime, Duration(om.base))))
	if e := o.EnforcingConsecutive5xx; e != nil && *e == 0 {
		om.fives = 0
	}
	if p := o.MaxEjectionPercent; p != nil {
		om.maxPercent = *p
	}
	if p := o.MinHealthPercent; p != nil {
		om.minHealth = *p
	}
	return om
}

// hits reports whether phase ph hits backend k of n.
func (ph *Phase) hits(k, n int) bool {
	switch {
	case len(ph.Backends) > 0:
		return slices.Contains(ph.Backends, k)
	case ph.BackendShare > 0:
		return k < int(math.Ceil(ph.BackendShare*float64(n)))
	}
	return true
}

// overlapsBackends reports whether phases a and b of dependency d hit a
// backend in common (any two phases do in a dependency without backends).
// A share is of the backends at the start; an index may be of a backend
// an autoscaler adds.
func overlapsBackends(d *Dependency, a, b *Phase) bool {
	if d.Backends == nil {
		return true
	}
	n := min(d.Backends.Count, MaxBackends)
	for k := range min(backendSlots(d), MaxBackends) {
		if a.hits(k, n) && b.hits(k, n) {
			return true
		}
	}
	return false
}

// route sends request r, bound for a dependency with balancer b, to the
// backend b picks: r.dep becomes that backend's server. With the
// previous_hosts predicate, a backend its invocation has tried is
// rejected and the balancer picks again, at most reselect times; the
// last pick stands (Envoy's host_selection_retry_max_attempts).
func (s *sim) route(r *request, b *balancerModel) {
	if b.od != nil || b.scaled {
		s.routeAround(r, b)
		return
	}
	c := &s.calls[r.call]
	again := 0
	if c.tried != 0 {
		again = s.st.levels[c.level].reselect
	}
	k := s.pick(r, b, 0)
	for j := 1; j <= again && c.tried&(1<<k) != 0; j++ {
		k = s.pick(r, b, j)
	}
	c.tried |= 1 << k
	r.dep = b.first + uint8(k)
	s.deps[r.dep&(maxDeps-1)].active++
	s.c.backends[int(r.dep)-s.nd].routed++
}

// pick returns the backend balancer b picks for request r, at its j-th
// reselection (0: the first pick). Each pick of a random balancer has a
// draw of its own; round robin moves on one backend at each.
func (s *sim) pick(r *request, b *balancerModel, j int) int {
	if b.kind == BalanceRoundRobin {
		_, ds := s.dep(r.dep)
		k := int(ds.next % uint32(b.n))
		ds.next++
		return k
	}
	x := s.rnd.uint64(drawBalance, s.ops[r.op].key, r.sub()^uint64(j)<<56)
	var active [MaxBackends]int
	for k := range b.n {
		active[k] = s.deps[int(b.first)+k].active
	}
	return pickBackend(b.kind, active[:b.n], x)
}

// routeAround routes request r as route does, among the backends in
// the balancer's rotation (with an autoscaler, those ready) that outlier
// detection has not ejected (all of those in rotation in panic).
func (s *sim) routeAround(r *request, b *balancerModel) {
	live := s.rotation(r.dep, b)
	if b.od != nil {
		s.sweep(r.dep, b)
	}
	bs := s.c.backends[int(b.first)-s.nd:][:b.n]
	var in [MaxBackends]uint8 // the backends in rotation
	var active [MaxBackends]int
	n, total := 0, 0
	for k := range b.n {
		if live&(1<<k) == 0 {
			continue
		}
		total++
		if bs[k].ejectedUntil == 0 {
			in[n], active[n] = uint8(k), s.deps[int(b.first)+k].active
			n++
		}
	}
	if b.od != nil && float64(n*100) < b.od.minHealth*float64(total) {
		n = 0
		for k := range b.n {
			if live&(1<<k) != 0 {
				in[n], active[n] = uint8(k), s.deps[int(b.first)+k].active
				n++
			}
		}
	}
	c := &s.calls[r.call]
	again := 0
	if c.tried != 0 {
		again = s.st.levels[c.level].reselect
	}
	pick := func(j int) int {
		if b.kind == BalanceRoundRobin {
			_, ds := s.dep(r.dep)
			k := int(ds.next % uint32(n))
			ds.next++
			return int(in[k])
		}
		x := s.rnd.uint64(drawBalance, s.ops[r.op].key, r.sub()^uint64(j)<<56)
		return int(in[pickBackend(b.kind, active[:n], x)])
	}
	k := pick(0)
	for j := 1; j <= again && c.tried&(1<<k) != 0; j++ {
		k = pick(j)
	}
	c.tried |= 1 << k
	r.dep = b.first + uint8(k)
	s.deps[r.dep&(maxDeps-1)].active++
	s.c.backends[int(r.dep)-s.nd].routed++
}

// rotation returns the backends in the rotation of dependency dep's
// balancer b, bit k for backend k: all of them, or with an autoscaler
// those ready.
func (s *sim) rotation(dep uint8, b *balancerModel) uint16 {
	if b.scaled {
		return s.deps[dep&(maxDeps-1)].scale.ready
	}
	return 1<<b.n - 1
}

// sweep runs the outlier detection's analysis sweeps of the dependency
// with balancer b due by s.now: every interval from 0, a backend whose
// ejection has run out comes back and one that is in has its ejection
// multiplier lowered. Sweeps are run when the balancer needs their
// outcome, which is when it routes or ejects.
func (s *sim) sweep(dep uint8, b *balancerModel) {
	_, ds := s.dep(dep)
	bs := s.c.backends[int(b.first)-s.nd:][:b.n]
	for ds.sweep <= s.now {
		t := ds.sweep
		idle := true
		for k := range bs {
			switch o := &bs[k]; {
			case o.ejectedUntil > 0 && t >= o.ejectedUntil:
				o.ejectedUntil = 0
				idle = false
			case o.ejectedUntil > 0:
				idle = false
			case o.times > 0:
				o.times--
				idle = idle && o.times == 0
			}
		}
		ds.sweep += b.od.interval
		if idle && ds.sweep <= s.now {
			// Nothing ejected, no multiplier left: skip to the next sweep.
			ds.sweep += (s.now - ds.sweep) / b.od.interval * b.od.interval
			if ds.sweep <= s.now {
				ds.sweep += b.od.interval
			}
		}
	}
}

// outlierAnswer counts backend k's answer out for dependency dep's
// outlier detection, and ejects the backend when the answer completes a
// run of failures.
func (s *sim) outlierAnswer(dep uint8, b *balancerModel, k int, out int16) {
	od := b.od
	live := s.rotation(dep, b)
	if live&(1<<k) == 0 {
		return // removed by the autoscaler: no longer the balancer's host
	}
	bs := s.c.backends[int(b.first)-s.nd:][:b.n]
	o := &bs[k]
	five := out == outConnection || out >= 500 && out <= 599
	gateway := out == outConnection || out == 502 || out == 503 || out == 504
	if !five {
		o.fives = 0
	} else {
		o.fives++
	}
	if !gateway {
		o.gateways = 0
	} else {
		o.gateways++
	}
	if o.ejectedUntil > 0 || !(od.fives > 0 && o.fives >= od.fives || od.gateways > 0 && o.gateways >= od.gateways) {
		return
	}
	s.sweep(dep, b)
	ejected, hosts := 0, 0 // of the backends in rotation
	for i := range bs {
		if live&(1<<i) != 0 {
			hosts++
			if bs[i].ejectedUntil > 0 {
				ejected++
			}
		}
	}
	if ejected > 0 && float64(ejected*100) >= od.maxPercent*float64(hosts) {
		return // too many out already: it stays in, its run goes on
	}
	o.times++
	o.ejections++
	o.fives, o.gateways = 0, 0
	o.ejectedUntil = s.now + min(od.base*int64(o.times), od.maxOut)
}

// reselections returns how many times a retry of policy p may pick a
// backend again: host_selection_retry_max_attempts (Envoy's default 1)
// with the previous_hosts predicate, 0 without.
func reselections(p *Policy) int {
	if p.RetryHostPredicate != HostPreviousHosts {
		return 0
	}
	return cmp.Or(p.HostSelectionRetryMaxAttempts, 1)
}

// pickBackend returns the backend that a balancer of kind picks among
// backends whose active requests are active, with x a uniform random
// 64-bit draw: its high 32 bits make the first random choice, its low 32
// bits the second.
func pickBackend(kind BalancerKind, active []int, x uint64) int {
	n := uint64(len(active))
	hi, lo := int(((x>>32)*n)>>32), int(((x&0xffffffff)*n)>>32)
	switch kind {
	case BalancePowerOfTwo:
		if active[lo] < active[hi] {
			return lo
		}
		return hi
	case BalanceLeastRequest:
		least, ties := math.MaxInt, uint64(0)
		for _, a := range active {
			switch {
			case a < least:
				least, ties = a, 1
			case a == least:
				ties++
			}
		}
		j := int(((x >> 32) * ties) >> 32) // the j-th of the tied, at random
		for i, a := range active {
			if a == least {
				if j == 0 {
					return i
				}
				j--
			}
		}
	}
	return hi // random
}

// backendAnswered counts backend server dep's answer out to a request:
// the request is no longer active there.
func (s *sim) backendAnswered(dep uint8, out int16) {
	s.deps[dep&(maxDeps-1)].active--
	c := &s.c.backends[int(dep)-s.nd]
	if out == outOK {
		c.ok++
	} else {
		c.failed++
	}
	if c.owner != 0 {
		if b := s.dm[c.owner-1].bal; b.od != nil {
			s.outlierAnswer(c.owner-1, b, int(dep-b.first), out)
		}
	}
}

// ownBackends tells each backend's counts which dependency it serves.
func (s *sim) ownBackends() {
	for i := range s.m.deps {
		if b := s.m.deps[i].bal; b != nil {
			for k := range b.n {
				s.c.backends[int(b.first)-s.nd+k].owner = uint8(i + 1)
			}
		}
	}
}

// backendDropped counts a request that backend server dep finished
// without an answer (its caller had given up): it is no longer active.
func (s *sim) backendDropped(dep uint8) {
	if int(dep) >= s.nd {
		s.deps[dep&(maxDeps-1)].active--
	}
}

// backendMetrics returns each backend's metrics of the run, in server order.
func (s *sim) backendMetrics() []BackendMetrics {
	if len(s.c.backends) == 0 {
		return nil
	}
	out := make([]BackendMetrics, len(s.c.backends))
	for i := range s.m.deps {
		b := s.m.deps[i].bal
		if b == nil {
			continue
		}
		var all int64
		for k := range b.n {
			all += s.c.backends[int(b.first)-s.nd+k].routed
		}
		for k := range b.n {
			c := &s.c.backends[int(b.first)-s.nd+k]
			out[int(b.first)-s.nd+k] = BackendMetrics{Requests: float64(c.routed), Share: ratio(float64(c.routed), float64(all)),
				Succeeded: float64(c.ok), Failed: float64(c.failed), SuccessRate: ratio(float64(c.ok), float64(c.ok+c.failed)),
				Ejections: float64(c.ejections)}
		}
	}
	return out
}

// backendResults returns the strategy's BackendResults from its runs.
func backendResults(m *model, runs []runOutput) []BackendResult {
	var out []BackendResult
	for i := range m.deps {
		b := m.deps[i].bal
		if b == nil {
			continue
		}
		for k := range b.n {
			j := int(b.first) - len(m.deps) + k
			br := BackendResult{Dependency: m.deps[i].name, Backend: k}
			if len(runs) == 1 {
				br.Metrics = runs[0].backends[j]
			} else {
				br.Metrics, br.Spread = meanSpread(runs, func(r *runOutput) BackendMetrics { return r.backends[j] })
			}
			out = append(out, br)
		}
	}
	return out
}

// backends checks the backends of dependency d at p, and the backends its
// phases select.
func (v *validator) backends(p string, d *Dependency) {
	b := d.Backends
	if b == nil {
		for i := range d.Phases {
			// The error names the field given, so that the form shows it
			// beside that field.
			ph := &d.Phases[i]
			if len(ph.Backends) > 0 {
				v.add(fmt.Sprintf("%sphases[%d].backends", p, i), nil, "has no meaning for a dependency without backends; give the dependency backends {\"count\", \"balancer\"} to aim a phase at some of them")
			}
			if ph.BackendShare != 0 {
				v.add(fmt.Sprintf("%sphases[%d].backend_share", p, i), ph.BackendShare, "has no meaning for a dependency without backends; give the dependency backends {\"count\", \"balancer\"} to aim a phase at a share of them")
			}
		}
		return
	}
	v.intRange(p+"backends.count", b.Count, 2, MaxBackends)
	if b.Balancer != "" {
		oneOf(v, p+"backends.balancer", b.Balancer, BalancerKinds...)
	}
	if d.Contention != nil {
		v.add(p+"contention", nil, "is given together with backends; a contended row lives on one server: give one of them")
	}
	if d.Script != nil {
		v.add(p+"script", nil, "is given together with backends; a script answers for the whole dependency: give one of them")
	}
	if o := b.OutlierDetection; o != nil {
		q := p + "backends.outlier_detection."
		v.intOr(q+"consecutive_5xx", o.Consecutive5xx, 1, 1000, DefaultConsecutive5xx)
		if e := o.EnforcingConsecutive5xx; e != nil && *e != 0 && *e != 100 {
			v.add(q+"enforcing_consecutive_5xx", *e, "is not 0 or 100; a chance in between is not modelled (0 turns consecutive_5xx off, 100 is the default)")
		}
		v.intOr(q+"consecutive_gateway_failure", o.ConsecutiveGatewayFailure, 1, 1000, "the default, no gateway ejection")
		for _, f := range []struct {
			name string
			d    Duration
			def  any
		}{{"interval", o.Interval, DefaultOutlierInterval}, {"base_ejection_time", o.BaseEjectionTime, DefaultBaseEjectionTime},
			{"max_ejection_time", o.MaxEjectionTime, "the default, the longer of 300s and base_ejection_time"}} {
			v.spanOr(q+f.name, f.d, f.def)
		}
		if o.MaxEjectionTime != 0 && o.MaxEjectionTime < cmp.Or(o.BaseEjectionTime, DefaultBaseEjectionTime) {
			v.add(q+"max_ejection_time", o.MaxEjectionTime, "is below base_ejection_time %s; the longest ejection is at least the first", cmp.Or(o.BaseEjectionTime, DefaultBaseEjectionTime))
		}
		if pc := o.MaxEjectionPercent; pc != nil {
			v.percent(q+"max_ejection_percent", *pc, DefaultMaxEjectionPercent)
		}
		if pc := o.MinHealthPercent; pc != nil {
			v.percent(q+"min_health_percent", *pc, DefaultMinHealthPercent)
		}
		if o.EnforcingConsecutive5xx != nil && *o.EnforcingConsecutive5xx == 0 && o.ConsecutiveGatewayFailure == 0 {
			v.add(q+"enforcing_consecutive_5xx", 0, "turns off the only ejection left (consecutive_gateway_failure is 0): nothing would ever be ejected")
		}
	}
	for i := range d.Phases {
		ph := &d.Phases[i]
		q := fmt.Sprintf("%sphases[%d].", p, i)
		if len(ph.Backends) > 0 && ph.BackendShare != 0 {
			v.add(q+"backend_share", ph.BackendShare, "is given together with backends; select the backends by index or by share, not both")
		}
		if ph.Kind == PhaseFlush && (len(ph.Backends) > 0 || ph.BackendShare != 0) {
			field, value := "backends", any(nil)
			if len(ph.Backends) == 0 {
				field, value = "backend_share", ph.BackendShare
			}
			v.add(q+field, value, "is given for a flush; the cache is in front of the balancer, one for all the backends: a flush empties it, and selects no backend")
			continue
		}
		if ph.BackendShare != 0 && !(ph.BackendShare > 0 && ph.BackendShare <= 1) {
			v.add(q+"backend_share", ph.BackendShare, "is out of range; a share of the backends is in (0, 1]")
		}
		if len(ph.Backends) > MaxBackends {
			v.add(q+"backends", nil, "lists %d backends; at most %d are allowed", len(ph.Backends), MaxBackends)
			continue
		}
		slots := min(backendSlots(d), MaxBackends)
		for j, k := range ph.Backends {
			if k < 0 || k >= slots {
				v.add(fmt.Sprintf("%sbackends[%d]", q, j), k, "is not a backend of the dependency; backends are numbered 0..%d%s", max(slots-1, 0), slotsWords(d))
			} else if slices.Index(ph.Backends, k) < j {
				v.add(fmt.Sprintf("%sbackends[%d]", q, j), k, "is listed twice; list each backend once")
			}
		}
	}
}

// slotsWords says, in an error about dependency d's backends, that an
// autoscaler's max numbers them.
func slotsWords(d *Dependency) string {
	if d.Autoscale != nil {
		return " (up to the autoscaler's max)"
	}
	return ""
}

// servers checks that the dependencies of sc and their backends fit the
// engine's maxDeps servers, and the retry host predicates of every level
// of every strategy and fleet. It formats nothing and allocates nothing
// unless it finds a problem: every run validates its scenario.
func (v *validator) servers(sc *Scenario) {
	n, backends := 0, false
	count := func(d *Dependency) {
		n++
		if b := d.Backends; b != nil && b.Count >= 2 && b.Count <= MaxBackends {
			n += backendSlots(d)
			backends = true
		}
	}
	if len(sc.Dependencies) == 0 {
		count(&sc.Dependency)
	}
	for i := range sc.Dependencies {
		count(&sc.Dependencies[i])
	}
	if n > maxDeps && len(sc.Dependencies) <= MaxDependencies {
		v.add("dependencies", nil, "has %d dependencies and backends together; at most %d are allowed (each dependency with backends counts once, and each backend once more)", n, maxDeps)
	}
	for i := range sc.Strategies {
		st := &sc.Strategies[i]
		v.hostPredicate("strategies", i, -1, &st.Policy, len(st.Layers) == 0, backends)
		for j := range st.Layers {
			v.hostPredicate("strategies", i, j, &st.Layers[j], j == len(st.Layers)-1, backends)
		}
	}
	for i := range sc.Workload.Fleets {
		f := &sc.Workload.Fleets[i]
		v.hostPredicate("workload.fleets", i, -1, &f.Policy, len(f.Layers) == 0, backends)
		for j := range f.Layers {
			v.hostPredicate("workload.fleets", i, j, &f.Layers[j], j == len(f.Layers)-1, backends)
		}
	}
}

// hostPredicate checks the retry host predicate of policy pol, layer j
// (-1: the policy itself) of entry i of list: it is for the innermost
// level, innermost says whether pol is, and for a scenario with backends.
func (v *validator) hostPredicate(list string, i, j int, pol *Policy, innermost, backends bool) {
	if pol.RetryHostPredicate == "" && pol.HostSelectionRetryMaxAttempts == 0 {
		return
	}
	q := fmt.Sprintf("%s[%d]", list, i)
	if j >= 0 {
		q = fmt.Sprintf("%s.layers[%d]", q, j)
	}
	if pol.RetryHostPredicate == "" {
		v.add(q+".host_selection_retry_max_attempts", pol.HostSelectionRetryMaxAttempts, "has no meaning without retry_host_predicate %q", HostPreviousHosts)
		return
	}
	switch {
	case !oneOf(v, q+".retry_host_predicate", pol.RetryHostPredicate, RetryHostPredicates...):
	case !backends:
		v.add(q+".retry_host_predicate", pol.RetryHostPredicate, "has no meaning: no dependency has backends to choose among")
	case !innermost:
		v.add(q+".retry_host_predicate", pol.RetryHostPredicate, "is for the innermost level (the last layer, or the policy without layers), whose attempts reach the dependency's backends")
	}
	v.intOr(q+".host_selection_retry_max_attempts", pol.HostSelectionRetryMaxAttempts, 1, 100, 1)
}
