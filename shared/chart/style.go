package chart

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The charts' style sheet is decided here once, as values: WriteSVG writes
// it as CSS (style), and Look resolves it for one shape, which is what a
// raster backend (server/png) paints with. Neither reads the other's text.

// An NRGBA is a colour of red, green, blue and alpha, not premultiplied:
// image/color's NRGBA, which it converts to (color.NRGBA(c)). chart does
// not import image/color, which would cost the Worker 37 KB.
type NRGBA struct{ R, G, B, A uint8 }

// A colour of a theme: its CSS text, as the SVG has it, and its value.
type colour struct {
	css string
	c   NRGBA
}

// hex is the colour of a CSS literal #rrggbb.
func hex(s string) colour {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	if err != nil || len(s) != 7 {
		panic("chart: colour " + s + " is not #rrggbb")
	}
	return colour{s, NRGBA{uint8(n >> 16), uint8(n >> 8), uint8(n), 255}}
}

// rgba is the colour of red, green and blue 0..255 at opacity a (0..1).
func rgba(r, g, b uint8, a float64) colour {
	css := fmt.Sprintf("rgba(%d,%d,%d,%s)", r, g, b, cssNum(a))
	return colour{css, NRGBA{r, g, b, uint8(a*255 + 0.5)}}
}

// A theme is the colours of the charts on one background: the page's, the
// text's, muted text's, the grid's, the phases' two shades, and the
// series'.
type theme struct {
	bg, fg, muted, grid, phase, phase2 colour
	series                             [8]colour
}

// The palette is Okabe and Ito's colour-blind-safe set, ordered for contrast
// on white. Dark backgrounds get lighter shades of the same hues, so that a
// colour means the same thing in both themes (2 is success, 1 failure).
var (
	lightTheme = theme{
		bg: hex("#ffffff"), fg: hex("#1f2328"), muted: hex("#57606a"), grid: hex("#d8dee4"),
		phase: rgba(230, 159, 0, .13), phase2: rgba(213, 94, 0, .16),
		series: [8]colour{hex("#0072B2"), hex("#D55E00"), hex("#009E73"), hex("#CC79A7"), hex("#E69F00"), hex("#56B4E9"), hex("#6b6b6b"), hex("#000000")},
	}
	darkTheme = theme{
		bg: hex("#0d1117"), fg: hex("#e6edf3"), muted: hex("#9198a1"), grid: hex("#30363d"),
		phase: rgba(230, 159, 0, .16), phase2: rgba(240, 138, 93, .22),
		series: [8]colour{hex("#56B4E9"), hex("#F08A5D"), hex("#2BC49A"), hex("#DB96C2"), hex("#E69F00"), hex("#9FD3F2"), hex("#bdbdbd"), hex("#ffffff")},
	}
	// dashes are the series' dash patterns (dash, gap, …), by the class
	// dN; the first series is solid.
	dashes = [8][]float64{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {1, 3}, {10, 4}, {4, 2, 1, 2}, {12, 2}}
)

// A paint is what a fill or a stroke takes: none, one of the theme's
// colours, or (series) the colour of the shape's class cN.
type paint uint8

const (
	black paint = iota // SVG's initial fill, which no rule writes
	none
	bg
	fg
	muted
	grid
	phase
	phase2
	series
)

// vars are the custom properties of the theme's colours, by paint.
var vars = [...]string{bg: "--bg", fg: "--fg", muted: "--muted", grid: "--grid", phase: "--phase", phase2: "--phase2", series: "--c"}

func (p paint) css() string {
	if p == none {
		return "none"
	}
	return "var(" + vars[p] + ")"
}

// colour is p in theme t for a shape of series k (-1 when it has none).
func (t *theme) colour(p paint, k int) (NRGBA, error) {
	switch p {
	case black:
		return NRGBA{A: 255}, nil
	case none:
		return NRGBA{}, nil
	case bg:
		return t.bg.c, nil
	case fg:
		return t.fg.c, nil
	case muted:
		return t.muted.c, nil
	case grid:
		return t.grid.c, nil
	case phase:
		return t.phase.c, nil
	case phase2:
		return t.phase2.c, nil
	case series:
		if k < 0 {
			return NRGBA{}, fmt.Errorf("it takes a series' colour but has no class c0..c%d", len(t.series)-1)
		}
		return t.series[k].c, nil
	}
	return NRGBA{}, fmt.Errorf("paint %d is not one of the sheet's", p)
}

// A prop is a property of the style sheet.
type prop uint8

const (
	fill prop = iota
	fillOpacity
	stroke
	strokeWidth
	strokeLinejoin
	strokeDasharray
	fontFamily
	fontSize
	fontWeight
)

var propNames = [...]string{fill: "fill", fillOpacity: "fill-opacity", stroke: "stroke", strokeWidth: "stroke-width", strokeLinejoin: "stroke-linejoin", strokeDasharray: "stroke-dasharray", fontFamily: "font-family", fontSize: "font-size", fontWeight: "font-weight"}

// A decl is one declaration: a property and its value, which is a paint
// (fill, stroke), a number (font-size in px), a pattern (stroke-dasharray)
// or a keyword.
type decl struct {
	prop  prop
	paint paint
	num   float64
	dash  []float64
	word  string
}

func (d decl) css() string {
	v := d.word
	switch d.prop {
	case fill, stroke:
		v = d.paint.css()
	case fillOpacity, strokeWidth, fontWeight:
		v = cssNum(d.num)
	case fontSize:
		v = cssNum(d.num) + "px"
	case strokeDasharray:
		parts := make([]string, len(d.dash))
		for i, x := range d.dash {
			parts[i] = cssNum(x)
		}
		v = strings.Join(parts, " ")
	}
	return propNames[d.prop] + ":" + v
}

// cssNum writes x as CSS does most briefly: 1.6, .85, 600.
func cssNum(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if t, ok := strings.CutPrefix(s, "0."); ok {
		return "." + t
	}
	return s
}

// A rule styles the text elements (sel "text") or the shapes of a class
// (".g").
type rule struct {
	sel   string
	decls []decl
}

func paintOf(p prop, v paint) decl      { return decl{prop: p, paint: v} }
func numOf(p prop, v float64) decl      { return decl{prop: p, num: v} }
func wordOf(p prop, v string) decl      { return decl{prop: p, word: v} }
func dashOf(pattern []float64) decl     { return decl{prop: strokeDasharray, dash: pattern} }
func ruleOf(sel string, d ...decl) rule { return rule{sel, d} }

// sheets are shapeRules' two sheets, made once: the default's and the
// larger text's.
var sheets = [2][]rule{shapeRules(false), shapeRules(true)}

// sheet is the rules of a chart width wide.
func sheet(width float64) []rule {
	if largeText(width) {
		return sheets[1]
	}
	return sheets[0]
}

// shapeRules style the shapes by class. A chart drawn narrower than the
// default (largeText) gets larger text, 13 px at least, so that it stays
// at least 10 px high when the chart is shown at the width it was drawn
// for.
func shapeRules(narrow bool) []rule {
	sizes := [4]float64{12, 15, 11, 10}
	if narrow {
		sizes = [4]float64{14, 16, 13, 13}
	}
	out := []rule{
		ruleOf(".bg", paintOf(fill, bg)),
		ruleOf("text", wordOf(fontFamily, `system-ui,-apple-system,"Segoe UI",sans-serif`), paintOf(fill, fg), numOf(fontSize, sizes[0])),
		ruleOf(".t", numOf(fontSize, sizes[1]), numOf(fontWeight, 600)),
		ruleOf(".m", paintOf(fill, muted), numOf(fontSize, sizes[2])),
		ruleOf(".s", numOf(fontSize, sizes[3]), paintOf(fill, muted)),
		ruleOf(".g", paintOf(stroke, grid), numOf(strokeWidth, 1), paintOf(fill, none)),
		ruleOf(".a", paintOf(stroke, muted), numOf(strokeWidth, 1), paintOf(fill, none)),
		ruleOf(".ph", paintOf(fill, phase)),
		ruleOf(".ph2", paintOf(fill, phase2)),
		ruleOf(".pl", paintOf(stroke, phase2), numOf(strokeWidth, 1)),
		ruleOf(".l", paintOf(fill, none), paintOf(stroke, series), numOf(strokeWidth, 1.6), wordOf(strokeLinejoin, "round")),
		ruleOf(".k", paintOf(fill, series)),
		ruleOf(".kb", paintOf(fill, series), numOf(fillOpacity, .85)),
		ruleOf(".w", paintOf(stroke, fg), numOf(strokeWidth, 1.2), paintOf(fill, none)),
		ruleOf(".o", paintOf(fill, bg), paintOf(stroke, series), numOf(strokeWidth, 1.6)),
	}
	for i, d := range dashes {
		if d != nil {
			out = append(out, ruleOf(".d"+strconv.Itoa(i), dashOf(d)))
		}
	}
	return out
}

// style is the charts' style sheet as CSS: the theme's colours as custom
// properties, then the shapes' rules. Theme "auto" is light, and dark for
// a reader who prefers it.
func style(themeName string, width float64) string {
	var b strings.Builder
	colours := func(t *theme) {
		b.WriteString("svg{")
		for i, c := range []colour{t.bg, t.fg, t.muted, t.grid, t.phase, t.phase2} {
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString(vars[bg+paint(i)] + ":" + c.css)
		}
		b.WriteByte('}')
		for i, c := range t.series {
			b.WriteString(".c" + strconv.Itoa(i) + "{" + vars[series] + ":" + c.css + "}")
		}
	}
	if themeName == "dark" {
		colours(&darkTheme)
	} else {
		colours(&lightTheme)
	}
	if themeName == "auto" {
		b.WriteString("@media (prefers-color-scheme:dark){")
		colours(&darkTheme)
		b.WriteByte('}')
	}
	for _, r := range sheet(width) {
		b.WriteString(r.sel + "{")
		for i, d := range r.decls {
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString(d.css())
		}
		b.WriteByte('}')
	}
	return b.String()
}

// A Look is how a shape is painted: the style sheet's rules for it
// resolved in the drawing's theme, as a browser resolves them for the SVG.
type Look struct {
	// Fill and Stroke are the colours of the inside and the outline,
	// transparent for none; Fill has the fill-opacity applied.
	Fill, Stroke NRGBA
	// StrokeWidth is the outline's width in user units.
	StrokeWidth float64
	// Dash is the outline's pattern (dash, gap, …, of even length), nil
	// for a solid line; every join is round.
	Dash []float64
	// FontSize is a text's size in user units, Bold its weight.
	FontSize float64
	Bold     bool
}

// Look resolves the style of sh in d's theme; a theme "auto" is light,
// since only a browser can follow the reader's colour scheme. As CSS has
// it, the text rule applies before the class rules, which apply in the
// sheet's order.
func (d *Drawing) Look(sh *Shape) (Look, error) {
	t := &lightTheme
	if d.Theme == "dark" {
		t = &darkTheme
	}
	classes := strings.Fields(sh.Class)
	k := -1
	for _, c := range classes {
		if n, ok := strings.CutPrefix(c, "c"); ok {
			if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(t.series) {
				k = i
			}
		}
	}
	fillP, strokeP := black, none
	l := Look{StrokeWidth: 1, FontSize: 16}
	opacity := 1.0
	for _, byClass := range []bool{false, true} {
		for _, r := range sheet(d.Width) {
			name, isClass := strings.CutPrefix(r.sel, ".")
			if isClass != byClass || !isClass && (name != "text" || sh.Kind != ShapeText) || isClass && !slices.Contains(classes, name) {
				continue
			}
			for _, dc := range r.decls {
				switch dc.prop {
				case fill:
					fillP = dc.paint
				case stroke:
					strokeP = dc.paint
				case fillOpacity:
					opacity = dc.num
				case strokeWidth:
					l.StrokeWidth = dc.num
				case strokeDasharray:
					l.Dash = slices.Clone(dc.dash) // the sheet is shared
				case fontSize:
					l.FontSize = dc.num
				case fontWeight:
					l.Bold = dc.num >= 600
				}
			}
		}
	}
	var err error
	if l.Fill, err = t.colour(fillP, k); err != nil {
		return l, fmt.Errorf("fill: %w", err)
	}
	l.Fill.A = uint8(float64(l.Fill.A)*min(max(opacity, 0), 1) + 0.5)
	if l.Stroke, err = t.colour(strokeP, k); err != nil {
		return l, fmt.Errorf("stroke: %w", err)
	}
	if len(l.Dash)%2 == 1 {
		l.Dash = append(l.Dash[:len(l.Dash):len(l.Dash)], l.Dash...)
	}
	return l, nil
}
