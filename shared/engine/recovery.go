package engine

import (
	"math"
	"time"
)

// recoveryStep is the step of the windows recovery is measured over.
const recoveryStep = int64(100 * time.Millisecond)

// recoveryWindow is the window recovery is measured over, in steps: 1 s.
const recoveryWindow = 10

// settleSteps is how many steps recoveryCounts holds before it decides
// the windows it can and drops their steps.
const settleSteps = 2048

// judgedSteps returns how many recoveryStep steps from faultEnd on hold
// the starts of the operations recovery is judged on: those that start
// while the workload still arrives at its nominal rate (until
// arrivalsEnd, lastArrival's estimate) and whose whole horizon, the
// longest an operation of the strategy can last (horizon, the bound
// estimateOperation gives the span estimate: its deadline or
// max_elapsed, else its attempts' time-outs and backoff waits), ends by
// then. An operation started later may succeed only because arrivals
// stopped and the backlog drained: that proves nothing about recovery,
// which is successes returning under the load that the trigger met
// (Bronson et al., HotOS 2021; Huang et al., OSDI 2022: a metastable
// failure persists at unchanged load). Times in nanoseconds; 0 when no
// step is judged.
func judgedSteps(faultEnd int64, arrivalsEnd, horizon float64) int {
	span := arrivalsEnd - horizon - float64(faultEnd)
	if !(span >= float64(recoveryStep)) {
		return 0
	}
	return int(math.Floor(span / float64(recoveryStep)))
}

// recoveryCounts counts the operations that started after the end of the
// last fault and before the end of the judged span (judgedSteps) by their
// start, per recoveryStep: how many, how many succeeded, and how many have
// not ended. Operations started later are not counted. Operations start in time order,
// so no operation ending later can have started before the oldest one
// still open: every window of steps before it is decided as the run goes,
// and those steps dropped. A run holds the steps from its oldest open
// operation's on (and a window's more), not one per 100 ms of its
// duration.
type recoveryCounts struct {
	total, ok, open []int32 // per step, from step first on
	first           int     // the step of total[0]
	steps           int     // one past the latest step an operation that ended started in
	// from is one past the latest window start known to fail: the
	// earliest step from which no window decided fails.
	from   int
	keep   int // settle when more steps than this (or settleSteps) are held
	judged int // the steps judged: those before it are counted
}

// reset empties r for another run of a strategy judged over judged steps
// (strategyModel.judged), keeping its memory.
func (r *recoveryCounts) reset(judged int) {
	r.total, r.ok, r.open = r.total[:0], r.ok[:0], r.open[:0]
	r.first, r.steps, r.from, r.keep = 0, 0, 0, 0
	r.judged = judged
}

// grow makes room for step k.
func (r *recoveryCounts) grow(k int) {
	for len(r.total) <= k-r.first {
		r.total, r.ok, r.open = append(r.total, 0), append(r.ok, 0), append(r.open, 0)
	}
}

// start counts an operation starting at step k, no earlier than any
// operation counted before; after the judged span, none.
func (r *recoveryCounts) start(k int) {
	if k >= r.judged {
		return
	}
	r.grow(k)
	r.open[k-r.first]++
	if len(r.total) > max(r.keep, settleSteps) {
		r.settle()
		r.keep = 2 * len(r.total)
	}
}

// end counts an operation that started at step k ending; after the
// judged span, none.
func (r *recoveryCounts) end(k int, ok bool) {
	if k >= r.judged {
		return
	}
	r.grow(k)
	i := k - r.first
	r.total[i]++
	if ok {
		r.ok[i]++
	}
	r.open[i]--
	r.steps = max(r.steps, k+1)
}

// fails reports whether the window from step k fails: fewer than 99% of
// the operations started in it succeeded. Steps not held count nothing.
func (r *recoveryCounts) fails(k int) bool {
	var t, o int32
	for j := k - r.first; j < min(k-r.first+recoveryWindow, len(r.total)); j++ {
		t += r.total[j]
		o += r.ok[j]
	}
	return t > 0 && float64(o) < float64(0.99*float64(t))
}

// settle decides the windows that lie before the oldest open operation's
// step (or before the latest step, which may see more starts), and drops
// the steps no window to decide needs.
func (r *recoveryCounts) settle() {
	f := len(r.total) - 1
	for i, n := range r.open[:f] {
		if n > 0 {
			f = i
			break
		}
	}
	// Steps before first+f are final: so are the windows that end by then.
	last := f - recoveryWindow // the last window to decide, as an index
	for i := last; i >= 0; i-- {
		if r.fails(r.first + i) {
			r.from = r.first + i + 1
			break
		}
	}
	if d := last + 1; d > 0 {
		n := copy(r.total, r.total[d:])
		copy(r.ok, r.ok[d:])
		copy(r.open, r.open[d:])
		r.total, r.ok, r.open = r.total[:n], r.ok[:n], r.open[:n]
		r.first += d
	}
}

// recovery returns the time from the end of the last fault until the
// success rate of operations started in every 1 s window from then on
// (stepped by 100 ms) stays at or above 99%, to the end of the judged span
// (judgedSteps), and 1; only windows wholly inside the judged span are
// judged. When the window starting then is not inside it, or no judged
// operation starts then or later, the bad state lasted as long as the
// workload arrived and the run did not recover under load: no time
// (NotApplicable) and 0. Without a fault window (no phase that harms a
// dependency, no report.recovery_from) there is nothing to recover from,
// and with a judged span shorter than one window there is nothing to
// judge: recovery does not apply, both NotApplicable (even when the
// dependency fails all along: errors of its own, load_errors, a property
// of the dependency, with no end to measure from).
func (r *recoveryCounts) recovery(m *model) (sec, recovered Optional) {
	if m.faultEnd == 0 || r.judged < recoveryWindow {
		return NotApplicable, NotApplicable
	}
	last := r.judged - recoveryWindow // the last window judged
	// The earliest step from which no window fails: walk back from the
	// last window judged over the windows not decided yet.
	from := r.from
	for k := min(r.steps-1, last); k >= max(r.first, from); k-- {
		if r.fails(k) {
			from = k + 1
			break
		}
	}
	if from <= last && from < r.steps {
		return Optional(round3(float64(int64(from)*recoveryStep) / 1e9)), 1
	}
	return NotApplicable, 0
}
