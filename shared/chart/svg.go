package chart

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// num formats a coordinate with at most one decimal, so that the SVG is the
// same bytes on every platform and stays small.
func num(x float64) string {
	x = tenth(x)
	if x == 0 {
		return "0" // never "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// tenth rounds x to a tenth, the precision of a shape's numbers: the
// shapes hold them rounded, so that the SVG and a raster draw the same
// numbers.
func tenth(x float64) float64 { return math.Round(x*10) / 10 }

// clean makes user text fit to draw: control characters dropped, invalid
// UTF-8 replaced, and long text cut to max runes with an ellipsis. The SVG
// writer escapes it (xmlText); a raster backend draws it as it is.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r == utf8.RuneError && size == 1 {
			r = '\uFFFD'
		}
		if unicode.IsControl(r) || r == '\uFFFE' || r == '\uFFFF' || (r >= 0xD800 && r <= 0xDFFF) {
			continue
		}
		if n == max {
			b.WriteString("…")
			break
		}
		n++
		b.WriteRune(r)
	}
	return b.String()
}

// xmlText escapes text as XML character data or an attribute value.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A Kind is what a Shape is.
type Kind uint8

// The kinds of Shape.
const (
	ShapePath   Kind = iota // straight segments, stroked or filled as its class says
	ShapeRect               // a rectangle from X, Y, W wide and H high
	ShapeCircle             // a circle of radius R about X, Y
	ShapeText               // one line of text on the baseline through X, Y
)

// A Shape is one element of a chart: Render writes it as an SVG element,
// server/png rasterises it, so that both draw the same layout. Its class
// names the rules of the style sheet that style it (Drawing.Look resolves
// them). Its numbers are rounded to a tenth, as the SVG writes them.
type Shape struct {
	Kind  Kind
	Class string  // space-separated classes, as in the SVG
	X, Y  float64 // a rect's top left corner, a circle's centre, a text's anchor
	W, H  float64 // a rect's size
	R     float64 // a circle's radius
	Segs  []Seg   // a path's segments
	// Text is a text's content, as it reads (the SVG writer escapes it).
	Text string
	// Anchor aligns a text on X: "" (its start), "middle" or "end".
	Anchor string
	// Up turns a text a quarter turn about X, Y, to read upwards.
	Up bool
}

// A Seg is one segment of a path. Op is 'M' (move to X, Y), 'L' (a line to
// X, Y), 'H' (a line to X), 'V' (a line to Y), 'h' (a line X long to the
// right) or 'Z' (a line back to the start of the subpath), as in SVG.
type Seg struct {
	Op   byte
	X, Y float64
}

// shapes is a chart's body being drawn.
type shapes []Shape

// text adds a text; class sets its style, anchor its alignment.
func (s *shapes) text(x, y float64, class, anchor, content string) {
	if anchor == "start" {
		anchor = ""
	}
	*s = append(*s, Shape{Kind: ShapeText, Class: class, X: tenth(x), Y: tenth(y), Text: content, Anchor: anchor})
}

// up adds a text centred on x, y that reads upwards (an axis label).
func (s *shapes) up(x, y float64, class, content string) {
	*s = append(*s, Shape{Kind: ShapeText, Class: class, X: tenth(x), Y: tenth(y), Text: content, Anchor: "middle", Up: true})
}

func (s *shapes) line(x1, y1, x2, y2 float64, class string) {
	s.segs(class, []Seg{{'M', x1, y1}, {'L', x2, y2}})
}

// dash adds the line of a legend entry, 18 long from x, y.
func (s *shapes) dash(x, y float64, class string) {
	s.segs(class, []Seg{{'M', x, y}, {Op: 'h', X: 18}})
}

func (s *shapes) rect(x, y, w, h float64, class string) {
	*s = append(*s, Shape{Kind: ShapeRect, Class: class, X: tenth(x), Y: tenth(y), W: tenth(max(w, 0)), H: tenth(max(h, 0))})
}

func (s *shapes) circle(x, y, r float64, class string) {
	*s = append(*s, Shape{Kind: ShapeCircle, Class: class, X: tenth(x), Y: tenth(y), R: tenth(r)})
}

// path adds a polyline through the points.
func (s *shapes) path(class string, pts []point) {
	if len(pts) == 0 {
		return
	}
	segs := make([]Seg, len(pts))
	for i, p := range pts {
		segs[i] = Seg{'L', p.x, p.y}
	}
	segs[0].Op = 'M'
	s.segs(class, segs)
}

func (s *shapes) segs(class string, segs []Seg) {
	for i := range segs {
		segs[i].X, segs[i].Y = tenth(segs[i].X), tenth(segs[i].Y)
	}
	*s = append(*s, Shape{Kind: ShapePath, Class: class, Segs: segs})
}

// writeSVG writes sh as one SVG element on a line.
func writeSVG(b *strings.Builder, sh *Shape) {
	w := b.WriteString
	switch sh.Kind {
	case ShapePath:
		w(`<path class="` + sh.Class + `" d="`)
		for _, sg := range sh.Segs {
			b.WriteByte(sg.Op)
			switch sg.Op {
			case 'M', 'L':
				w(num(sg.X) + " " + num(sg.Y))
			case 'H', 'h':
				w(num(sg.X))
			case 'V':
				w(num(sg.Y))
			}
		}
		w(`"/>` + "\n")
	case ShapeRect:
		w(`<rect class="` + sh.Class + `" x="` + num(sh.X) + `" y="` + num(sh.Y) + `" width="` + num(sh.W) + `" height="` + num(sh.H) + `"/>` + "\n")
	case ShapeCircle:
		w(`<circle class="` + sh.Class + `" cx="` + num(sh.X) + `" cy="` + num(sh.Y) + `" r="` + num(sh.R) + `"/>` + "\n")
	case ShapeText:
		anchor := ""
		if sh.Anchor != "" {
			anchor = ` text-anchor="` + sh.Anchor + `"`
		}
		if sh.Up {
			w(`<text class="` + sh.Class + `"` + anchor + ` transform="translate(` + num(sh.X) + " " + num(sh.Y) + `) rotate(-90)">`)
		} else {
			w(`<text x="` + num(sh.X) + `" y="` + num(sh.Y) + `" class="` + sh.Class + `"` + anchor + ">")
		}
		w(xmlText(sh.Text) + "</text>\n")
	}
}

type point struct{ x, y float64 }

// ticks returns about n round values (steps of 1, 2 or 5 × 10^k) covering
// [lo, hi], and the step.
func ticks(lo, hi float64, n int) ([]float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(max(n, 1))
	// The power of ten at or below raw, found by multiplying rather than with
	// math.Log10, whose amd64 assembly could round differently from wasm.
	mag := 1.0
	for mag*10 <= raw {
		mag *= 10
	}
	for mag > raw {
		mag /= 10
	}
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out, step
}

// niceMax rounds a maximum up to the next 1-2-5 step, so the top tick is the
// top of the axis.
func niceMax(v float64, n int) float64 {
	if v <= 0 {
		return 1
	}
	_, step := ticks(0, v, n)
	return math.Ceil(v/step-1e-9) * step
}

// label formats a tick value compactly: 1500 → "1.5k", 0.25 → "0.25".
func label(v float64) string {
	if v == 0 {
		return "0" // never "-0"
	}
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(math.Round(v/100)/10, 'f', -1, 64) + "k"
	case a >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case a >= 10:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
