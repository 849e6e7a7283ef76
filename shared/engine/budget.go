// This file holds the retry budgets at work during a run: a token
// bucket, a ratio budget (over all time, a window, or Finagle's slices)
// and a concurrency budget asked for each retry, and what they count.

package engine

// budgetTake asks level lv's budget, whose state is in, for one retry of
// call c after outcome out. A granted retry counts against a ratio or
// concurrency budget at once, so retries granted during the same wait
// cannot together overshoot it; a token bucket charging retries takes
// the retry's cost.
func (s *sim) budgetTake(c *call, lv *levelModel, in *instance, out int16) bool {
	b := lv.budget
	switch lv.budgetKind {
	case budgetTokens:
		if !lv.chargeRetry {
			return in.tokens > b.Threshold
		}
		k := costClass(out)
		cost := lv.budgetCost[k]
		// The small tolerance absorbs rounding in fractional costs.
		if in.tokens-cost < b.Threshold-1e-9 {
			return false
		}
		in.tokens = max(in.tokens-cost, 0)
		c.charged = k
		return true
	case budgetConcurrency:
		r := in.retrying
		if lv.shareAttempts {
			// Envoy's RetryBudgetImpl (resource_manager_impl.h): canCreate
			// while count() < max(budget_percent × active, min), the
			// product truncated to an integer.
			if int64(r) >= max(int64(float64(b.Ratio*float64(in.attemptsOut))), int64(b.MinConcurrency)) {
				return false
			}
		} else if int(r) >= b.MinConcurrency && in.active+r > 0 && float64(r)/float64(in.active+r) > b.Ratio {
			// failsafe-go's budget.go TryAcquirePermit: refused when at
			// least min_concurrency retries are in progress and they make
			// up more than ratio of the executions in progress. The share
			// is divided, as there, so that a boundary such as 5 of 25
			// against 0.2 rounds the same.
			return false
		}
		in.retrying++
		c.permit = true
		return true
	}
	if b.Slices > 0 {
		// Finagle's TokenBucket.newLeakyBucket tryGet: the balance must
		// cover the withdrawal, which then counts in the current slice.
		w := int64(sliceDeposit / b.Ratio)
		reserve := int64(b.MinPerSecond * Duration(b.Window).D().Seconds() * float64(w))
		a := s.adder(in, b)
		if a.sum(s.now)+reserve < w {
			return false
		}
		a.add(s.now, -w)
		in.retries++
		return true
	}
	requests, retries := in.requests, in.retries
	reserve := 0.0
	if b.Window > 0 {
		in.reqTimes.dropBefore(s.now - int64(b.Window))
		in.retryTimes.dropBefore(s.now - int64(b.Window))
		requests, retries = int64(in.reqTimes.size), int64(in.retryTimes.size)
		reserve = float64(b.MinPerSecond * Duration(b.Window).D().Seconds())
	}
	// The retry itself must fit: retries+1 ≤ ratio·requests. The small
	// tolerance absorbs rounding in ratio·requests.
	if float64(retries+1) > float64(b.Ratio*float64(requests))+reserve+1e-9 {
		return false
	}
	in.retries++
	if b.Window > 0 {
		in.retryTimes.push(s.now)
	}
	return true
}

// sliceDeposit is what a first attempt deposits in a ratio budget with
// slices (Finagle's RetryBudget ScaleFactor); a retry withdraws
// ⌊sliceDeposit/ratio⌋.
const sliceDeposit = 1000

// adder returns the windowed balance of ratio budget b's state in,
// made at its first use (as Finagle's is when its client is made: the
// first use is at or after time 0, its clock's start).
func (s *sim) adder(in *instance, b *Budget) *windowedAdder {
	if in.adder == nil {
		in.adder = &windowedAdder{window: int64(b.Window) / int64(b.Slices), buf: make([]int64, b.Slices-1)}
	}
	return in.adder
}

// A windowedAdder is a sum over a window of time kept in slices: the
// current one (cur) and the n−1 before it (buf), as twitter/util's
// WindowedAdder (util-core, WindowedAdder.scala): a new slice starts at
// the first use at least window after the current one started (old), and
// slices skipped meanwhile are cleared.
type windowedAdder struct {
	window int64 // a slice's length
	buf    []int64
	i      int
	old    int64
	cur    int64
}

// expire starts a new slice if the current one is over.
func (a *windowedAdder) expire(now int64) {
	if now-a.old < a.window {
		return
	}
	n := len(a.buf)
	a.buf[a.i] = a.cur
	a.cur = 0
	a.i = (a.i + 1) % n
	if skip := int(min((now-a.old)/a.window-1, int64(n))); skip > 0 {
		for k := range skip {
			a.buf[(a.i+k)%n] = 0
		}
		a.i = (a.i + skip) % n
	}
	a.old = now
}

func (a *windowedAdder) add(now, x int64) {
	a.expire(now)
	a.cur += x
}

func (a *windowedAdder) sum(now int64) int64 {
	a.expire(now)
	t := a.cur
	for _, v := range a.buf {
		t += v
	}
	return t
}

// releaseConcurrency ends call c's retry in progress, if it has one, for
// its concurrency budget; and its invocation too when ended.
func (s *sim) releaseConcurrency(c *call, ended bool) {
	lv := &s.st.levels[c.level]
	in := &s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)]
	if c.permit {
		in.retrying--
		c.permit = false
	}
	if ended {
		in.active--
		if c.inflight && lv.shareAttempts {
			in.attemptsOut-- // an attempt cancelled in flight
		}
	}
}
