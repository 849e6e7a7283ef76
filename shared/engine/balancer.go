package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
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
}

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
}

// backendCounts count one backend's requests in a run.
type backendCounts struct {
	routed, ok, failed int64
}

// A balancerModel is a dependency's load balancer, compiled: its
// backends are the servers first..first+n-1 (see model.servers).
type balancerModel struct {
	kind  BalancerKind
	first uint8
	n     int
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
		first := len(m.servers)
		m.servers = m.depArray[:first+d.Backends.Count]
		for k := range d.Backends.Count {
			b := *d
			b.Phases = slices.DeleteFunc(slices.Clone(d.Phases), func(ph Phase) bool { return !ph.hits(k, d.Backends.Count) })
			m.servers[first+k], _ = compileDependency(&b)
			m.servers[first+k].name = m.deps[i].name
		}
		m.deps[i].bal = &balancerModel{kind: d.Backends.Balancer, first: uint8(first), n: d.Backends.Count}
		if m.deps[i].bal.kind == "" {
			m.deps[i].bal.kind = BalanceRoundRobin
		}
		m.deps[i].phases = nil // the backends' phases change them
	}
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
func overlapsBackends(d *Dependency, a, b *Phase) bool {
	if d.Backends == nil {
		return true
	}
	n := min(d.Backends.Count, MaxBackends)
	for k := range n {
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
	return pickBackend(b.kind, s.deps[b.first:int(b.first)+b.n], x)
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
// backends, with x a uniform random 64-bit draw: its high 32 bits make
// the first random choice, its low 32 bits the second.
func pickBackend(kind BalancerKind, backends []depState, x uint64) int {
	n := uint64(len(backends))
	hi, lo := int(((x>>32)*n)>>32), int(((x&0xffffffff)*n)>>32)
	switch kind {
	case BalancePowerOfTwo:
		if backends[lo].active < backends[hi].active {
			return lo
		}
		return hi
	case BalanceLeastRequest:
		least, ties := math.MaxInt, uint64(0)
		for i := range backends {
			switch a := backends[i].active; {
			case a < least:
				least, ties = a, 1
			case a == least:
				ties++
			}
		}
		j := int(((x >> 32) * ties) >> 32) // the j-th of the tied, at random
		for i := range backends {
			if backends[i].active == least {
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
				Succeeded: float64(c.ok), Failed: float64(c.failed), SuccessRate: ratio(float64(c.ok), float64(c.ok+c.failed))}
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
			if ph := &d.Phases[i]; len(ph.Backends) > 0 || ph.BackendShare != 0 {
				v.add(fmt.Sprintf("%sphases[%d].backends", p, i), nil, "has no meaning for a dependency without backends; give the dependency backends {\"count\", \"balancer\"} to aim a phase at some of them")
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
	for i := range d.Phases {
		ph := &d.Phases[i]
		q := fmt.Sprintf("%sphases[%d].", p, i)
		if len(ph.Backends) > 0 && ph.BackendShare != 0 {
			v.add(q+"backend_share", ph.BackendShare, "is given together with backends; select the backends by index or by share, not both")
		}
		if ph.BackendShare != 0 && !(ph.BackendShare > 0 && ph.BackendShare <= 1) {
			v.add(q+"backend_share", ph.BackendShare, "is out of range; a share of the backends is in (0, 1]")
		}
		if len(ph.Backends) > MaxBackends {
			v.add(q+"backends", nil, "lists %d backends; at most %d are allowed", len(ph.Backends), MaxBackends)
			continue
		}
		for j, k := range ph.Backends {
			if k < 0 || k >= b.Count {
				v.add(fmt.Sprintf("%sbackends[%d]", q, j), k, "is not a backend of the dependency; backends are numbered 0..%d", max(b.Count-1, 0))
			} else if slices.Index(ph.Backends, k) < j {
				v.add(fmt.Sprintf("%sbackends[%d]", q, j), k, "is listed twice; list each backend once")
			}
		}
	}
}

// servers checks that the dependencies of sc and their backends fit the
// engine's maxDeps servers.
func (v *validator) servers(sc *Scenario) {
	deps := sc.Dependencies
	if len(deps) == 0 {
		deps = []Dependency{sc.Dependency}
	}
	n := len(deps)
	for i := range deps {
		if b := deps[i].Backends; b != nil && b.Count >= 2 && b.Count <= MaxBackends {
			n += b.Count
		}
	}
	if n > maxDeps && len(deps) <= MaxDependencies {
		v.add("dependencies", nil, "has %d dependencies and backends together; at most %d are allowed (each dependency with backends counts once, and each backend once more)", n, maxDeps)
	}
	backends := n > len(deps)
	hosts := func(p string, levels []*Policy) {
		for l, pol := range levels {
			q := p
			if l > 0 {
				q = fmt.Sprintf("%s.layers[%d]", p, l-1)
			}
			if pol.RetryHostPredicate == "" {
				if pol.HostSelectionRetryMaxAttempts != 0 {
					v.add(q+".host_selection_retry_max_attempts", pol.HostSelectionRetryMaxAttempts, "has no meaning without retry_host_predicate %q", HostPreviousHosts)
				}
				continue
			}
			switch {
			case !oneOf(v, q+".retry_host_predicate", pol.RetryHostPredicate, RetryHostPredicates...):
			case !backends:
				v.add(q+".retry_host_predicate", pol.RetryHostPredicate, "has no meaning: no dependency has backends to choose among")
			case l < len(levels)-1:
				v.add(q+".retry_host_predicate", pol.RetryHostPredicate, "is for the innermost level (the last layer, or the policy without layers), whose attempts reach the dependency's backends")
			}
			v.intRange(q+".host_selection_retry_max_attempts", pol.HostSelectionRetryMaxAttempts, 0, 100)
		}
	}
	levels := func(pol *Policy, layers []Policy) []*Policy {
		ls := []*Policy{pol}
		for i := range layers {
			ls = append(ls, &layers[i])
		}
		return ls
	}
	for i := range sc.Strategies {
		st := &sc.Strategies[i]
		hosts(fmt.Sprintf("strategies[%d]", i), levels(&st.Policy, st.Layers))
	}
	for i := range sc.Workload.Fleets {
		f := &sc.Workload.Fleets[i]
		hosts(fmt.Sprintf("workload.fleets[%d]", i), levels(&f.Policy, f.Layers))
	}
}
