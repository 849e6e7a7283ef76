// This file holds a dependency's autoscaler: its settings, their checks,
// and what it does in a run (sampling, evaluating, warming workers up,
// removing them), with the log its series and scaling events come from.

package engine

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Defaults of an autoscaler: those of the Kubernetes Horizontal Pod
// Autoscaler (kubernetes.io, "Horizontal Pod Autoscaling": the
// controller's tolerance, and behavior.scaleDown's
// stabilizationWindowSeconds).
const (
	DefaultAutoscaleTolerance     = 0.1
	DefaultAutoscaleStabilization = Duration(300 * time.Second)
	// AutoscaleSamples is how many times in each evaluation period the
	// autoscaler samples its metric, evenly, the last at the evaluation.
	AutoscaleSamples = 10
)

// Autoscale adds or removes a dependency's workers toward a Target of
// its Metric, as the Kubernetes Horizontal Pod Autoscaler computes it.
// Every Period (at Period, 2·Period, …) it takes the Metric's mean over
// the period, from AutoscaleSamples samples of the busy workers (or the
// queued requests) summed over the period, divided by the workers it
// counts: those serving and those warming up (a worker warming up counts
// as idle, as the HPA counts a pod not yet ready at 0% when scaling up).
// With ratio = mean / Target, when |ratio − 1| > Tolerance (default
// 0.1) it recommends ceil(workers × ratio), else the workers it has,
// within [Min, Max]. A recommendation above the workers is applied at
// once; one below them is raised to the highest recommendation of the
// last ScaleDownStabilization (default 300 s), the current one included,
// so the workers fall only when every recommendation of that window
// says so (the autoscaler starts as if it had recommended Workers at 0).
// A worker added serves only after WarmUp. A worker removed
// is first one still warming up; a serving worker removed finishes the
// request it serves and takes no other. The dependency starts with its
// Workers, which must be within [Min, Max]. A capacity phase overrides
// the autoscaler: during it the workers are the phase's, those warming
// up are cancelled and no evaluation acts; after it the autoscaler
// starts from the phase's workers.
//
// Over Backends the autoscaler adds and removes backends, as the HPA
// scales a Deployment's pods behind a Service: Min and Max count
// backends (Count must be within them), and the metric is the ready
// backends' busy workers (or queued requests) in backends of the
// dependency's Workers, one warming up counting as idle. A backend added
// takes the lowest free slot of Max, one with nothing left to answer
// first, and joins the balancer's rotation after WarmUp; a backend
// removed (removedBackend says which) leaves the rotation at once and
// finishes what it was routed. Capacity phases then aim at backends and
// do not hold the autoscaler.
type Autoscale struct {
	Metric                 AutoscaleMetric `json:"metric"`
	Target                 float64         `json:"target"`
	Period                 Duration        `json:"period"`
	WarmUp                 Duration        `json:"warm_up,omitzero"`
	Min                    int             `json:"min"`
	Max                    int             `json:"max"`
	Tolerance              *float64        `json:"tolerance,omitempty"`
	ScaleDownStabilization *Duration       `json:"scale_down_stabilization,omitempty"`
}

// autoscaleModel is an Autoscale, compiled.
type autoscaleModel struct {
	queue         bool // the metric is queue_per_worker, else utilization
	target, tol   float64
	period        int64
	warmUp        int64
	min, max      int
	stabilization int64
}

func compileAutoscale(a *Autoscale) *autoscaleModel {
	if a == nil {
		return nil
	}
	am := &autoscaleModel{queue: a.Metric == MetricQueuePerWorker, target: a.Target, tol: DefaultAutoscaleTolerance,
		period: int64(a.Period), warmUp: int64(a.WarmUp), min: a.Min, max: a.Max, stabilization: int64(DefaultAutoscaleStabilization)}
	if a.Tolerance != nil {
		am.tol = *a.Tolerance
	}
	if a.ScaleDownStabilization != nil {
		am.stabilization = int64(*a.ScaleDownStabilization)
	}
	return am
}

// scaleState is an autoscaler's state in a run.
type scaleState struct {
	sample    int64 // samples taken so far
	sum       int64 // busy workers (or queued requests) summed over the period's samples
	warming   int   // workers warming up
	cancelled int   // of those, the ones removed: their warm-up ends with nothing
	held      bool  // a capacity phase overrides the autoscaler
	// recs are the recommendations of the last stabilization window
	// that may still be its highest: each is above every later one, so
	// the first is the window's highest (a monotonic queue: the
	// window's maximum at O(1) per evaluation, however many it holds).
	recs []recommendation
	// Over backends (see Autoscale), bit k stands for backend k: ready
	// are those in the balancer's rotation, pending those warming up;
	// created[k] is when backend k was added (0 for those at the start).
	ready, pending uint16
	created        [MaxBackends]int64
}

// A recommendation is a number of workers an evaluation recommended.
type recommendation struct {
	at      int64
	workers int
}

// A scaleEvent is an autoscaler's decision: its workers, serving and
// warming up, from From to To.
type scaleEvent struct {
	at       int64
	dep      uint8
	phase    bool // a capacity phase set the workers, not the autoscaler
	from, to int32
}

// A workersChange is a dependency's serving workers becoming n at at.
type workersChange struct {
	at  int64
	dep uint8
	n   int32
}

// startAutoscalers prepares the autoscalers of a run's dependencies and
// schedules their first samples.
func (s *sim) startAutoscalers() {
	for i := range s.nd {
		if am := s.dm[i].autoscale; am != nil {
			// It starts as if it had recommended the workers (or
			// backends) it has at 0: a window that reaches back to then
			// keeps them.
			if b := s.dm[i].bal; b != nil {
				s.deps[i].scale = &scaleState{recs: []recommendation{{at: 0, workers: b.count}}, ready: 1<<b.count - 1}
			} else {
				s.deps[i].scale = &scaleState{recs: []recommendation{{at: 0, workers: s.deps[i].workers}}}
			}
			s.q.push(am.period/AutoscaleSamples, evScaleSample, 0, uint32(i))
		}
	}
}

// scaleSample samples dependency dep's metric at s.now, evaluates at the
// end of each period, and schedules the next sample.
func (s *sim) scaleSample(dep uint8) {
	d, ds := s.dep(dep)
	am, sc := d.autoscale, ds.scale
	switch b := d.bal; {
	case b != nil:
		// Over backends: the ready backends' busy workers (or queued
		// requests), in backends of the dependency's workers at evaluation.
		for k := range b.n {
			if sc.ready&(1<<k) != 0 {
				bs := &s.deps[int(b.first)+k]
				if am.queue {
					sc.sum += int64(bs.queue.len())
				} else {
					sc.sum += int64(bs.busy)
				}
			}
		}
	case am.queue:
		sc.sum += int64(ds.queue.len())
	default:
		sc.sum += int64(ds.busy)
	}
	sc.sample++
	if sc.sample%AutoscaleSamples == 0 {
		switch {
		case d.bal != nil:
			s.evaluateBackends(dep, float64(sc.sum)/AutoscaleSamples/float64(max(d.workers, 1)))
		case !sc.held:
			s.evaluate(dep, float64(sc.sum)/AutoscaleSamples)
		}
		sc.sum = 0
	}
	// Sample j is at j·period/AutoscaleSamples: evaluations fall exactly on
	// the multiples of the period.
	next := (sc.sample + 1) * am.period / AutoscaleSamples
	if n := sc.sample + 1; n%AutoscaleSamples == 0 {
		next = n / AutoscaleSamples * am.period
	}
	s.q.push(next, evScaleSample, 0, uint32(dep))
}

// size returns the workers the autoscaler counts: serving and warming up.
func (sc *scaleState) size(ds *depState) int {
	return ds.workers + sc.warming - sc.cancelled
}

// evaluate decides dependency dep's workers at s.now from total, the
// period's mean of busy workers (or queued requests).
func (s *sim) evaluate(dep uint8, total float64) {
	d, ds := s.dep(dep)
	am, sc := d.autoscale, ds.scale
	cur := sc.size(ds)
	want := sc.stabilize(s.now, am.stabilization, cur, desiredWorkers(am, cur, total))
	if want == cur {
		return
	}
	s.c.scaling = append(s.c.scaling, scaleEvent{at: s.now, dep: dep, from: int32(cur), to: int32(want)})
	if want > cur {
		add := want - cur
		if am.warmUp == 0 {
			s.setWorkers(dep, ds.workers+add)
			return
		}
		sc.warming += add
		s.q.push(s.now+am.warmUp, evWarm, int32(add), uint32(dep))
		return
	}
	remove := cur - want
	c := min(remove, sc.warming-sc.cancelled)
	sc.cancelled += c
	if remove > c {
		s.setWorkers(dep, ds.workers-(remove-c))
	}
}

// evaluateBackends decides dependency dep's backends at s.now from
// total, the period's mean of the ready backends' busy workers (or queued
// requests) in backends: divided by the workers of one.
func (s *sim) evaluateBackends(dep uint8, total float64) {
	d, ds := s.dep(dep)
	am, sc, b := d.autoscale, ds.scale, d.bal
	cur := bits.OnesCount16(sc.ready | sc.pending)
	want := sc.stabilize(s.now, am.stabilization, cur, desiredWorkers(am, cur, total))
	if want == cur {
		return
	}
	s.c.scaling = append(s.c.scaling, scaleEvent{at: s.now, dep: dep, from: int32(cur), to: int32(want)})
	ready := sc.ready
	for range want - cur { // the lowest slot free, one drained first
		k, drained := -1, false
		for j := range b.n {
			if (sc.ready|sc.pending)&(1<<j) != 0 || drained {
				continue
			}
			if d := s.deps[int(b.first)+j].active == 0; k < 0 || d {
				k, drained = j, d
			}
		}
		sc.created[k] = s.now
		if am.warmUp == 0 {
			sc.ready |= 1 << k
		} else {
			sc.pending |= 1 << k
			s.q.push(s.now+am.warmUp, evWarm, int32(k), uint32(dep))
		}
	}
	for range cur - want {
		k := removedBackend(sc, b.n)
		if sc.pending&(1<<k) != 0 {
			sc.pending &^= 1 << k
			continue
		}
		sc.ready &^= 1 << k
		// Leaving the cluster, it leaves its outlier detection's state.
		c := &s.c.backends[int(b.first)-s.nd+k]
		c.fives, c.gateways, c.ejectedUntil, c.times = 0, 0, 0, 0
	}
	if sc.ready != ready {
		s.c.workers = append(s.c.workers, workersChange{at: s.now, dep: dep, n: int32(bits.OnesCount16(sc.ready))})
	}
}

// removedBackend returns the backend that scaling down removes first
// among the n slots of sc, following the order in which Kubernetes'
// ReplicaSet controller deletes pods (kubernetes.io, "ReplicaSet",
// Scaling a ReplicaSet): a backend warming up (a pod not ready) before a
// ready one, then the one added last (the newer pod first), then, where
// Kubernetes picks at random, the highest numbered.
func removedBackend(sc *scaleState, n int) int {
	best := -1
	for k := n - 1; k >= 0; k-- {
		if (sc.ready|sc.pending)&(1<<k) == 0 {
			continue
		}
		if best < 0 {
			best = k
			continue
		}
		kp, bp := sc.pending&(1<<k) != 0, sc.pending&(1<<best) != 0
		if kp && !bp || kp == bp && sc.created[k] > sc.created[best] {
			best = k
		}
	}
	return best
}

// stabilize records recommendation rec at now and returns the workers to
// have, cur counted: rec when it is not below cur, else the highest
// recommendation of the last window ns (those after now − window), at
// most cur.
func (sc *scaleState) stabilize(now, window int64, cur, rec int) int {
	k := 0 // recommendations older than the window no longer count
	for k < len(sc.recs) && sc.recs[k].at <= now-window {
		k++
	}
	n := len(sc.recs)
	for n > k && sc.recs[n-1].workers <= rec {
		n-- // never again the highest: rec is as high, and later
	}
	sc.recs = append(sc.recs[k:n], recommendation{at: now, workers: rec})
	if rec >= cur {
		return rec
	}
	return min(sc.recs[0].workers, cur) // the window's highest
}

// desiredWorkers returns the workers an evaluation recommends, cur
// counted, for total busy workers (or queued requests) on average:
// ceil(cur × ratio) outside the tolerance, cur inside, within [min, max].
// With no workers (a capacity phase left none) it recommends min.
// A product within 1e-9 of a whole number counts as it, so that 8 busy
// of 10 at a target of 0.8 recommends 10, not 11; and a ratio within
// 1e-9 of the tolerance's edge is inside it (7.2 busy of 10 at 0.8).
func desiredWorkers(am *autoscaleModel, cur int, total float64) int {
	if cur == 0 {
		return am.min // after a capacity phase of no workers: no ratio to scale
	}
	ratio := total / float64(cur) / am.target
	rec := cur
	if math.Abs(ratio-1) > am.tol+1e-9 {
		x := float64(cur) * ratio
		rec = int(math.Ceil(x - 1e-9))
	}
	return min(max(rec, am.min), am.max)
}

// warmed ends the warm-up of n workers of dependency dep: those not
// removed meanwhile start serving.
func (s *sim) warmed(dep uint8, n int) {
	d, ds := s.dep(dep)
	sc := ds.scale
	if d.bal != nil {
		// Over backends n is backend n: it joins the rotation unless it
		// was removed meanwhile (and maybe added again, later).
		if sc.pending&(1<<n) != 0 && sc.created[n]+d.autoscale.warmUp == s.now {
			sc.pending &^= 1 << n
			sc.ready |= 1 << n
			s.c.workers = append(s.c.workers, workersChange{at: s.now, dep: dep, n: int32(bits.OnesCount16(sc.ready))})
		}
		return
	}
	c := min(n, sc.cancelled)
	sc.cancelled -= c
	sc.warming -= n
	if n > c {
		s.setWorkers(dep, ds.workers+n-c)
	}
}

// setWorkers makes n workers serve dependency dep from s.now, logs the
// change and starts the new ones on the queue. Fewer workers end no
// service: a worker removed finishes its request (startNext starts none
// while busy ≥ workers).
func (s *sim) setWorkers(dep uint8, n int) {
	_, ds := s.dep(dep)
	ds.workers = n
	s.c.workers = append(s.c.workers, workersChange{at: s.now, dep: dep, n: int32(n)})
	s.startNext(dep)
}

// scaleCapacity applies the start or end of capacity phase ph to
// dependency dep, which has an autoscaler: the phase sets its workers
// and holds the autoscaler until its end.
func (s *sim) scaleCapacity(dep uint8, ph *phaseModel, starting bool) {
	_, ds := s.dep(dep)
	sc := ds.scale
	sc.held = starting
	if starting {
		s.c.scaling = append(s.c.scaling, scaleEvent{at: s.now, dep: dep, phase: true, from: int32(sc.size(ds)), to: int32(ph.workers)})
		sc.cancelled = sc.warming
		s.setWorkers(dep, ph.workers)
	}
}

// autoscaleBounds returns the fewest and the most workers dependency d
// (or each of its backends) can have: its Workers, or its autoscaler's
// Min and Max when it scales workers, not backends.
func autoscaleBounds(d *Dependency) (least, most int) {
	if a := d.Autoscale; a != nil && d.Backends == nil {
		return min(a.Min, d.Workers), max(a.Max, d.Workers)
	}
	return d.Workers, d.Workers
}

// autoscaleSamples returns at most how many events the autoscalers of
// sc add to a simulation: their samples over its longest span, and a
// warm-up's end at every evaluation.
func autoscaleSamples(sc *Scenario) float64 {
	n, span := 0.0, -1.0
	for _, d := range estimateDeps(sc) {
		if a := d.Autoscale; a != nil && a.Period > 0 {
			if span < 0 {
				_, span = estimateSpan(sc)
			}
			n += (math.Ceil(span/float64(a.Period)) + 1) * (AutoscaleSamples + 1)
		}
	}
	return n
}

// autoscale checks dependency d's autoscaler at path p.
func (v *validator) autoscale(p string, d *Dependency) {
	a := d.Autoscale
	oneOf(v, p+"metric", a.Metric, AutoscaleMetrics...)
	switch a.Metric {
	case MetricUtilization:
		if !(a.Target > 0 && a.Target <= 1) {
			v.add(p+"target", a.Target, "is out of range; a utilization target is a share of the workers busy, above 0 and at most 1")
		}
	case MetricQueuePerWorker:
		if !(a.Target > 0 && a.Target <= MaxQueue) {
			v.add(p+"target", a.Target, "is out of range; a target of queued requests per worker is above 0 and at most %d", MaxQueue)
		}
	}
	switch {
	case a.Period < Duration(time.Millisecond):
		v.add(p+"period", a.Period, "is shorter than 1ms; the evaluation period is 1ms..%s (Kubernetes evaluates every 15s)", MaxSpan)
	case a.Period > MaxSpan:
		v.add(p+"period", a.Period, "is longer than the maximum %s", MaxSpan)
	}
	v.span(p+"warm_up", a.WarmUp, true)
	if b := d.Backends; b != nil {
		for _, f := range []struct {
			name string
			n    int
		}{{"min", a.Min}, {"max", a.Max}} {
			if f.n < 1 || f.n > MaxBackends {
				v.add(p+f.name, f.n, "is out of range; with backends the autoscaler adds and removes backends behind the balancer, and %s counts backends, 1..%d", f.name, MaxBackends)
			}
		}
	} else {
		v.intRange(p+"min", a.Min, 1, MaxWorkers)
		v.intRange(p+"max", a.Max, 1, MaxWorkers)
	}
	if a.Max < a.Min {
		v.add(p+"max", a.Max, "is below min %d; max must be at least min", a.Min)
	}
	if b := d.Backends; b != nil {
		if b.Count < a.Min || b.Count > a.Max {
			v.add(p+"min", a.Min, "and max %d do not hold backends.count %d; with backends the autoscaler adds and removes backends, and the dependency starts with its count, which must be within min..max", a.Max, b.Count)
		}
	} else if d.Workers < a.Min || d.Workers > a.Max {
		v.add(p+"min", a.Min, "and max %d do not hold workers %d; the dependency starts with its workers, which must be within min..max", a.Max, d.Workers)
	}
	if t := a.Tolerance; t != nil && !(*t >= 0 && *t < 1) {
		v.add(p+"tolerance", *t, "is out of range; the tolerance is at least 0 and below 1 (%g when not given)", DefaultAutoscaleTolerance)
	}
	if w := a.ScaleDownStabilization; w != nil {
		v.span(p+"scale_down_stabilization", *w, true)
	}
}

// A ScalingEvent is a change of an autoscaled dependency's workers, those
// serving and those warming up, From to To: an autoscaler's decision, or
// a capacity phase's start (Phase). Dependency names it, when the
// scenario has several.
type ScalingEvent struct {
	AtS        float64 `json:"at_s"`
	Dependency string  `json:"dependency,omitempty"`
	From       int     `json:"from"`
	To         int     `json:"to"`
	Phase      bool    `json:"phase,omitempty"`
}

// WorkerSeries are an autoscaled dependency's workers per bucket, at the
// bucket's end: those serving (workers removed still finishing a request
// not counted) and, in Target, those and those warming up. Dependency
// names it, when the scenario has several.
type WorkerSeries struct {
	Dependency string  `json:"dependency,omitempty"`
	Serving    []int32 `json:"serving"`
	Target     []int32 `json:"target"`
}

// maxScaling is how many scaling events a result keeps per strategy.
const maxScaling = 1000

// scalingEvents returns a run's scaling events, at most maxScaling.
func scalingEvents(m *model, evs []scaleEvent) []ScalingEvent {
	var out []ScalingEvent
	for _, e := range evs[:min(len(evs), maxScaling)] {
		ev := ScalingEvent{AtS: round6(float64(e.at) / 1e9), From: int(e.from), To: int(e.to), Phase: e.phase}
		if len(m.deps) > 1 {
			ev.Dependency = m.deps[e.dep].name
		}
		out = append(out, ev)
	}
	return out
}

// workerSeries returns the workers of each autoscaled dependency of run r
// in n buckets of bucket ns.
func workerSeries(r *runOutput, m *model, bucket int64, n int) []WorkerSeries {
	var out []WorkerSeries
	for i := range m.deps {
		if m.deps[i].autoscale == nil {
			continue
		}
		ws := WorkerSeries{Serving: make([]int32, n), Target: make([]int32, n)}
		if len(m.deps) > 1 {
			ws.Dependency = m.deps[i].name
		}
		serving := int32(m.deps[i].workers)
		if b := m.deps[i].bal; b != nil {
			serving = int32(b.count) // over backends: the backends ready
		}
		target := serving
		wi, si := 0, 0
		for b := range n {
			end := int64(b+1) * bucket
			for ; wi < len(r.workers) && r.workers[wi].at < end; wi++ {
				if w := r.workers[wi]; int(w.dep) == i {
					serving = w.n
				}
			}
			for ; si < len(r.scaling) && r.scaling[si].at < end; si++ {
				if e := r.scaling[si]; int(e.dep) == i {
					target = e.to
				}
			}
			ws.Serving[b], ws.Target[b] = serving, target
		}
		out = append(out, ws)
	}
	return out
}

// scalingOutput returns run r's scaling events and worker changes as a
// Part holds them.
func scalingOutput(r *runOutput) (scaling [][5]int64, workers [][3]int64) {
	for _, e := range r.scaling {
		p := int64(0)
		if e.phase {
			p = 1
		}
		scaling = append(scaling, [5]int64{e.at, int64(e.dep), int64(e.from), int64(e.to), p})
	}
	for _, w := range r.workers {
		workers = append(workers, [3]int64{w.at, int64(w.dep), int64(w.n)})
	}
	return scaling, workers
}

// scalingInput sets r's scaling events and worker changes from o's,
// checking that they fit model m.
func (o *SimulationOutput) scalingInput(m *model, r *runOutput) error {
	for _, e := range o.Scaling {
		if e[1] < 0 || e[1] >= int64(len(m.deps)) || m.deps[e[1]].autoscale == nil || e[2] < 0 || e[3] < 0 || e[2] > MaxWorkers || e[3] > MaxWorkers || e[4] < 0 || e[4] > 1 {
			return fmt.Errorf("a scaling event %v out of range", e)
		}
		r.scaling = append(r.scaling, scaleEvent{at: e[0], dep: uint8(e[1]), from: int32(e[2]), to: int32(e[3]), phase: e[4] == 1})
	}
	for _, w := range o.Workers {
		if w[1] < 0 || w[1] >= int64(len(m.deps)) || m.deps[w[1]].autoscale == nil || w[2] < 0 || w[2] > MaxWorkers {
			return fmt.Errorf("a change of workers %v out of range", w)
		}
		r.workers = append(r.workers, workersChange{at: w[0], dep: uint8(w[1]), n: int32(w[2])})
	}
	return nil
}
