package engine

import "time"

// recoveryStep is the step of the windows recovery is measured over.
const recoveryStep = int64(100 * time.Millisecond)

// recoveryWindow is the window recovery is measured over, in steps: 1 s.
const recoveryWindow = 10

// settleSteps is how many steps recoveryCounts holds before it decides
// the windows it can and drops their steps.
const settleSteps = 2048

// recoveryCounts counts the operations that started after the end of the
// last fault by their start, per recoveryStep: how many, how many
// succeeded, and how many have not ended. Operations start in time order,
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
	from int
	keep int // settle when more steps than this (or settleSteps) are held
}

// reset empties r for another run, keeping its memory.
func (r *recoveryCounts) reset() {
	r.total, r.ok, r.open = r.total[:0], r.ok[:0], r.open[:0]
	r.first, r.steps, r.from, r.keep = 0, 0, 0, 0
}

// grow makes room for step k.
func (r *recoveryCounts) grow(k int) {
	for len(r.total) <= k-r.first {
		r.total, r.ok, r.open = append(r.total, 0), append(r.ok, 0), append(r.open, 0)
	}
}

// start counts an operation starting at step k, no earlier than any
// operation counted before.
func (r *recoveryCounts) start(k int) {
	r.grow(k)
	r.open[k-r.first]++
	if len(r.total) > max(r.keep, settleSteps) {
		r.settle()
		r.keep = 2 * len(r.total)
	}
}

// end counts an operation that started at step k ending.
func (r *recoveryCounts) end(k int, ok bool) {
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
// (stepped by 100 ms) stays at or above 99%, and whether that happened
// before the last operation started. Without operations after the fault
// it cannot be measured: 0 and 0. Without a fault window (no phase that
// harms a dependency, no report.recovery_from) there is nothing to
// recover from: 0 and 0 here, and the result says recovery does not
// apply (summarize), even when the dependency fails all along (errors of
// its own, load_errors: a property of the dependency, with no end to
// measure from).
func (r *recoveryCounts) recovery(m *model) (sec, recovered float64) {
	if m.faultEnd == 0 {
		return 0, 0
	}
	if r.steps == 0 {
		return 0, 0
	}
	// The earliest step from which no window fails: walk back from the
	// end over the windows not decided yet.
	from := r.from
	for k := r.steps - 1; k >= max(r.first, from); k-- {
		if r.fails(k) {
			from = k + 1
			break
		}
	}
	if from < r.steps {
		return round3(float64(int64(from)*recoveryStep) / 1e9), 1
	}
	return round3(float64(int64(r.steps)*recoveryStep) / 1e9), 0
}
