package engine

import (
	"math"
	"slices"
)

// DefaultLoadLatencyMax is the largest factor by which a dependency's
// load-dependent latency multiplies a service time, when its MaxFactor is
// not given.
const DefaultLoadLatencyMax = 100

// MaxLoadPhases is the most load phases a workload may have.
const MaxLoadPhases = 20

// A loadPhase is a LoadPhase compiled: times in nanoseconds, and a
// flash crowd's peak rate.
type loadPhase struct {
	kind      LoadKind
	from, to  float64
	factor    float64
	rate      float64 // spike: the extra rate; flash: the peak extra rate
	amplitude float64
	period    float64
}

// A loadSeg is a span of time in which no load phase starts or ends, with
// an upper bound on the arrival rate in it: the arrivals draw candidates
// at that rate and keep each with the probability that the rate at its
// time is of it (thinning: Lewis and Shedler, "Simulation of
// nonhomogeneous Poisson processes by thinning", 1979).
type loadSeg struct {
	from, to float64 // ns
	max      float64 // operations per second
}

func compileLoad(phases []LoadPhase) []loadPhase {
	var out []loadPhase
	for _, lp := range phases {
		c := loadPhase{kind: lp.Kind, from: float64(lp.From), to: float64(lp.To), factor: lp.Factor,
			rate: lp.Rate, amplitude: lp.Amplitude, period: float64(lp.Period)}
		if lp.Kind == LoadFlash {
			c.rate = 2 * float64(lp.Operations) / (float64(lp.To-lp.From) / 1e9)
		}
		out = append(out, c)
	}
	return out
}

// rateAt returns the arrival rate at time t (ns), in operations per
// second: the base rate times the multipliers of the phases in effect,
// plus their extra rates, times the probe's cut from its time on.
func (w *workModel) rateAt(t float64) float64 {
	r, extra := w.rate, 0.0
	for i := range w.load {
		l := &w.load[i]
		if t < l.from || t >= l.to {
			continue
		}
		switch l.kind {
		case LoadStep:
			r = float64(r * l.factor)
		case LoadRamp:
			r = float64(r * (1 + float64((l.factor-1)*((t-l.from)/(l.to-l.from)))))
		case LoadDaily:
			r = float64(r * (1 + float64(l.amplitude*math.Sin(2*math.Pi*((t-l.from)/l.period)))))
		case LoadSpike:
			extra += l.rate
		case LoadFlash:
			extra += float64(l.rate * (1 - (t-l.from)/(l.to-l.from)))
		}
	}
	r += extra
	if w.cut && t >= float64(w.cutAt) {
		r = float64(r * (w.cutRate / w.rate))
	}
	return max(r, 0)
}

// loadSegs splits [0, end) at every time a load phase (or the probe's
// cut) starts or ends, with the highest rate each segment can reach.
func (w *workModel) loadSegs(end float64) []loadSeg {
	cuts := []float64{0, end}
	for _, l := range w.load {
		cuts = append(cuts, l.from, l.to)
	}
	if w.cut {
		cuts = append(cuts, float64(w.cutAt))
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var segs []loadSeg
	for i := 0; i+1 < len(cuts) && cuts[i] < end; i++ {
		a, b := cuts[i], min(cuts[i+1], end)
		segs = append(segs, loadSeg{from: a, to: b, max: w.peakRate(a, b)})
	}
	return segs
}

// peakRate bounds the arrival rate in [a, b), a span no phase starts or
// ends in.
func (w *workModel) peakRate(a, b float64) float64 {
	r, extra := w.rate, 0.0
	for _, l := range w.load {
		if b <= l.from || a >= l.to {
			continue
		}
		switch l.kind {
		case LoadStep:
			r *= l.factor
		case LoadRamp:
			// Linear: highest at one end of the span.
			at := func(t float64) float64 { return 1 + float64((l.factor-1)*((t-l.from)/(l.to-l.from))) }
			r *= max(at(a), at(b))
		case LoadDaily:
			r *= 1 + l.amplitude
		case LoadSpike:
			extra += l.rate
		case LoadFlash:
			extra += float64(l.rate * (1 - (a-l.from)/(l.to-l.from)))
		}
	}
	r += extra
	if w.cut && a >= float64(w.cutAt) {
		r = float64(r * (w.cutRate / w.rate))
	}
	// A little above, so that rounding never puts the rate over it.
	return max(r, 0) * (1 + 1e-9)
}

// loadGap moves a.t to the next arrival of a workload whose rate changes
// over time, and reports false when none comes before the end. Within a
// segment it draws candidates at the segment's peak rate and keeps each
// with probability rate/peak; a gap that would cross the segment's end
// is drawn again from there (the process is memoryless).
func (a *arrivals) loadGap() bool {
	for a.seg < len(a.segs) {
		sg := &a.segs[a.seg]
		if a.t >= sg.to || sg.max <= 0 {
			a.t = max(a.t, sg.to)
			a.seg++
			continue
		}
		t := a.t + float64(exp1(&a.r)*(1e9/sg.max))
		if t >= sg.to {
			a.t = sg.to
			a.seg++
			continue
		}
		a.t = t
		u := float64(a.r.Uint64()>>11) * 0x1p-53
		if float64(u*sg.max) < a.w.rateAt(t) {
			return true
		}
	}
	return false
}

// loadOperations bounds the operations a workload with load phases
// starts over its duration: the segments' peak rates times their lengths.
func loadOperations(w *Workload, rate float64) float64 {
	m := workModel{rate: rate, load: compileLoad(w.Load)}
	ops := 0.0
	for _, sg := range m.loadSegs(float64(w.Duration)) {
		ops += sg.max * (sg.to - sg.from) / 1e9
	}
	return ops
}

// loadLatencyModel is a dependency's LoadLatency, compiled.
type loadLatencyModel struct {
	law                              LatencyLaw
	inSystem                         bool
	knee, slope, power, sigma, kappa float64
	maxFactor                        float64
}

func compileLoadLatency(l *LoadLatency) *loadLatencyModel {
	if l == nil {
		return nil
	}
	m := &loadLatencyModel{law: l.Law, inSystem: l.Of == MeasureInSystem, knee: l.Knee, slope: l.Slope,
		power: l.Power, sigma: l.Sigma, kappa: l.Kappa, maxFactor: l.MaxFactor}
	if m.maxFactor == 0 {
		m.maxFactor = DefaultLoadLatencyMax
	}
	return m
}

// factor returns how much longer a service takes that starts with n
// requests at a dependency of workers workers (see LoadLatency).
func (l *loadLatencyModel) factor(n, workers int) float64 {
	var f float64
	x := max(0, float64(n)/float64(max(workers, 1))-l.knee)
	switch l.law {
	case LawLinear:
		f = 1 + float64(l.slope*x)
	case LawPolynomial:
		if x > 0 {
			f = 1 + float64(l.slope*exp(float64(l.power*ln(x))))
		} else {
			f = 1
		}
	case LawExponential:
		f = exp(float64(l.slope * x))
	case LawUSL:
		nf := float64(n)
		f = 1 + float64(l.sigma*(nf-1)) + float64(float64(l.kappa*nf)*(nf-1))
	}
	return min(max(f, 1), l.maxFactor)
}
