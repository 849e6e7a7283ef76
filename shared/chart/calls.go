package chart

import (
	"fmt"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// callStyle is the colour and dash of plan call k: each of the 16 calls a
// plan may have gets its own pair.
func callStyle(k int) (colour, dash int) {
	n := len(dashes)
	return k % n, (k + k/n) % n
}

// HasCalls reports whether res has a series per plan call for every
// strategy, which the calls picture draws.
func HasCalls(res *engine.Result) bool { return hasLines(res, callLines) }

// hasLines reports whether every strategy of res has a series with set's
// lines.
func hasLines(res *engine.Result, set lineSet) bool {
	if len(res.Strategies) == 0 {
		return false
	}
	for i := range res.Strategies {
		if se := res.Strategies[i].Series; se == nil || len(set.lines(se)) == 0 {
			return false
		}
	}
	return true
}

// A lineSet is what a picture of one line per part draws: the plan's
// calls, or the fleets.
type lineSet struct {
	what, desc string
	lines      func(*engine.Series) []engine.CallSeries
	pool       bool // the client pool's slots in use, under each panel that has one
}

var (
	callLines = lineSet{what: "attempts by plan call",
		desc:  "For each strategy, per time bucket: the attempts reaching each plan call's dependency, one line per call; with a client pool, the pool's slots in use underneath on their own scale. Shaded bands are the dependencies' phases.",
		lines: func(s *engine.Series) []engine.CallSeries { return s.Calls }, pool: true}
	fleetLines = lineSet{what: "calls by fleet",
		desc:  "For each strategy, per time bucket: the calls of each fleet's operations reaching a dependency (the load it offers, retries included), one line per fleet. Shaded bands are the phases.",
		lines: func(s *engine.Series) []engine.CallSeries { return s.Fleets }}
)

// HasFleets reports whether res has a series per fleet for every
// strategy, which the fleets picture draws.
func HasFleets(res *engine.Result) bool { return hasLines(res, fleetLines) }

// calls draws, per strategy, the attempts reaching each plan call's
// dependency over time, one line per call, and, when the strategy has a
// client pool, its slots in use on a scale of their own underneath.
//
// The pool is drawn here rather than in the queue picture: it is the
// client's, not the dependency's, a strategy without a pool has none, and
// its slots are held for a call's whole span (waits and retries included),
// so they read best against that strategy's calls.
func calls(res *engine.Result, opt Options) (*canvas, error) {
	if !HasCalls(res) {
		return nil, optionErr("picture %q needs a series per plan call: this result's plan has one call", Calls)
	}
	return lines(res, opt, callLines)
}

// fleets draws, per strategy, the calls each fleet's operations make
// reach a dependency over time: the load each fleet offers.
func fleets(res *engine.Result, opt Options) (*canvas, error) {
	if !HasFleets(res) {
		return nil, optionErr("picture %q needs a series per fleet: this result's workload has no fleets", Fleets)
	}
	return lines(res, opt, fleetLines)
}

// lines draws set's lines, one panel per strategy.
func lines(res *engine.Result, opt Options, set lineSet) (*canvas, error) {
	strats, err := strategiesOf(res)
	if err != nil {
		return nil, err
	}
	names := set.lines(strats[0].Series)
	for _, st := range strats {
		if len(set.lines(st.Series)) != len(names) {
			return nil, optionErr("the strategies' %s differ", set.what)
		}
	}
	panelH, poolH, gap := 96.0, 44.0, 40.0
	h := 84.0 + 36
	for _, st := range strats {
		h += panelH + gap
		if set.pool && st.Series.PoolInUse != nil {
			h += poolH + 22
		}
	}
	c := newCanvas(opt, 760, h, titleOf(res, set.what, widthOf(opt, 760)), set.desc)
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	var entries []string
	for _, cs := range names {
		entries = append(entries, clean(cs.Name, 40))
	}
	hasPool := false
	for _, st := range strats {
		hasPool = hasPool || set.pool && st.Series.PoolInUse != nil
	}
	if hasPool {
		entries = append(entries, "client pool: slots in use (own scale)")
	}
	lh := c.legend(marginL, 46, c.w-marginL-marginR, entries, func(i int, x, y float64) {
		if i == len(names) {
			s.rect(x+3, y-5, 12, 10, "kb c6")
			return
		}
		col, d := callStyle(i)
		s.dash(x, y, "l c"+strconv.Itoa(col)+" d"+strconv.Itoa(d))
	})
	bucketMS := strats[0].Series.BucketMS
	n := len(strats[0].Series.Attempts)
	k := outcomeBins(bucketMS, n, opt.Resolution)
	bucket := bucketMS * float64(k) / 1000
	nb := (n + k - 1) / k
	bin := func(v []int32, peak bool) []float64 {
		out := make([]float64, nb)
		for j, x := range v {
			if peak {
				out[j/k] = max(out[j/k], float64(x))
			} else {
				out[j/k] += float64(x)
			}
		}
		return out
	}
	data := make([][][]float64, len(strats))
	var hi float64
	for i, st := range strats {
		for _, cs := range set.lines(st.Series) {
			d := bin(cs.Attempts, false)
			for _, v := range d {
				hi = max(hi, v)
			}
			data[i] = append(data[i], d)
		}
	}
	top := niceMax(max(hi, 3), 3)
	y := 50 + lh
	span := max(float64(nb)*bucket, 1e-3)
	for i, st := range strats {
		p := &plot{x0: marginL, y0: y + 16, x1: c.w - marginR, y1: y + 16 + panelH, lo: 0, hi: span, top: top}
		s.text(marginL, y+10, "", "", named(opt, st.Name, 80))
		c.phases(p, res.Phases)
		pool := st.Series.PoolInUse
		if !set.pool {
			pool = nil
		}
		var xf func(float64) string
		if i == len(strats)-1 && pool == nil {
			xf = seconds
		}
		c.axes(p, "", "per "+resolutionName(time.Duration(bucket*1e9)), xf)
		for kk, d := range data[i] {
			col, dash := callStyle(kk)
			s.path(fmt.Sprintf("l c%d d%d", col, dash), centres(p, d, bucket))
		}
		c.phaseLabels(p, res.Phases)
		y += panelH + gap
		if pool != nil {
			// The most slots in use in each bar, on the pool's own scale:
			// a strip under the panel, with its top and zero marked.
			d := bin(pool, true)
			var most float64
			for _, v := range d {
				most = max(most, v)
			}
			q := &plot{x0: marginL, y0: p.y1 + 22, x1: c.w - marginR, lo: 0, hi: span, top: niceMax(max(most, 2), 4)}
			q.y1 = q.y0 + poolH
			s.text(q.x0, p.y1+17, "s", "", "client pool: slots in use, at most "+label(most))
			s.line(q.x0, q.y0, q.x1, q.y0, "g")
			s.text(q.x0-6, q.y0+4, "m", "end", label(q.top))
			s.text(q.x0-6, q.y1+4, "m", "end", "0")
			s.segs("kb c6", steps(q, d, bucket))
			s.line(q.x0, q.y1, q.x1, q.y1, "a")
			if i == len(strats)-1 {
				xs, _ := ticks(q.lo, q.hi, 8)
				for _, v := range xs {
					s.line(q.X(v), q.y1, q.X(v), q.y1+4, "a")
					s.text(q.X(v), q.y1+16, "m", "middle", seconds(v))
				}
			}
			y += poolH + 22
		}
	}
	s.text((marginL+c.w-marginR)/2, c.h-8, "m", "middle", timeAxis(res))
	return c, nil
}
