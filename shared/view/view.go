// Package view decides what a comparison shows: the verdict, the figures in
// order with their alt texts, the metrics table with plain-English labels,
// best and worst marks and the spread over seeds, the sweep table, the
// warnings and the legend. The server's pages and the playground (through
// the WebAssembly bridge) both render a View, so they show the same things
// in the same words; neither keeps a list of charts, metrics or labels of its
// own.
package view

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// Options choose the variable parts of a View.
type Options struct {
	// Resolution of the attempts figure: 10ms, 100ms (the default) or 1s.
	Resolution time.Duration
}

// Resolutions are the resolutions a reader can switch the attempts figure
// between, when the result has them.
var Resolutions = []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second}

// A View is what a comparison of strategies shows, in order.
type View struct {
	// Verdict is one or two sentences: the strategy that best meets the
	// scenario's goal on its focus metric, and the price it pays.
	Verdict string `json:"verdict"`
	// Yours say how each of the scenario's report.yours (the user's own
	// policies, as imported) does against the others, one sentence each,
	// then what their ahead and behind mean: pages show them before the
	// verdict.
	Yours []string `json:"yours,omitempty"`
	// Focus are the metrics the verdict and the summary figure are about:
	// the scenario's report.focus, or those that differ most between the
	// strategies relative to their spread over the seeds.
	Focus []string `json:"focus"`
	// Runs is the number of seeds; Means says what the table's numbers are.
	Runs  int    `json:"runs"`
	Means string `json:"means,omitempty"`
	// Window says which operations the run counted as affected (the
	// scenario's engine.AffectedWindow) and why: pinned by the report or
	// following the phases. A sweep's view has none: its values may move
	// the window.
	Window string `json:"window,omitempty"`
	// Legend explains the table's marks.
	Legend string `json:"legend,omitempty"`
	// Strategies name each column with its short description.
	Strategies []Strategy `json:"strategies"`
	// Figures are the charts, in the order they are shown.
	Figures []Figure `json:"figures"`
	// Groups are the metrics table, by group; Folded names the metrics left
	// out because they are zero for every strategy.
	Groups []Group  `json:"groups,omitempty"`
	Folded []string `json:"folded,omitempty"`
	// Sweep is the table of a sweep: one row per swept value.
	Sweep *SweepTable `json:"sweep,omitempty"`
	// Worst names each strategy's worst seed for the first focus metric,
	// with several seeds.
	Worst *Worst `json:"worst,omitempty"`
	// Thresholds say how often each strategy crosses each of the
	// scenario's report.thresholds, one sentence each.
	Thresholds []string `json:"thresholds,omitempty"`
	// Search is what the scenario's policy search found, when it has one.
	Search   *SearchView `json:"search,omitempty"`
	Warnings []string    `json:"warnings"`
}

// A Strategy is a column of the comparison.
type Strategy struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// A Figure is one chart: Options draws it with chart.Render, Query is the
// same choice as URL query parameters, and SVG is filled in by callers that
// draw it in place (the playground).
type Figure struct {
	Name string `json:"name"`
	// Title names the picture for a reader choosing one to embed (see
	// PictureTitle).
	Title   string        `json:"title"`
	Query   string        `json:"query"`
	Alt     string        `json:"alt"`
	Options chart.Options `json:"-"`
	SVG     string        `json:"svg,omitempty"`
	// Variants are the same figure at the other resolutions the reader can
	// switch to, this one included and marked Current.
	Variants []Variant `json:"variants,omitempty"`
}

// A Variant of a figure: the attempts figure at one resolution.
type Variant struct {
	Label   string        `json:"label"`
	Query   string        `json:"query"`
	Alt     string        `json:"alt"`
	Current bool          `json:"current,omitempty"`
	Options chart.Options `json:"-"`
	SVG     string        `json:"svg,omitempty"`
}

// A Group of rows of the metrics table.
type Group struct {
	Name string `json:"name"`
	// Call names the plan call whose metrics the group shows, in a
	// scenario whose plan has several: its rows' keys are those of
	// engine.CallMetrics.
	Call string `json:"call,omitempty"`
	// Fleet names the fleet whose metrics the group shows, in a scenario
	// whose workload has fleets: its rows' keys are those of
	// engine.FleetMetrics.
	Fleet string `json:"fleet,omitempty"`
	Rows  []Row  `json:"rows"`
}

// A Row is one metric across the strategies.
type Row struct {
	Metric
	// Shown is the unit as the label shows it, empty where the label or the
	// cells already say it ("Peak calls in 100 ms", rates in %).
	Shown string `json:"unit_shown,omitempty"`
	Cells []Cell `json:"cells"`
}

// A Cell is one strategy's value of a metric, its range over the seeds when
// it has one ("min–max") and its Mark: "best", "worst" or "".
type Cell struct {
	Value  string `json:"value"`
	Spread string `json:"spread,omitempty"`
	Mark   string `json:"mark,omitempty"`
}

// A SweepTable shows each strategy's success rate and attempts at each
// value of the swept parameter.
type SweepTable struct {
	Path    string   `json:"path"`
	Columns []string `json:"columns"`
	Rows    []Row    `json:"rows"`
}

// Draw fills in the SVG of every figure of v, of its variants and of its
// search's frontier, drawn from res in the theme and width given (width 0:
// the charts' own), as the playground shows them. A figure chart.Render refuses is left without.
func Draw(v *View, res *engine.Result, theme string, width float64) {
	draw := func(opt chart.Options) string {
		var b strings.Builder
		opt.Theme, opt.Width = theme, width
		if err := chart.Render(&b, res, opt); err != nil {
			return ""
		}
		return b.String()
	}
	if v.Search != nil && v.Search.Figure != nil {
		v.Search.Figure.SVG = draw(v.Search.Figure.Options)
	}
	for i := range v.Figures {
		f := &v.Figures[i]
		f.SVG = draw(f.Options)
		for j := range f.Variants {
			f.Variants[j].SVG = draw(f.Variants[j].Options)
		}
	}
}

// Of returns the view of res, the result of running sc.
func Of(sc *engine.Scenario, res *engine.Result, opt Options) *View {
	v := &View{Runs: len(res.Seeds), Warnings: res.Warnings}
	if v.Warnings == nil {
		v.Warnings = []string{}
	}
	for _, st := range sc.Strategies {
		v.Strategies = append(v.Strategies, Strategy{Name: st.Name, Description: st.Description})
	}
	strats := res.Strategies
	if len(res.Sweep) > 0 {
		strats = nil
	}
	v.Focus = focus(sc, res)
	v.Search = searchView(sc, res)
	tails := v.Runs >= TailSeeds
	if tails {
		v.Means = fmt.Sprintf("Means over %d seeds; the range under each value is its 5th to 95th percentile over the seeds, which the marks and the verdict compare. Charts over time show the first seed (%d).", v.Runs, res.Seeds[0])
	} else if v.Runs > 1 {
		v.Means = fmt.Sprintf("Means over %d seeds; the range under each value is its lowest and highest over the seeds. Charts over time show the first seed (%d).", v.Runs, res.Seeds[0])
	}
	if len(res.Sweep) > 0 {
		v.Sweep = sweepTable(res)
		v.Verdict = sweepVerdict(res, v.Focus[0])
		v.Figures = sweepFigures(res, v.Focus)
		for i := range v.Figures {
			v.Figures[i].Options.Descriptions = Descriptions(sc)
		}
		titled(v.Figures)
		return v
	}
	v.Legend = "▲ best and ▼ worst for each metric with a direction; equal values get the same mark, and no mark is given where the strategies' ranges over the seeds overlap."
	v.Groups, v.Folded = table(strats, tails)
	v.Window = windowNote(sc, v.Groups)
	v.Verdict = verdict(strats, v.Focus, v.Runs)
	v.Yours = yoursSentences(sc, strats, v.Focus, v.Runs)
	if lead := searchLead(sc, res); lead != "" {
		// A scenario with a search is about the search: its
		// recommendation comes first, then the strategies as written.
		v.Verdict = lead + " Of the strategies as written: " + v.Verdict
	}
	v.Worst = worstOf(strats, v.Focus[0])
	v.Thresholds = thresholdSentences(strats)
	var avail []time.Duration // the resolutions the result has series for
	for _, d := range Resolutions {
		if chart.HasResolution(res, d) {
			avail = append(avail, d)
		}
	}
	r := cmp.Or(opt.Resolution, 100*time.Millisecond)
	if !slices.Contains(avail, r) && len(avail) > 0 {
		r = 100 * time.Millisecond
		if !slices.Contains(avail, r) {
			r = avail[len(avail)-1]
		}
	}
	v.Figures = figures(res, v.Focus[0], r)
	if len(strats) < 2 {
		// One strategy has nothing to compare.
		v.Figures = slices.DeleteFunc(v.Figures, func(f Figure) bool { return f.Name == "compare" })
	}
	descs := Descriptions(sc)
	for _, d := range avail {
		f := attemptsFigure(res, d)
		v.Figures[0].Variants = append(v.Figures[0].Variants, Variant{Label: d.String(), Query: f.Query, Alt: f.Alt, Options: f.Options, Current: d == r})
	}
	titled(v.Figures)
	if v.Search != nil && v.Search.Figure != nil {
		v.Search.Figure.Title = PictureTitle(v.Search.Figure.Name)
	}
	for i := range v.Figures {
		v.Figures[i].Options.Descriptions = descs
		for j := range v.Figures[i].Variants {
			v.Figures[i].Variants[j].Options.Descriptions = descs
		}
	}
	return v
}

// pictureTitles name each of chart.Pictures for a reader choosing one.
var pictureTitles = map[string]string{
	chart.Attempts: "Calls over time",
	chart.Outcomes: "Outcomes over time",
	chart.Calls:    "Calls by step of the plan",
	chart.Fleets:   "Calls by fleet",
	chart.Queue:    "Queue and operations in flight",
	chart.Compare:  "The focus metric by strategy",
	chart.Latency:  "Latency percentiles",
	chart.Sweep:    "The sweep",
	chart.Frontier: "The search's frontier",
}

// PictureTitle names the picture name (one of chart.Pictures) for a reader
// choosing one to embed.
func PictureTitle(name string) string { return pictureTitles[name] }

// titled gives each figure its picture's title, or its alt text for a
// figure named otherwise (a sweep's, one per metric).
func titled(figs []Figure) {
	for i := range figs {
		figs[i].Title = cmp.Or(PictureTitle(figs[i].Name), figs[i].Alt)
	}
}

// seedNote says which seed a chart over time shows, when there are several.
func seedNote(res *engine.Result) string {
	if len(res.Seeds) > 1 {
		return fmt.Sprintf(" (seed %d, the first of %d)", res.Seeds[0], len(res.Seeds))
	}
	return ""
}

func attemptsFigure(res *engine.Result, r time.Duration) Figure {
	rn := r.String()
	return Figure{Name: "attempts", Query: "picture=attempts&res=" + rn, Options: chart.Options{Picture: chart.Attempts, Resolution: r},
		Alt: "Calls reaching the " + dependencyOf(res) + " per " + rn + " over time, one line per strategy" + seedNote(res)}
}

func figures(res *engine.Result, focus string, r time.Duration) []Figure {
	m, _ := MetricOf(focus)
	seed := seedNote(res)
	figs := []Figure{
		attemptsFigure(res, r),
		{Name: "compare", Query: "picture=compare&metric=" + focus, Options: chart.Options{Picture: chart.Compare, Metric: focus},
			Alt: m.Label + " by strategy, with the range over the seeds"},
		{Name: "outcomes", Query: "picture=outcomes", Options: chart.Options{Picture: chart.Outcomes},
			Alt: "Operations succeeded and failed, retries and refused calls over time, per strategy" + seed},
		{Name: "queue", Query: "picture=queue", Options: chart.Options{Picture: chart.Queue},
			Alt: queueAlt(res) + seed},
		{Name: "latency", Query: "picture=latency", Options: chart.Options{Picture: chart.Latency},
			Alt: "Latency percentiles by strategy"},
	}
	if chart.HasCalls(res) {
		// After the outcomes: what each call of the plan asked of its
		// dependency.
		figs = slices.Insert(figs, 3, callsFigure(res))
	}
	if chart.HasFleets(res) {
		// After the outcomes too: the load each fleet offered.
		var names []string
		for _, f := range res.Strategies[0].Series.Fleets {
			names = append(names, f.Name)
		}
		figs = slices.Insert(figs, 3, Figure{Name: "fleets", Query: "picture=fleets", Options: chart.Options{Picture: chart.Fleets},
			Alt: "Calls of each fleet's operations reaching a dependency over time, one line per fleet (" + listWords(names) + "), one panel per strategy" + seedNote(res)})
	}
	return figs
}

// callsFigure is the calls picture, offered when the result has a series
// per plan call; its alt text names the calls and says whether a pool is
// drawn.
func callsFigure(res *engine.Result) Figure {
	var names []string
	for _, c := range res.Strategies[0].Series.Calls {
		names = append(names, c.Name)
	}
	alt := "Attempts reaching each plan call's dependency over time, one line per call (" + listWords(names) + "), one panel per strategy"
	for _, st := range res.Strategies {
		if st.Series.PoolInUse != nil {
			alt += ", with the client pool's slots in use under the panel of each strategy that has one"
			break
		}
	}
	return Figure{Name: "calls", Query: "picture=calls", Options: chart.Options{Picture: chart.Calls}, Alt: alt + seedNote(res)}
}

// listWords writes "a", "a and b" or "a, b and c".
func listWords(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

func sweepFigures(res *engine.Result, focus []string) []Figure {
	keys := []string{focus[0]}
	for _, k := range []string{"success_rate", "attempts", "amplification"} {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out []Figure
	for _, k := range keys {
		m, _ := MetricOf(k)
		out = append(out, Figure{Name: "sweep-" + k, Query: "picture=sweep&metric=" + k,
			Options: chart.Options{Picture: chart.Sweep, Metric: k},
			Alt:     m.Label + " against " + res.SweepPath + ", one line per strategy"})
	}
	return out
}

// table builds the metrics table's groups and the labels of the rows it
// folds away (zero for every strategy); with tails, the strategies' cells
// show their 5th to 95th percentiles over the seeds as their range.
func table(strats []engine.StrategyResult, tails bool) ([]Group, []string) {
	var groups []Group
	var folded []string
	byGroup := map[string][]Row{}
	for _, m := range Metrics {
		r, zero := row(strats, m, tails)
		if tails {
			for i := range strats {
				if sp, ok := tailSpread(&strats[i], m); ok {
					r.Cells[i].Spread = sp
				}
			}
		}
		// A metric that does not apply (recovery, without a fault that
		// ends) reads n/a, and a recovery time that did not come (not
		// recovered under load) says so: not 0, and not folded away as
		// zero.
		for i := range strats {
			if words, ok := strats[i].Metrics.Missing(m.Key); ok {
				r.Cells[i] = Cell{Value: words}
				zero = false
			}
		}
		if zero {
			folded = append(folded, m.Label)
			continue
		}
		byGroup[m.Group] = append(byGroup[m.Group], r)
	}
	// The counts by level follow the retries, those of all levels and the
	// denied (the rows of these kept).
	lr, lf := levelRows(strats)
	load := byGroup[engine.GroupLoad]
	at := 0
	for i, r := range load {
		if r.Key == "retries" || r.Key == "retries_all_levels" || r.Key == "retries_denied" || r.Key == "first_attempts" || r.Key == "attempts" {
			at = i + 1
		}
	}
	byGroup[engine.GroupLoad] = slices.Insert(load, at, lr...)
	folded = append(folded, lf...)
	calls, callsFolded := callGroups(strats)
	fleets, fleetsFolded := fleetGroups(strats)
	calls = append(fleets, calls...)
	callsFolded = append(fleetsFolded, callsFolded...)
	for _, g := range Groups {
		if g == engine.GroupRun {
			// The plan's calls come after the strategies' own metrics,
			// before what the run cost.
			groups = append(groups, calls...)
			calls = nil
		}
		if rows := byGroup[g]; len(rows) > 0 {
			groups = append(groups, Group{Name: g, Rows: rows})
		}
	}
	groups = append(groups, calls...)
	return groups, append(folded, callsFolded...)
}

// A getter returns column i's mean of a metric and its range over the seeds
// (the mean twice with one seed): a strategy's metrics, or one of its
// calls'.
type getter func(i int, key string) (v, lo, hi float64)

// ofStrategies reads the strategies' own metrics, with the range the
// table shows (value).
func ofStrategies(strats []engine.StrategyResult, tails bool) getter {
	return func(i int, key string) (float64, float64, float64) { return value(&strats[i], key, tails) }
}

func row(strats []engine.StrategyResult, m Metric, tails bool) (Row, bool) {
	return rowOf(len(strats), ofStrategies(strats, tails), directed(m, strats), "success_rate")
}

// directed gives m the direction it has in this comparison: failed
// operations have none in general (a strategy that makes fewer operations,
// as closed-loop clients waiting on slow answers do, fails fewer), but
// when every strategy ran as many operations (the same mean, least and
// most over the seeds: the seeds' arrivals, open-loop), fewer failed is
// better, as a higher success rate is.
func directed(m Metric, points ...[]engine.StrategyResult) Metric {
	if m.Key != "failed" || m.Better != 0 {
		return m
	}
	for _, strats := range points {
		for i := range strats {
			// The same seeds' arrivals: the same on every seed, whatever
			// the table shows.
			v, lo, hi := value(&strats[i], "operations", false)
			w, wlo, whi := value(&strats[0], "operations", false)
			if v != w || lo != wlo || hi != whi {
				return m
			}
		}
	}
	m.Better = -1
	return m
}

// rowOf builds the row of m over n columns; success names the metric
// that says how often a column succeeds (for the latencies of all
// operations or calls, which fall when a column gives up sooner).
func rowOf(n int, get getter, m Metric, success string) (Row, bool) {
	r := Row{Metric: m}
	if m.Unit != "%" && m.Unit != "calls" {
		r.Shown = m.Unit
	}
	zero := true
	for i := range n {
		v, lo, hi := get(i, m.Key)
		if v != 0 || lo != 0 || hi != 0 {
			zero = false
		}
		c := Cell{Value: format(m, v, false)}
		if lo != hi {
			c.Spread = format(m, lo, false) + "–" + format(m, hi, false)
		}
		r.Cells = append(r.Cells, c)
	}
	best, worst := extremesOf(n, get, m)
	if m.FromGivingUp {
		// A latency of all operations falls when a strategy gives up sooner:
		// it is no one's best unless that strategy also succeeds as often
		// as the others.
		best = slices.DeleteFunc(best, func(i int) bool { return succeedsLessOf(n, get, success, i) })
	}
	for _, i := range best {
		r.Cells[i].Mark = "best"
	}
	for _, i := range worst {
		r.Cells[i].Mark = "worst"
	}
	return r, zero
}

// extremes returns the strategies that are best and worst on m: the top and
// bottom value and every strategy tied with it (equal, or with overlapping
// ranges over the seeds: with tails, their 5th to 95th percentiles). Both
// are empty when m has no direction, when the strategies do not differ, or
// when best and worst cannot be told apart.
func extremes(strats []engine.StrategyResult, m Metric, tails bool) (best, worst []int) {
	return extremesOf(len(strats), ofStrategies(strats, tails), m)
}

func extremesOf(n int, get getter, m Metric) (best, worst []int) {
	if m.Better == 0 || n < 2 {
		return nil, nil
	}
	order := rankedOf(n, get, m)
	top, bottom := order[0], order[len(order)-1]
	for _, i := range order {
		if tiedOf(get, m.Key, i, top) {
			best = append(best, i)
		}
		if tiedOf(get, m.Key, i, bottom) {
			worst = append(worst, i)
		}
	}
	if len(best) == n || len(worst) == n || slices.ContainsFunc(best, func(i int) bool { return slices.Contains(worst, i) }) {
		return nil, nil
	}
	return best, worst
}

// ranked orders the strategies from best to worst on m's means (stable:
// the scenario's order breaks ties).
func ranked(strats []engine.StrategyResult, m Metric) []int {
	return rankedOf(len(strats), ofStrategies(strats, false), m)
}

func rankedOf(n int, get getter, m Metric) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		va, _, _ := get(a, m.Key)
		vb, _, _ := get(b, m.Key)
		switch {
		case va == vb:
			return 0
		case (va > vb) == (m.Better > 0):
			return -1
		}
		return 1
	})
	return order
}

// tiedOf reports whether strategies a and b are equal on a metric, or
// within each other's range over the seeds as get reads them (with tails,
// their 5th to 95th percentiles).
func tiedOf(get getter, key string, a, b int) bool {
	va, loa, hia := get(a, key)
	vb, lob, hib := get(b, key)
	return va == vb || (loa <= hib && lob <= hia && (loa != hia || lob != hib))
}

// succeedsLess reports whether strategy i succeeds less often than some
// other strategy on the success metric s (see judged), beyond the seeds'
// spread (with tails, beyond their 5th to 95th percentiles).
func succeedsLess(strats []engine.StrategyResult, i int, s string, tails bool) bool {
	return succeedsLessOf(len(strats), ofStrategies(strats, tails), s, i)
}

func succeedsLessOf(n int, get getter, success string, i int) bool {
	vi, _, _ := get(i, success)
	for j := range n {
		vj, _, _ := get(j, success)
		if vj > vi && !tiedOf(get, success, i, j) {
			return true
		}
	}
	return false
}

// format writes a metric's value for people, with its unit when withUnit:
// rates with as many decimals as keep them off 100% and 0% unless they are
// exactly that (99.9996%: three decimals, once the most, wrote 100%),
// milliseconds from a second on as seconds.
func format(m Metric, v float64, withUnit bool) string {
	if math.IsInf(v, 0) && m.Key == "recovery_s" {
		return "none (" + engine.NotRecovered + ")" // see value
	}
	if !withUnit {
		return chart.FormatCell(m.Key, v)
	}
	switch m.Unit {
	case "%":
		// Up to rateDigits: a rate of operations that did not all succeed
		// is off 100% by one in their count, at most a few billion.
		for digits := 1; digits <= rateDigits; digits++ {
			s := strconv.FormatFloat(v*100, 'f', digits, 64)
			if (v < 1 && strings.HasPrefix(s, "100")) || (v > 0 && strings.Trim(s, "0.") == "") {
				continue
			}
			return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") + "%"
		}
		return chart.FormatMetric(m.Key, v)
	case "ms":
		if v >= 1000 {
			return chart.FormatMetric(m.Key, v/1000) + " s"
		}
		return chart.FormatMetric(m.Key, v) + " ms"
	case "":
		return chart.FormatMetric(m.Key, v)
	}
	return chart.FormatMetric(m.Key, v) + " " + m.Unit
}

// rateDigits is the most decimals format writes a percentage with.
const rateDigits = 9

func sweepTable(res *engine.Result) *SweepTable {
	t := &SweepTable{Path: res.SweepPath}
	for _, st := range res.Sweep[0].Strategies {
		t.Columns = append(t.Columns, st.Name+": success rate", st.Name+": attempts")
	}
	for _, pt := range res.Sweep {
		val, _ := json.Marshal(pt.Value)
		row := Row{Metric: Metric{Key: string(val), Label: string(val)}}
		for _, st := range pt.Strategies {
			row.Cells = append(row.Cells,
				Cell{Value: chart.FormatCell("success_rate", st.Metrics.SuccessRate)},
				Cell{Value: chart.FormatCell("attempts", st.Metrics.Attempts)})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// lower writes a label as part of a sentence.
func lower(label string) string {
	if label == "" {
		return label
	}
	first := strings.ToLower(label[:1])
	return first + label[1:]
}

// relDiff is how much two values differ, relative to the larger.
func relDiff(a, b float64) float64 {
	top := math.Max(math.Abs(a), math.Abs(b))
	if top == 0 {
		return 0
	}
	return math.Abs(a-b) / top
}

// Descriptions are the strategies' descriptions by name, for the charts'
// legends (nil when no strategy has one).
func Descriptions(sc *engine.Scenario) map[string]string {
	var out map[string]string
	for _, st := range sc.Strategies {
		if st.Description != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[st.Name] = st.Description
		}
	}
	return out
}

// dependencyOf says "dependency", or "dependencies" when the plan calls
// several.
func dependencyOf(res *engine.Result) string {
	if len(res.Strategies) == 0 {
		return "dependency"
	}
	return dependency(res.Strategies)
}

func queueAlt(res *engine.Result) string {
	if dependencyOf(res) == "dependencies" {
		return "Queue length, all dependencies added up, and operations in flight over time"
	}
	return "Queue length and operations in flight over time"
}
