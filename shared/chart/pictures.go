package chart

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

const (
	marginL = 64.0
	marginR = 18.0
)

// labelLines breaks a label into at most two lines that each fit in room
// at the font size: whole when it fits, else after its last ", " (a
// frontier axis's "higher is better" goes to the second line) or at the
// last space that lets the first line fit. A second line still too long is
// cut with an ellipsis, as is a label without such a break.
func labelLines(s string, room, size float64) []string {
	if textWidth(s, size) <= room {
		return []string{fit(s, room, size)}
	}
	cut := -1
	if i := strings.LastIndex(s, ", "); i > 0 && textWidth(s[:i+1], size) <= room {
		cut = i + 1
	} else {
		for i := len(s) - 1; i > 0; i-- {
			if s[i] == ' ' && textWidth(s[:i], size) <= room {
				cut = i
				break
			}
		}
	}
	if cut < 0 {
		return []string{fit(s, room, size)}
	}
	return []string{fit(strings.TrimSpace(s[:cut]), room, size), fit(strings.TrimSpace(s[cut:]), room, size)}
}

// widthOf is the width a chart will have: the option's, or the default.
func widthOf(opt Options, def float64) float64 {
	if opt.Width > 0 {
		return opt.Width
	}
	return def
}

// windows returns the calls reaching the dependency per window of res, from
// the fine series when there is one at that resolution, or by adding up the
// series' buckets when res is a multiple of the bucket.
func windows(st *engine.StrategyResult, res time.Duration) ([]int32, bool) {
	resMS := float64(res) / 1e6
	for _, f := range st.Series.Fine {
		if f.ResolutionMS == resMS {
			return f.Attempts, true
		}
	}
	b := st.Series.BucketMS
	if k := resMS / b; k >= 1 && k == math.Trunc(k) {
		n := int(k)
		out := make([]int32, (len(st.Series.Attempts)+n-1)/n)
		for i, v := range st.Series.Attempts {
			out[i/n] += v
		}
		return out, true
	}
	return nil, false
}

func resolutionName(res time.Duration) string {
	if res >= time.Second && res%time.Second == 0 {
		return strconv.Itoa(int(res/time.Second)) + " s"
	}
	return strconv.FormatFloat(float64(res)/1e6, 'f', -1, 64) + " ms"
}

func attempts(res *engine.Result, opt Options) (*canvas, error) {
	strats, err := strategiesOf(res)
	if err != nil {
		return nil, err
	}
	r := opt.Resolution
	if r == 0 {
		r = 100 * time.Millisecond
	}
	rn := resolutionName(r)
	data := make([][]int32, len(strats))
	n := 0
	for i := range strats {
		d, ok := windows(&strats[i], r)
		if !ok {
			return nil, optionErr("resolution %s is not available for this result: use one of its peak resolutions or a multiple of its %s series bucket", rn, resolutionName(time.Duration(strats[i].Series.BucketMS*1e6)))
		}
		data[i] = d
		n = max(n, len(d))
	}
	what, desc := "calls reaching the dependency per "+rn, fmt.Sprintf("Calls reaching the dependency in each %s window, one line per strategy; shaded bands are the dependency's phases.", rn)
	if severalDeps(res) {
		what, desc = "calls reaching the dependencies per "+rn, fmt.Sprintf("Calls reaching any of the dependencies in each %s window, one line per strategy; shaded bands are the dependencies' phases.", rn)
	}
	c := newCanvas(opt, 760, 400, titleOf(res, what, widthOf(opt, 760)), xmlText(clean(desc, 300)))
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	var entries []string
	peaks := make([]point, len(strats))
	var top float64
	for i, d := range data {
		var best int32
		at := 0
		for j, v := range d {
			if v > best {
				best, at = v, j
			}
		}
		t := float64(at) * r.Seconds()
		peaks[i] = point{t + r.Seconds()/2, float64(best)}
		top = max(top, float64(best))
		entries = append(entries, fmt.Sprintf("%s · peak %d / %s at %s s", named(opt, strats[i].Name, 44), best, rn, label(t)))
	}
	lh := c.legend(marginL, 46, c.w-marginL-marginR, entries, lineMarker(s))
	span := float64(n) * r.Seconds()
	p := &plot{x0: marginL, y0: 50 + lh, x1: c.w - marginR, y1: c.h - 46, lo: 0, hi: max(span, 1e-3), top: niceMax(max(top, 4), 4)} // counts: whole ticks
	c.phases(p, res.Phases)
	c.axes(p, timeAxis(res), "calls per "+rn, seconds)
	for i, d := range data {
		cls := fmt.Sprintf("l c%d d%d", i%len(dashes), i%len(dashes))
		s.path(cls, decimate(p, d, r.Seconds()))
		s.circle(p.X(peaks[i].x), p.Y(peaks[i].y), 3.5, "o c"+strconv.Itoa(i%len(dashes)))
	}
	c.phaseLabels(p, res.Phases)
	return c, nil
}

// decimate turns counts per window into points, keeping at most two per
// pixel column (its lowest and highest, in the order they occur) so that a
// 10 ms series of an hour stays small and no peak is lost.
func decimate(p *plot, d []int32, width float64) []point {
	var pts []point
	cols := int(p.x1-p.x0) + 1
	if len(d) <= 2*cols {
		for j, v := range d {
			pts = append(pts, point{p.X((float64(j) + 0.5) * width), p.Y(float64(v))})
		}
		return pts
	}
	per := float64(len(d)) / float64(cols)
	for col := range cols {
		a, b := int(float64(col)*per), min(int(float64(col+1)*per), len(d))
		if a >= b {
			continue
		}
		lo, hi := a, a
		for j := a; j < b; j++ {
			if d[j] < d[lo] {
				lo = j
			}
			if d[j] > d[hi] {
				hi = j
			}
		}
		first, second := lo, hi
		if hi < lo {
			first, second = hi, lo
		}
		pts = append(pts, point{p.X((float64(first) + 0.5) * width), p.Y(float64(d[first]))})
		if second != first {
			pts = append(pts, point{p.X((float64(second) + 0.5) * width), p.Y(float64(d[second]))})
		}
	}
	return pts
}

func queue(res *engine.Result, opt Options) (*canvas, error) {
	strats, err := strategiesOf(res)
	if err != nil {
		return nil, err
	}
	desc, queueLabel := "The dependency's queue (highest in each bucket) and the operations started and not yet finished, one line per strategy.", "queue length"
	if severalDeps(res) {
		desc, queueLabel = "The dependencies' queues added up (highest in each bucket) and the operations started and not yet finished, one line per strategy.", "queued, all dependencies"
	}
	panels := []string{queueLabel, "operations in flight"}
	h := 480.0
	if hasWorkers(strats) {
		// An autoscaler's workers serving: a third panel, below.
		panels = append(panels, "workers serving")
		desc += " The workers serving (the autoscaled dependencies' added up, at the end of each bucket), one line per strategy."
		h = 660
	}
	c := newCanvas(opt, 760, h, titleOf(res, "queue length and operations in flight", widthOf(opt, 760)), desc)
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	var entries []string
	for _, st := range strats {
		entries = append(entries, named(opt, st.Name, 60))
	}
	lh := c.legend(marginL, 46, c.w-marginL-marginR, entries, lineMarker(s))
	bucket := strats[0].Series.BucketMS / 1000
	n := len(strats[0].Series.QueueLength)
	top := 50 + lh
	gap := 34.0
	ph := (c.h - top - 46 - gap*float64(len(panels)-1)) / float64(len(panels))
	for k, what := range panels {
		var hi int32
		for _, st := range strats {
			for _, v := range pick(st.Series, k) {
				hi = max(hi, v)
			}
		}
		p := &plot{x0: marginL, y0: top + float64(k)*(ph+gap), x1: c.w - marginR, lo: 0, hi: max(float64(n)*bucket, 1e-3), top: niceMax(max(float64(hi), 3), 3)}
		p.y1 = p.y0 + ph
		c.phases(p, res.Phases)
		xl := ""
		if k == len(panels)-1 {
			xl = timeAxis(res)
		}
		c.axes(p, xl, what, seconds)
		for i, st := range strats {
			s.path(fmt.Sprintf("l c%d d%d", i%len(dashes), i%len(dashes)), decimate(p, pick(st.Series, k), bucket))
		}
		c.phaseLabels(p, res.Phases)
	}
	return c, nil
}

// pick returns the series of the queue picture's panel k: the queue,
// the operations in flight, or the workers serving (every autoscaled
// dependency's added up).
func pick(s *engine.Series, k int) []int32 {
	switch k {
	case 0:
		return s.QueueLength
	case 1:
		return s.InFlight
	}
	out := make([]int32, len(s.QueueLength))
	for _, w := range s.Workers {
		for i, v := range w.Serving {
			out[i] += v
		}
	}
	return out
}

// hasWorkers reports whether a strategy's series have an autoscaler's
// workers.
func hasWorkers(strats []engine.StrategyResult) bool {
	for i := range strats {
		if len(strats[i].Series.Workers) > 0 {
			return true
		}
	}
	return false
}

func outcomes(res *engine.Result, opt Options) (*canvas, error) {
	strats, err := strategiesOf(res)
	if err != nil {
		return nil, err
	}
	panelH, band, gap := 96.0, 7.0, 34.0
	// With several dependencies each with its own breaker, one band per
	// dependency, named.
	bands := make([][]depBand, len(strats))
	nb1 := 1
	for i := range strats {
		bands[i] = breakerBands(&strats[i])
		nb1 = max(nb1, len(bands[i]))
	}
	extra := float64(nb1-1) * (band + 3)
	h := 84 + float64(len(strats))*(panelH+band+extra+gap) + 36
	c := newCanvas(opt, 760, h, titleOf(res, "outcomes over time", widthOf(opt, 760)),
		"For each strategy, per time bucket: operations that ended in success and in failure (stacked areas), retried calls reaching the dependency (a retry at any level led to them) and calls refused (lines); the band underneath is the circuit breaker.")
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	names := []string{"operations succeeded", "operations failed", "retried calls reaching the dependency", "calls refused (queue full or breaker open)"}
	hasBreaker := false
	for i, st := range strats {
		hasBreaker = hasBreaker || st.Series.BreakerState != nil || bands[i] != nil
	}
	if hasBreaker {
		names = append(names, "breaker open", "breaker half-open")
	}
	lh := c.legend(marginL, 46, c.w-marginL-marginR, names, func(i int, x, y float64) {
		switch i {
		case 2, 3:
			k := []string{"4", "3"}[i-2]
			s.dash(x, y, "l c"+k+" d"+[]string{"1", "2"}[i-2])
		default:
			s.rect(x+3, y-5, 12, 10, "kb "+[]string{"c2", "c1", "", "", "c0", "c5"}[i])
		}
	})
	bucketMS := strats[0].Series.BucketMS
	n := len(strats[0].Series.Successes)
	k := outcomeBins(bucketMS, n, opt.Resolution)
	bucket := bucketMS * float64(k) / 1000
	nb := (n + k - 1) / k
	type binned struct{ ok, fail, retries, refused, breaker []float64 }
	data := make([]binned, len(strats))
	var hi float64
	for i, st := range strats {
		d := binned{make([]float64, nb), make([]float64, nb), make([]float64, nb), make([]float64, nb), make([]float64, nb)}
		se := st.Series
		for j := range n {
			b := j / k
			d.ok[b] += float64(se.Successes[j])
			d.fail[b] += float64(se.Failures[j])
			d.retries[b] += float64(se.Retries[j])
			d.refused[b] += float64(se.Rejections[j] + se.FastFailed[j])
			if se.BreakerState != nil {
				d.breaker[b] = max(d.breaker[b], float64(se.BreakerState[j]))
			}
		}
		for b := range nb {
			hi = max(hi, d.ok[b]+d.fail[b], d.retries[b], d.refused[b])
		}
		data[i] = d
	}
	top := niceMax(max(hi, 3), 3) // counts: whole ticks
	y := 50 + lh
	for i, st := range strats {
		d := data[i]
		p := &plot{x0: marginL, y0: y + 16, x1: c.w - marginR, y1: y + 16 + panelH, lo: 0, hi: max(float64(nb)*bucket, 1e-3), top: top}
		s.text(marginL, y+10, "", "", named(opt, st.Name, 80))
		c.phases(p, res.Phases)
		var xf func(float64) string
		if i == len(strats)-1 {
			xf = seconds
		}
		c.axes(p, "", "per "+resolutionName(time.Duration(bucket*1e9)), xf)
		stack := make([]float64, nb)
		for b := range nb {
			stack[b] = d.ok[b] + d.fail[b]
		}
		s.segs("kb c1", steps(p, stack, bucket))
		s.segs("kb c2", steps(p, d.ok, bucket))
		s.path("l c4 d1", centres(p, d.retries, bucket))
		s.path("l c3 d2", centres(p, d.refused, bucket))
		if bands[i] != nil {
			by := p.y1 + 6
			if xf != nil {
				by = p.y1 + 22 // below the tick labels of the last panel
			}
			for _, db := range bands[i] {
				// The dependency's name at the band's left, in the margin.
				s.text(p.x0-4, by+band-0.5, "s", "end", fit(db.dep, marginL-10, 10))
				for j := 0; j < nb; {
					state := db.state(float64(j)*bucket, float64(j+1)*bucket)
					e := j + 1
					for e < nb && db.state(float64(e)*bucket, float64(e+1)*bucket) == state {
						e++
					}
					if state > 0 {
						cls := "kb c5"
						if state == 2 {
							cls = "kb c0"
						}
						s.rect(p.X(float64(j)*bucket), by, p.X(float64(e)*bucket)-p.X(float64(j)*bucket), band, cls)
					}
					j = e
				}
				by += band + 3
			}
		} else if st.Series.BreakerState != nil {
			by := p.y1 + 6
			if xf != nil {
				by = p.y1 + 22 // below the tick labels of the last panel
			}
			for j := 0; j < nb; {
				e := j
				for e < nb && d.breaker[e] == d.breaker[j] {
					e++
				}
				if state := d.breaker[j]; state > 0 {
					cls := "kb c5"
					if state == 2 {
						cls = "kb c0"
					}
					s.rect(p.X(float64(j)*bucket), by, p.X(float64(e)*bucket)-p.X(float64(j)*bucket), band, cls)
				}
				j = e
			}
		}
		c.phaseLabels(p, res.Phases)
		y += panelH + band + extra + gap
	}
	s.text((marginL+c.w-marginR)/2, c.h-8, "m", "middle", timeAxis(res))
	return c, nil
}

// steps returns a closed step-area path over counts per bucket, in compact
// H and V commands.
func steps(p *plot, v []float64, bucket float64) []Seg {
	segs := []Seg{{'M', p.X(0), p.Y(0)}}
	last := math.NaN()
	for j, x := range v {
		if x != last {
			if j > 0 {
				segs = append(segs, Seg{Op: 'H', X: p.X(float64(j) * bucket)})
			}
			segs = append(segs, Seg{Op: 'V', Y: p.Y(x)})
			last = x
		}
	}
	return append(segs, Seg{Op: 'H', X: p.X(float64(len(v)) * bucket)}, Seg{Op: 'V', Y: p.Y(0)}, Seg{Op: 'Z'})
}

// centres returns the points of a line through the middle of each bucket.
func centres(p *plot, v []float64, bucket float64) []point {
	pts := make([]point, len(v))
	for j, x := range v {
		pts[j] = point{p.X((float64(j) + 0.5) * bucket), p.Y(x)}
	}
	return pts
}

// metricValue returns a metric of a strategy, or an error naming the metrics.
func metricValue(st *engine.StrategyResult, name string) (v, lo, hi float64, err error) {
	v, ok := st.Metrics.Metric(name)
	if !ok {
		return 0, 0, 0, optionErr("metric %q is not one of %s", name, strings.Join(engine.MetricNames(), ", "))
	}
	lo, hi = v, v
	if mm, ok := st.Spread[name]; ok {
		lo, hi = mm.Min, mm.Max
	}
	return v, lo, hi, nil
}

// FormatCell formats a metric's value exactly enough for a table: rates as
// percentages with two decimals, whole numbers whole, others with three
// decimals.
func FormatCell(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "_rate") || name == "recovered":
		return strconv.FormatFloat(v*100, 'f', 2, 64) + "%"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// FormatMetric formats a metric's value for people: rates as percentages,
// counts and times compactly. The CLI, the pages and the charts share it.
func FormatMetric(name string, v float64) string {
	if strings.HasSuffix(name, "_rate") || name == "recovered" {
		return label(math.Round(v*1000)/10) + "%"
	}
	return label(v)
}

func compare(res *engine.Result, opt Options) (*canvas, error) {
	strats, err := strategiesOfAny(res)
	if err != nil {
		return nil, err
	}
	metric := opt.Metric
	if metric == "" {
		metric = "attempts"
	}
	rowH := 30.0
	c := newCanvas(opt, 760, 110+float64(len(strats))*rowH, titleOf(res, metricLabel(metric)+" by strategy", widthOf(opt, 760)),
		xmlText(clean(fmt.Sprintf("%s for each strategy; whiskers span the lowest and highest value over the seeds when there are several runs.", metricLabel(metric)), 300)))
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	vals := make([][3]float64, len(strats))
	// words stand for a value a strategy does not have (a recovery that
	// did not come under load, a metric that does not apply): no bar, the
	// words instead of a number.
	words := make([]string, len(strats))
	var top float64
	for i := range strats {
		v, lo, hi, err := metricValue(&strats[i], metric)
		if err != nil {
			return nil, err
		}
		if w, ok := strats[i].Metrics.Missing(metric); ok {
			words[i] = w
			continue
		}
		vals[i] = [3]float64{v, lo, hi}
		top = max(top, hi, v)
	}
	left := 140.0
	p := &plot{x0: left, y0: 50, x1: c.w - marginR - 40, y1: 50 + float64(len(strats))*rowH, lo: 0, hi: niceMax(top, 5), top: 1}
	// Values bunched far from zero (success rates of 98.4% and 99.8%) look
	// alike as bars from zero: the axis then spans just their range, and
	// the values are dots, since a bar from a cut axis would mislead.
	least := top
	for i, v := range vals {
		if words[i] == "" {
			least = min(least, v[0], v[1])
		}
	}
	zoom := len(strats) > 1 && least > 0 && least < top && least > 0.6*top
	format := FormatMetric
	if zoom {
		_, step := ticks(least, top, 4)
		p.lo = math.Floor(least/step+1e-9) * step
		p.hi = math.Ceil(top/step-1e-9) * step
		if p.hi <= p.lo {
			p.hi = p.lo + step
		}
		format = func(name string, v float64) string { return fineLabel(name, v, step) }
	}
	xs, _ := ticks(p.lo, p.hi, 5)
	for _, v := range xs {
		x := p.X(v)
		s.line(x, p.y0, x, p.y1, "g")
		s.text(x, p.y1+16, "m", "middle", format(metric, v))
	}
	axis := metricLabel(metric)
	if zoom {
		axis += " (the axis does not start at 0)"
	}
	s.text((p.x0+p.x1)/2, p.y1+34, "m", "middle", clean(axis, 80))
	for i, st := range strats {
		y := p.y0 + float64(i)*rowH
		cls := fmt.Sprintf("kb c%d", i%len(dashes))
		s.text(left-8, y+rowH/2+4, "", "end", rowName(st.Name, left, c.w))
		if words[i] != "" {
			s.text(p.X(p.lo)+6, y+rowH/2+4, "m", "", clean(words[i], 40))
			continue
		}
		if zoom {
			s.circle(p.X(vals[i][0]), y+rowH/2, 6, "k c"+strconv.Itoa(i%len(dashes)))
		} else {
			s.rect(p.X(0), y+6, p.X(vals[i][0])-p.X(0), rowH-12, cls)
		}
		if vals[i][1] != vals[i][2] {
			a, b, m := p.X(vals[i][1]), p.X(vals[i][2]), y+rowH/2
			s.line(a, m, b, m, "w")
			s.line(a, m-5, a, m+5, "w")
			s.line(b, m-5, b, m+5, "w")
		}
		s.text(p.X(max(vals[i][0], vals[i][2]))+6, y+rowH/2+4, "m", "", format(metric, vals[i][0]))
	}
	return c, nil
}

// strategiesOfAny is strategiesOf without the need for series.
func strategiesOfAny(res *engine.Result) ([]engine.StrategyResult, error) {
	if len(res.Strategies) == 0 {
		if len(res.Sweep) > 0 {
			return nil, optionErr("this result is a sweep: only the sweep picture applies")
		}
		return nil, optionErr("the result has no strategies")
	}
	return res.Strategies, nil
}

func latency(res *engine.Result, opt Options) (*canvas, error) {
	strats, err := strategiesOfAny(res)
	if err != nil {
		return nil, err
	}
	which, prefix := "all operations, failures included", "latency_"
	if opt.SuccessOnly {
		which, prefix = "successful operations only", "success_latency_"
	}
	pcts := []string{"p50", "p95", "p99", "max"}
	rowH := 64.0
	c := newCanvas(opt, 760, 146+float64(len(strats))*rowH, titleOf(res, "latency percentiles", widthOf(opt, 760)),
		xmlText(clean("Latency percentiles of each strategy's operations, from start to end, "+which+".", 300)))
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	s.text(marginL, 42, "m", "", which)
	lh := 16 + c.legend(marginL, 62, c.w-marginL-marginR, pcts, boxMarker(s, []string{"c0", "c5", "c4", "c1"}))
	vals := make([][4]float64, len(strats))
	var top float64
	for i := range strats {
		for k, pc := range pcts {
			v, _, _, err := metricValue(&strats[i], prefix+pc+"_ms")
			if err != nil {
				return nil, err
			}
			vals[i][k] = v
			top = max(top, v)
		}
	}
	left := 140.0
	p := &plot{x0: left, y0: 54 + lh, x1: c.w - marginR - 50, lo: 0, hi: niceMax(top, 5), top: 1}
	p.y1 = p.y0 + float64(len(strats))*rowH
	xs, _ := ticks(0, p.hi, 5)
	for _, v := range xs {
		x := p.X(v)
		s.line(x, p.y0, x, p.y1, "g")
		s.text(x, p.y1+16, "m", "middle", label(v))
	}
	s.text((p.x0+p.x1)/2, p.y1+34, "m", "middle", "milliseconds")
	bar := (rowH - 12) / 4
	for i, st := range strats {
		y := p.y0 + float64(i)*rowH + 6
		s.text(left-8, y+rowH/2, "", "end", rowName(st.Name, left, c.w))
		for k := range pcts {
			cls := []string{"kb c0", "kb c5", "kb c4", "kb c1"}[k]
			s.rect(p.X(0), y+float64(k)*bar, p.X(vals[i][k])-p.X(0), bar-1.5, cls)
			s.text(p.X(vals[i][k])+5, y+float64(k)*bar+bar-3, "s", "", label(vals[i][k]))
		}
	}
	return c, nil
}

func sweep(res *engine.Result, opt Options) (*canvas, error) {
	if len(res.Sweep) == 0 {
		return nil, optionErr("this result has no sweep")
	}
	metric := opt.Metric
	if metric == "" {
		metric = "success_rate"
	}
	// Numbers go on a linear axis; anything else (durations, strings) on
	// evenly spaced categories.
	xs := make([]float64, len(res.Sweep))
	names := make([]string, len(res.Sweep))
	numeric := true
	for i, pt := range res.Sweep {
		f, ok := pt.Value.(float64)
		if !ok {
			numeric = false
		}
		xs[i] = f
		b, _ := json.Marshal(pt.Value)
		names[i] = clean(strings.Trim(string(b), `"`), 16)
	}
	if !numeric {
		for i := range xs {
			xs[i] = float64(i)
		}
	}
	strats := res.Sweep[0].Strategies
	c := newCanvas(opt, 760, 400, titleOf(res, metricLabel(metric)+" across the sweep", widthOf(opt, 760)),
		xmlText(clean(fmt.Sprintf("%s for each value of the swept parameter, one line per strategy.", metricLabel(metric)), 300)))
	s := &c.body
	s.text(marginL, 24, "t", "", c.title)
	var entries []string
	for _, st := range strats {
		entries = append(entries, named(opt, st.Name, 60))
	}
	lh := c.legend(marginL, 46, c.w-marginL-marginR, entries, lineMarker(s))
	vals := make([][]float64, len(strats))
	var top float64
	for i := range strats {
		for _, pt := range res.Sweep {
			if i >= len(pt.Strategies) {
				return nil, optionErr("sweep points disagree on their strategies")
			}
			v, _, hi, err := metricValue(&pt.Strategies[i], metric)
			if err != nil {
				return nil, err
			}
			if _, missing := pt.Strategies[i].Metrics.Missing(metric); missing {
				// No value here (not recovered under load, n/a): a gap
				// in the line, not a point at 0.
				vals[i] = append(vals[i], math.NaN())
				continue
			}
			vals[i] = append(vals[i], v)
			top = max(top, v, hi)
		}
	}
	lo, hi := xs[0], xs[len(xs)-1]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.04
	p := &plot{x0: marginL, y0: 50 + lh, x1: c.w - marginR, y1: c.h - 46, lo: lo - pad, hi: hi + pad, top: niceMax(top, 4)}
	ys, _ := ticks(0, p.top, 4)
	for _, v := range ys {
		y := p.Y(v)
		s.line(p.x0, y, p.x1, y, "g")
		s.text(p.x0-6, y+4, "m", "end", FormatMetric(metric, v))
	}
	s.line(p.x0, p.y1, p.x1, p.y1, "a")
	for i, x := range xs {
		s.line(p.X(x), p.y1, p.X(x), p.y1+4, "a")
		s.text(p.X(x), p.y1+16, "m", "middle", names[i])
	}
	s.up(p.x0-48, (p.y0+p.y1)/2, "m", clean(metricLabel(metric), 60))
	s.text((p.x0+p.x1)/2, p.y1+32, "m", "middle", clean(res.SweepPath, 80))
	for i := range strats {
		k := strconv.Itoa(i % len(dashes))
		var pts, all []point // the line's current run of values, and every point
		for j, x := range xs {
			if math.IsNaN(vals[i][j]) {
				if len(pts) > 0 {
					s.path("l c"+k+" d"+k, pts)
				}
				pts = nil
				continue
			}
			pts = append(pts, point{p.X(x), p.Y(vals[i][j])})
			all = append(all, pts[len(pts)-1])
		}
		if len(pts) > 0 {
			s.path("l c"+k+" d"+k, pts)
		}
		for _, pt := range all {
			s.circle(pt.x, pt.y, 3, "o c"+k)
		}
	}
	return c, nil
}

// metricLabel names a metric in words, with its unit: "Peak calls in 100 ms",
// "Latency p99, all operations (ms)".
func metricLabel(key string) string {
	m, ok := engine.DescribeMetric(key)
	if !ok {
		return key
	}
	if m.Unit != "" && m.Unit != "%" && m.Unit != "calls" {
		return m.Label + " (" + m.Unit + ")"
	}
	return m.Label
}

// timeAxis labels the time axis of a picture over time, saying which run it
// shows when the result has several (tables show their means).
func timeAxis(res *engine.Result) string {
	if len(res.Seeds) > 1 {
		return fmt.Sprintf("time · seed %d, the first of %d runs", res.Seeds[0], len(res.Seeds))
	}
	return "time"
}

// fineLabel writes a value with as many decimals as a tick step needs
// (rates as percentages), so that the ticks of a narrow axis differ.
func fineLabel(metric string, v, step float64) string {
	pct := strings.HasSuffix(metric, "_rate") || metric == "recovered"
	if pct {
		v, step = v*100, step*100
	}
	d := 0
	for s := step; s < 1 && d < 4; s *= 10 {
		d++
	}
	out := strconv.FormatFloat(v, 'f', d+1, 64)
	out = strings.TrimSuffix(strings.TrimRight(out, "0"), ".")
	if strings.Trim(out, "-0.") == "" {
		out = "0" // a tick at or a rounding error away from zero reads 0, never -0
	}
	if pct {
		return out + "%"
	}
	return out
}

// outcomeBins is how many of a series' buckets (bucketMS wide, n of them)
// one bar of the outcomes picture adds up: the asked resolution when it is a
// multiple of the bucket and gives at most 300 bars, otherwise the smallest
// 1-2-5 width (100 ms, 200 ms, 500 ms, 1 s, …) that is a multiple of the
// bucket and gives at most 120 bars, so that bars stay wider than a pixel and
// the axis reads in round units.
func outcomeBins(bucketMS float64, n int, asked time.Duration) int {
	if k := float64(asked) / 1e6 / bucketMS; k >= 1 && k == math.Trunc(k) && float64(n)/k <= 300 {
		return int(k)
	}
	for w := 1.0; ; w *= 10 {
		for _, m := range []float64{1, 2, 5} {
			k := w * m / bucketMS
			if k >= 1 && k == math.Trunc(k) && float64(n)/k <= 120 {
				return int(k)
			}
		}
		if w > 1e12 {
			return max(1, (n+119)/120)
		}
	}
}

// A depBand is the breaker of one dependency, when each has its own:
// transitions of the outermost level that reports them.
type depBand struct {
	dep         string
	transitions []engine.Transition
}

// state is the breaker's worst state (0 closed, 1 half-open, 2 open) at
// any time in [from, to).
func (d depBand) state(from, to float64) int {
	cur, worst := 0, 0
	for _, t := range d.transitions {
		if t.AtS >= to {
			break
		}
		if t.AtS < from {
			cur = breakerLevel(t.To)
			continue
		}
		worst = max(worst, breakerLevel(t.To))
	}
	return max(worst, cur)
}

func breakerLevel(state string) int {
	switch state {
	case "open":
		return 2
	case "half_open":
		return 1
	}
	return 0
}

// breakerBands returns one band per dependency whose breaker changed
// state, in the order they first did, when the transitions name their
// dependency (several dependencies, each with its own breaker); nil
// otherwise, and the series' breaker state is drawn.
func breakerBands(st *engine.StrategyResult) []depBand {
	outer := -1
	for _, t := range st.Transitions {
		if t.Dependency != "" && (outer < 0 || t.Layer < outer) {
			outer = t.Layer
		}
	}
	if outer < 0 {
		return nil
	}
	var out []depBand
	for _, t := range st.Transitions {
		if t.Layer != outer || t.Dependency == "" {
			continue
		}
		k := -1
		for j := range out {
			if out[j].dep == t.Dependency {
				k = j
			}
		}
		if k < 0 {
			out = append(out, depBand{dep: t.Dependency})
			k = len(out) - 1
		}
		out[k].transitions = append(out[k].transitions, t)
	}
	return out
}

// severalDeps reports whether res comes from a scenario of several
// dependencies: its plan calls or its phases name more than one.
func severalDeps(res *engine.Result) bool {
	seen := map[string]bool{}
	for _, ph := range res.Phases {
		if ph.Dependency != "" {
			seen[ph.Dependency] = true
		}
	}
	if len(res.Strategies) > 0 {
		for _, c := range res.Strategies[0].Calls {
			seen[c.Dependency] = true
		}
	}
	return len(seen) > 1
}

// rowName is a strategy's name as a row of a bar chart shows it, right
// aligned against the bars at left: cut with an ellipsis where it would
// pass the chart's left edge at the text's size (larger in a narrow
// chart, largeText), so that an imported policy's long name does not
// lose its first letters.
func rowName(name string, left, width float64) string {
	size := 12.0
	if largeText(width) {
		size = 14
	}
	return fit(name, left-12, size)
}
