//go:build !nosearch

// The frontier picture is left out of a build without searches (the
// Cloudflare Worker, for its size): no result there has a search to draw.
// frontier_none.go is the other side of this pair.

package chart

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// frontier draws a search's Pareto frontier: each point on the first two
// objectives (x, y), with whiskers for its range over the seeds, the
// points joined in order along x, each numbered as the frontier table
// numbers it, the recommended one ringed and labelled. A search of one
// objective draws it against the points' rank. The result keeps the
// frontier only, not the other candidates, so only the frontier is drawn.
func frontier(res *engine.Result, opt Options) (*canvas, error) {
	s, r := opt.Search, res.Search
	switch {
	case r == nil:
		return nil, optionErr("this result has no search: the frontier picture draws a policy search's frontier")
	case s == nil || len(s.Objectives) == 0:
		return nil, optionErr("the frontier picture needs the scenario's search (its objectives name the axes)")
	case len(r.Frontier) == 0:
		return nil, optionErr("the search's frontier is empty: no candidate meets its constraints")
	}
	n := len(r.Frontier)
	// Each axis: a metric (or the rank), its values with their ranges.
	type axis struct {
		metric, label string
		v, lo, hi     []float64
	}
	read := func(o engine.Objective) axis {
		a := axis{metric: o.Metric, label: metricLabel(o.Metric) + goalWords(o.Goal)}
		for _, p := range r.Frontier {
			v, _ := p.Metrics.Metric(o.Metric)
			lo, hi := v, v
			if mm, ok := p.Spread[o.Metric]; ok {
				lo, hi = mm.Min, mm.Max
			}
			a.v, a.lo, a.hi = append(a.v, v), append(a.lo, lo), append(a.hi, hi)
		}
		return a
	}
	var xa, ya axis
	if len(s.Objectives) == 1 {
		xa = axis{label: "frontier point, best first"}
		for i := range n {
			k := float64(i + 1)
			xa.v, xa.lo, xa.hi = append(xa.v, k), append(xa.lo, k), append(xa.hi, k)
		}
		ya = read(s.Objectives[0])
	} else {
		xa, ya = read(s.Objectives[0]), read(s.Objectives[1])
	}
	what := "search frontier"
	desc := fmt.Sprintf("The %d points of the policy search's Pareto frontier (from strategy %s, %d candidates), by %s", n, r.Strategy, r.Evaluated, strings.ToLower(xa.label))
	if len(s.Objectives) == 1 {
		desc = fmt.Sprintf("The %d points of the policy search's Pareto frontier (from strategy %s, %d candidates), best first, by %s", n, r.Strategy, r.Evaluated, strings.ToLower(ya.label))
	} else {
		desc += " and " + strings.ToLower(ya.label)
	}
	desc += "; whiskers span each point's range over the seeds."
	if r.Recommendation != nil {
		desc += " Recommended: point 1. " + r.Recommendation.Reason
	}
	c := newCanvas(opt, 760, 440, titleOf(res, what, widthOf(opt, 760)), xmlText(clean(desc, 600)))
	sv := &c.body
	sv.text(marginL, 24, "t", "", c.title)
	sub := fmt.Sprintf("%d frontier points of %d candidates, numbered as in the table", n, r.Evaluated)
	if len(s.Objectives) > 2 {
		sub += fmt.Sprintf("; %d more objectives are in the table", len(s.Objectives)-2)
	}
	size := 11.0 // .m
	if largeText(c.w) {
		size = 13
	}
	// The subtitle and the axes' labels take a second line rather than be
	// cut (a narrow chart's larger text), the plot giving way to them.
	lead := size + 3 // from one line's baseline to the next
	subs := labelLines(sub, c.w-marginL-marginR, size)
	for i, l := range subs {
		sv.text(marginL, 42+float64(i)*lead, "m", "", l)
	}
	top := 62 + float64(len(subs)-1)*lead
	ylines := labelLines(ya.label, c.h-56-top, size)
	left := marginL + 18 + float64(len(ylines)-1)*lead
	p := struct{ x0, y0, x1, y1 float64 }{left, top, c.w - marginR - 12, c.h - 56}
	// scale fits an axis's values and ranges to round ticks, padded so that
	// no point sits on the frame.
	scale := func(a axis, n int) (lo, hi, step float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for i := range a.v {
			lo, hi = min(lo, a.lo[i], a.v[i]), max(hi, a.hi[i], a.v[i])
		}
		if hi-lo < 1e-9*max(1, math.Abs(hi)) {
			pad := max(math.Abs(hi)*0.05, 1e-3)
			lo, hi = lo-pad, hi+pad
		}
		_, step = ticks(lo, hi, n)
		lo = math.Floor(lo/step+1e-9) * step
		hi = math.Ceil(hi/step-1e-9) * step
		return lo - step/2, hi + step/2, step
	}
	xlo, xhi, xstep := scale(xa, 6)
	if xa.metric == "" {
		xlo, xhi, xstep = 0.5, float64(n)+0.5, 1
		if n > 12 {
			_, xstep = ticks(1, float64(n), 8)
		}
	}
	ylo, yhi, ystep := scale(ya, 5)
	X := func(v float64) float64 { return p.x0 + (v-xlo)/(xhi-xlo)*(p.x1-p.x0) }
	Y := func(v float64) float64 { return p.y1 - (v-ylo)/(yhi-ylo)*(p.y1-p.y0) }
	tick := func(metric string, v, step float64) string {
		if metric == "" {
			return strconv.Itoa(int(math.Round(v)))
		}
		return fineLabel(metric, v, step)
	}
	for v := math.Ceil(ylo/ystep-1e-9) * ystep; v <= yhi+1e-9; v += ystep {
		y := Y(v)
		sv.line(p.x0, y, p.x1, y, "g")
		sv.text(p.x0-6, y+4, "m", "end", tick(ya.metric, v, ystep))
	}
	for v := math.Ceil(xlo/xstep-1e-9) * xstep; v <= xhi+1e-9; v += xstep {
		x := X(v)
		if xa.metric != "" {
			sv.line(x, p.y0, x, p.y1, "g")
		}
		sv.text(x, p.y1+16, "m", "middle", tick(xa.metric, v, xstep))
	}
	sv.line(p.x0, p.y1, p.x1, p.y1, "a")
	sv.line(p.x0, p.y0, p.x0, p.y1, "a")
	for i, l := range labelLines(xa.label, p.x1-p.x0, size) {
		sv.text((p.x0+p.x1)/2, p.y1+34+float64(i)*lead, "m", "middle", l)
	}
	for i, l := range ylines {
		x := p.x0 - 62 - float64(len(ylines)-1-i)*lead
		sv.up(x, (p.y0+p.y1)/2, "m", l)
	}
	// The points in order along x (then y) for the line that joins them.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(xa.v[a], xa.v[b]), cmp.Compare(ya.v[a], ya.v[b]))
	})
	var line []point
	for _, i := range order {
		line = append(line, point{X(xa.v[i]), Y(ya.v[i])})
	}
	sv.path("l c0", line)
	drawn := map[[4]float64]bool{} // tied points' whiskers, once
	for i := range n {
		x, y := X(xa.v[i]), Y(ya.v[i])
		if xa.lo[i] != xa.hi[i] && !drawn[[4]float64{xa.lo[i], xa.hi[i], y, 0}] {
			drawn[[4]float64{xa.lo[i], xa.hi[i], y, 0}] = true
			a, b := X(xa.lo[i]), X(xa.hi[i])
			sv.line(a, y, b, y, "w")
			sv.line(a, y-3, a, y+3, "w")
			sv.line(b, y-3, b, y+3, "w")
		}
		if ya.lo[i] != ya.hi[i] && !drawn[[4]float64{ya.lo[i], ya.hi[i], x, 1}] {
			drawn[[4]float64{ya.lo[i], ya.hi[i], x, 1}] = true
			a, b := Y(ya.lo[i]), Y(ya.hi[i])
			sv.line(x, a, x, b, "w")
			sv.line(x-3, a, x+3, a, "w")
			sv.line(x-3, b, x+3, b, "w")
		}
	}
	// Points drawn where another already is share one label: "1, 2".
	type spot struct {
		x, y float64
		ids  []string
	}
	var spots []spot
	for i := range n {
		x, y := X(xa.v[i]), Y(ya.v[i])
		k := -1
		for j := range spots {
			if math.Abs(spots[j].x-x) < 1 && math.Abs(spots[j].y-y) < 1 {
				k = j
			}
		}
		if k < 0 {
			spots = append(spots, spot{x: x, y: y})
			k = len(spots) - 1
			sv.circle(x, y, 4.5, "k c0")
		}
		spots[k].ids = append(spots[k].ids, strconv.Itoa(i+1))
	}
	for _, sp := range spots {
		text := strings.Join(sp.ids, ", ")
		if len(sp.ids) > 3 {
			text = sp.ids[0] + "–" + sp.ids[len(sp.ids)-1]
		}
		anchor, dx := "", 8.0
		if sp.x > p.x1-60 {
			anchor, dx = "end", -8
		}
		sv.text(sp.x+dx, sp.y-7, "s", anchor, text)
	}
	if r.Recommendation != nil {
		x, y := X(xa.v[0]), Y(ya.v[0])
		sv.circle(x, y, 9, "w")
		anchor, dx := "", 14.0
		if x > (p.x0+p.x1)/2 {
			anchor, dx = "end", -14
		}
		ly := y + 18
		if ly > p.y1-4 {
			ly = y - 18
		}
		sv.text(x+dx, ly, "m", anchor, "recommended")
	}
	return c, nil
}

// goalWords says which way an objective improves, for an axis label.
func goalWords(g engine.Goal) string {
	if g == engine.GoalMin {
		return ", lower is better"
	}
	return ", higher is better"
}
