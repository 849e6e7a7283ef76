// Package chart draws RetryLab results as standalone SVG: the same bytes in
// the browser (through WebAssembly) and on the server, so an embedded chart is
// exactly what the playground shows. Draw lays a picture out as shapes (paths
// of straight segments, rects, circles and text) styled by a style sheet;
// Render writes those as SVG, and server/png rasterises the same shapes in
// the colours, widths and sizes that Drawing.Look resolves from the same
// sheet (style.go).
//
// Charts are plain SVG 1.1 with a viewBox, a title and a description, text as
// text, and one <style> element; they hold no script, no foreignObject, no
// event attribute and no external reference. Colours come from the Okabe-Ito
// palette, which stays distinct for colour-blind readers, and every series
// also has its own dash pattern. Theme "auto" follows the reader's
// prefers-color-scheme; "light" and "dark" fix it, for embeds.
package chart

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// Pictures that Render draws.
const (
	Attempts = "attempts" // calls reaching the dependency over time, one line per strategy
	Outcomes = "outcomes" // per strategy: successes, failures, retries, rejections stacked, breaker band
	Compare  = "compare"  // one metric across strategies, with the spread over seeds
	Sweep    = "sweep"    // one metric against the swept value, one line per strategy
	Latency  = "latency"  // latency percentiles per strategy
	Queue    = "queue"    // queue length and operations in flight over time
	Calls    = "calls"    // per strategy: attempts by plan call over time, and the client pool's slots in use
	Fleets   = "fleets"   // per strategy: the calls of each fleet reaching a dependency over time
	Frontier = "frontier" // a policy search's Pareto frontier on its first two objectives
)

// Pictures lists the pictures in the order a page shows them.
var Pictures = []string{Attempts, Outcomes, Calls, Fleets, Queue, Compare, Latency, Sweep, Frontier}

// Options choose what Render draws.
type Options struct {
	// Picture is one of Pictures; empty means Sweep for the result of a
	// sweep and Attempts otherwise.
	Picture string
	// Resolution of the Attempts picture: 10ms, 100ms (the default) or 1s,
	// or any resolution the result has a fine series for.
	Resolution time.Duration
	// Metric of the Compare and Sweep pictures (a JSON name, default
	// success_rate for Sweep and attempts for Compare).
	Metric string
	// SuccessOnly makes the Latency picture use successful operations only.
	SuccessOnly bool
	// Theme is "auto" (the default), "light" or "dark".
	Theme string
	// Width and Height of the viewBox; 0 gives the picture's default.
	Width, Height float64
	// Search is the scenario's policy search, which the Frontier picture
	// needs: its objectives name the axes and say which way each improves.
	Search *engine.Search
	// Descriptions of the strategies by name: legends and panel titles say
	// what each strategy is ("A — immediate retry"), not just its name.
	Descriptions map[string]string
}

// named is a strategy's name for a legend or a panel title, with its short
// description when opt has one: the name up to 40 characters, the whole up
// to max.
func named(opt Options, name string, max int) string {
	d := opt.Descriptions[name]
	if d == "" {
		return clean(name, 40)
	}
	n := len([]rune(name))
	if n >= 40 || max-n-3 < 8 {
		return clean(name, 40)
	}
	return clean(name, 40) + " — " + clean(d, max-n-3)
}

// An OptionError is a bad option, worded for the person who asked.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

func optionErr(format string, args ...any) error {
	return &OptionError{Msg: fmt.Sprintf(format, args...)}
}

// Draw lays out the picture of res that opt asks for.
func Draw(res *engine.Result, opt Options) (*Drawing, error) {
	if opt.Theme == "" {
		opt.Theme = "auto"
	}
	if !slices.Contains([]string{"auto", "light", "dark"}, opt.Theme) {
		return nil, optionErr("theme %q is not auto, light or dark", opt.Theme)
	}
	if opt.Width < 0 || opt.Height < 0 || opt.Width > 4000 || opt.Height > 4000 {
		return nil, optionErr("width and height must be within 0..4000")
	}
	if opt.Picture == "" {
		opt.Picture = Attempts
		if len(res.Sweep) > 0 {
			opt.Picture = Sweep
		}
	}
	var c *canvas
	var err error
	switch opt.Picture {
	case Attempts:
		c, err = attempts(res, opt)
	case Outcomes:
		c, err = outcomes(res, opt)
	case Compare:
		c, err = compare(res, opt)
	case Sweep:
		c, err = sweep(res, opt)
	case Latency:
		c, err = latency(res, opt)
	case Queue:
		c, err = queue(res, opt)
	case Calls:
		c, err = calls(res, opt)
	case Fleets:
		c, err = fleets(res, opt)
	case Frontier:
		c, err = frontier(res, opt)
	default:
		return nil, optionErr("picture %q is not one of %s", opt.Picture, strings.Join(Pictures, ", "))
	}
	if err != nil {
		return nil, err
	}
	return &Drawing{Width: c.w, Height: c.h, Title: c.title, Desc: c.desc, Theme: opt.Theme, Shapes: c.body}, nil
}

// Render writes the picture of res that opt asks for, as SVG.
func Render(w io.Writer, res *engine.Result, opt Options) error {
	d, err := Draw(res, opt)
	if err != nil {
		return err
	}
	return d.WriteSVG(w)
}

// A Drawing is a picture as shapes on a canvas Width × Height: Render
// writes it as SVG, server/png as PNG.
type Drawing struct {
	Width, Height float64
	// Title names the picture, as it reads (the SVG writer escapes it).
	Title string
	// Desc describes the picture for the SVG's desc element, as XML
	// character data; a raster draws no description.
	Desc string
	// Theme is "auto", "light" or "dark".
	Theme  string
	Shapes []Shape
}

// A canvas is a chart being drawn: its size, its title and description, and
// the body.
type canvas struct {
	w, h        float64
	title, desc string
	body        shapes
}

func newCanvas(opt Options, w, h float64, title, desc string) *canvas {
	if opt.Width > 0 {
		w = opt.Width
	}
	if opt.Height > 0 {
		h = opt.Height
	}
	return &canvas{w: w, h: h, title: title, desc: desc}
}

// Widths a chart is drawn at for the width it is shown at, so that its
// smallest text is shown at least 10 px high: Wide (the default, 10 px
// text) shown at least 760 px wide, Mid (13 px text) at least 462 px wide,
// Narrow (13 px text) at least 308 px wide (a 360 px phone's column less a
// scrollbar is 324). Pages and the playground choose
// among them (server.chartDrawings; the playground by ShownWidths).
const (
	Narrow = 400
	Mid    = 600
	Wide   = 760
)

// A ShownWidth is a drawing's width (Width; 0 for the default, Wide) and
// the least width, in CSS px, the playground shows its charts at for which
// it draws them that wide (From).
type ShownWidth struct {
	From  int `json:"from"`
	Width int `json:"width"`
}

// ShownWidths are the playground's choice of drawing by the width its
// results show charts at, widest first: the first whose From that width
// reaches. Each From is at least its drawing's least width for 10 px text
// (Wide 760, Mid 462, Narrow 308 on a 360 px phone), Mid's with a margin.
var ShownWidths = []ShownWidth{{From: Wide, Width: 0}, {From: 500, Width: Mid}, {From: 0, Width: Narrow}}

// ShownWidthsJSON is ShownWidths as JSON, as the playground's page carries
// it (data-chart-widths): its first result is laid out before the engine
// loads.
func ShownWidthsJSON() string {
	b, _ := json.Marshal(ShownWidths)
	return string(b)
}

// largeText reports whether a chart width wide gets the larger text: one
// narrower than 700 is drawn to be shown at a phone's or a tablet's width,
// or in a narrow frame, wider than it is drawn but narrower than Wide.
func largeText(width float64) bool { return width < 700 }

// WriteSVG writes d as a standalone SVG document.
func (d *Drawing) WriteSVG(w io.Writer) error {
	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-labelledby="title desc" style="max-width:100%%;height:auto">`+"\n",
		num(d.Width), num(d.Height), num(d.Width), num(d.Height))
	fmt.Fprintf(&out, "<title id=\"title\">%s</title>\n<desc id=\"desc\">%s</desc>\n", xmlText(d.Title), d.Desc)
	fmt.Fprintf(&out, "<style>%s</style>\n", style(d.Theme, d.Width))
	fmt.Fprintf(&out, `<rect class="bg" width="%s" height="%s"/>`+"\n", num(d.Width), num(d.Height))
	for i := range d.Shapes {
		writeSVG(&out, &d.Shapes[i])
	}
	out.WriteString("</svg>\n")
	_, err := io.WriteString(w, out.String())
	return err
}

// A plot is a rectangle of the canvas with linear scales.
type plot struct {
	x0, y0, x1, y1 float64 // pixel box: left, top, right, bottom
	lo, hi         float64 // x domain
	top            float64 // y domain is [0, top]
}

func (p *plot) X(v float64) float64 { return p.x0 + (v-p.lo)/(p.hi-p.lo)*(p.x1-p.x0) }
func (p *plot) Y(v float64) float64 { return p.y1 - v/p.top*(p.y1-p.y0) }

// axes draws the grid, the ticks and the axis labels.
func (c *canvas) axes(p *plot, xLabel, yLabel string, xFormat func(float64) string) {
	s := &c.body
	ys, _ := ticks(0, p.top, 4)
	for _, v := range ys {
		y := p.Y(v)
		s.line(p.x0, y, p.x1, y, "g")
		s.text(p.x0-6, y+4, "m", "end", label(v))
	}
	xs, _ := ticks(p.lo, p.hi, 8)
	for _, v := range xs {
		if v < p.lo || v > p.hi {
			continue
		}
		x := p.X(v)
		s.line(x, p.y1, x, p.y1+4, "a")
		if xFormat != nil {
			s.text(x, p.y1+16, "m", "middle", xFormat(v))
		}
	}
	s.line(p.x0, p.y1, p.x1, p.y1, "a")
	if xLabel != "" {
		s.text((p.x0+p.x1)/2, p.y1+32, "m", "middle", xLabel)
	}
	if yLabel != "" {
		s.up(p.x0-44, (p.y0+p.y1)/2, "m", yLabel)
	}
}

// phases shades the dependency's phases: faults (freeze, outage, errors) in a
// stronger shade than changes of capacity or latency, with a line where each
// begins. phaseLabels names them; call it after drawing the data.
func (c *canvas) phases(p *plot, phases []engine.PhaseSpan) {
	s := &c.body
	for _, ph := range phases {
		a, b := max(p.X(ph.FromS), p.x0), min(p.X(ph.ToS), p.x1)
		if b <= a {
			continue
		}
		cls := "ph"
		if ph.Kind == engine.PhaseFreeze || ph.Kind == engine.PhaseOutage || ph.Kind == engine.PhaseErrors {
			cls = "ph ph2"
		}
		s.rect(a, p.y0, b-a, p.y1-p.y0, cls)
		s.line(a, p.y0, a, p.y1, "pl")
	}
}

func (c *canvas) phaseLabels(p *plot, phases []engine.PhaseSpan) {
	s := &c.body
	// The phases of several dependencies may start together: each label,
	// named by its dependency, takes the first row its left is clear on.
	var ends []float64
	size, lead := 10.0, 12.0 // .s, and from one row's baseline to the next
	if largeText(c.w) {
		size, lead = 13, 13
	}
	for i, ph := range phases {
		a, b := max(p.X(ph.FromS), p.x0), min(p.X(ph.ToS), p.x1)
		if b <= a {
			continue
		}
		if ph.Dependency == "" {
			// Stagger the labels of neighbouring phases so they do not overlap.
			s.text(a+3, p.y0+11+float64(i%2)*lead, "s", "", clean(ph.Label, 28))
			continue
		}
		// A label that names its dependency already ("payment down") is
		// not prefixed with it again.
		plain := ph.Dependency + ": " + ph.Label
		text := clean(ph.Dependency, 16) + ": " + clean(ph.Label, 28)
		if strings.Contains(strings.ToLower(ph.Label), strings.ToLower(ph.Dependency)) {
			plain, text = ph.Label, clean(ph.Label, 28)
		}
		row := 0
		for row < len(ends) && ends[row] > a {
			row++
		}
		if row == len(ends) {
			ends = append(ends, 0)
		}
		// textWidth measures bold text: generous for the labels' regular.
		ends[row] = a + 3 + textWidth(plain, size)*0.85 + 4
		s.text(a+3, p.y0+11+float64(row%4)*lead, "s", "", text)
	}
}

// legend writes one entry per series across the top, wrapping as needed, and
// returns the height it used.
func (c *canvas) legend(x, y, width float64, entries []string, marker func(i int, x, y float64)) float64 {
	s := &c.body
	cx, cy := x, y
	// A character of the 12 px text, generously; the narrow style's 14 px
	// text is measured from its glyphs' widths.
	width1 := func(e string) float64 { return 6.6 * float64(len([]rune(e))) }
	row := 16.0
	if largeText(c.w) {
		width1 = func(e string) float64 { return textWidth(e, 14) }
		row = 18
	}
	for i, e := range entries {
		// An entry wider than the legend wraps at its spaces, on lines of
		// its own, rather than run past the picture's edge.
		lines := wrapWords(e, width-26, width1)
		w := 0.0
		for _, l := range lines {
			w = max(w, 26+width1(l))
		}
		if cx > x && (cx+w > x+width || len(lines) > 1) {
			cx, cy = x, cy+row
		}
		marker(i, cx, cy-4)
		for k, l := range lines {
			s.text(cx+22, cy+float64(k)*row, "", "", l)
		}
		if len(lines) > 1 {
			cx, cy = x+width, cy+float64(len(lines)-1)*row // the next entry on a row of its own
			continue
		}
		cx += w + 14
	}
	return cy - y + row
}

// wrapWords splits text at its spaces into lines of at most width, as
// measured by widthOf; a word wider than that stands on a line alone.
func wrapWords(text string, width float64, widthOf func(string) float64) []string {
	if widthOf(text) <= width {
		return []string{text}
	}
	// A unit stays with its number: "6.9 s", not "6.9" and "s".
	var words []string
	for _, w := range strings.Fields(text) {
		if n := len(words); n > 0 && (w == "s" || w == "ms" || w == "%" || w == "/") {
			words[n-1] += " " + w
			continue
		}
		words = append(words, w)
	}
	var lines []string
	line := ""
	for _, w := range words {
		if line != "" && widthOf(line+" "+w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func lineMarker(s *shapes) func(i int, x, y float64) {
	return func(i int, x, y float64) {
		k := strconv.Itoa(i % len(dashes))
		s.dash(x, y, "l c"+k+" d"+k)
	}
}

func boxMarker(s *shapes, classes []string) func(i int, x, y float64) {
	return func(i int, x, y float64) {
		s.rect(x+3, y-5, 12, 10, "kb "+classes[i])
	}
}

func seconds(v float64) string { return label(v) + " s" }

var errNoSeries = errors.New("chart: the result has no time series (run it without NoSeries)")

func strategiesOf(res *engine.Result) ([]engine.StrategyResult, error) {
	if len(res.Strategies) == 0 {
		if len(res.Sweep) > 0 {
			return nil, optionErr("this result is a sweep: only the sweep picture applies")
		}
		return nil, optionErr("the result has no strategies")
	}
	for _, st := range res.Strategies {
		if st.Series == nil {
			return nil, errNoSeries
		}
	}
	return res.Strategies, nil
}

// titleOf names a chart: the scenario and what the chart shows, cut so that
// it fits a chart width wide (a bold 15 px character is about 8.5 px).
func titleOf(res *engine.Result, what string, width float64) string {
	size := 15.0 // the title's font size (.t)
	if largeText(width) {
		size = 16 // the narrow style's
	}
	room := width - marginL - marginR
	if res.Scenario == "" || textWidth(what, size) > room*0.8 {
		return fit(what, room, size)
	}
	name := fit(res.Scenario, room-textWidth(" — "+what, size), size)
	if name == "" || name == "…" {
		return fit(what, room, size)
	}
	return name + " — " + clean(what, 1000)
}

// fit escapes s, cut with an ellipsis where its estimated width at a font
// size would pass room.
func fit(s string, room, size float64) string {
	if textWidth(s, size) <= room {
		return clean(s, 1000)
	}
	n, used := 0, textWidth("…", size)
	for _, r := range s {
		used += textWidth(string(r), size)
		if used > room {
			break
		}
		n++
	}
	return clean(s, n)
}

// textWidth estimates the width of bold sans-serif text at a font size from
// the advance widths of DejaVu Sans Bold (the widest of the usual system
// fonts, and Debian's), so that a title fitted by it fits in narrower fonts
// too. Glyphs outside ASCII count as wide.
func textWidth(s string, size float64) float64 {
	var w float64
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			w += lowerWidths[r-'a']
		case r >= 'A' && r <= 'Z':
			w += upperWidths[r-'A']
		case r >= '0' && r <= '9':
			w += 0.696
		case r == ' ' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!':
			w += 0.38
		case r == '(' || r == ')' || r == '-' || r == '/' || r == '[' || r == ']':
			w += 0.46
		case r < 128:
			w += 0.84
		default:
			w += 1.05
		}
	}
	return w * size
}

var (
	lowerWidths = [26]float64{.675, .716, .593, .716, .678, .435, .716, .712, .343, .343, .665, .343, 1.042, .712, .687, .716, .716, .493, .595, .478, .712, .652, .924, .645, .652, .582}
	upperWidths = [26]float64{.774, .762, .734, .830, .683, .683, .821, .837, .372, .372, .775, .637, .995, .837, .850, .733, .850, .770, .720, .682, .812, .774, 1.103, .771, .724, .725}
)

// HasResolution reports whether the attempts picture of res can be drawn at
// resolution r: every strategy has a series at r, or one whose buckets add
// up to it.
func HasResolution(res *engine.Result, r time.Duration) bool {
	if len(res.Strategies) == 0 {
		return false
	}
	for i := range res.Strategies {
		if res.Strategies[i].Series == nil {
			return false
		}
		if _, ok := windows(&res.Strategies[i], r); !ok {
			return false
		}
	}
	return true
}
