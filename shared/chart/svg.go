package chart

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An svg accumulates one standalone SVG document. Every piece of text goes
// through esc; numbers are rounded to one decimal so the bytes are the same on
// every platform and the file stays small.
type svg struct {
	b strings.Builder
}

// num formats a coordinate with at most one decimal.
func num(x float64) string {
	x = math.Round(x*10) / 10
	if x == 0 {
		return "0" // never "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// esc makes user text safe as XML character data or an attribute value:
// markup characters escaped, control characters dropped, invalid UTF-8
// replaced, and long text cut to max runes with an ellipsis.
func esc(s string, max int) string {
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

func (s *svg) raw(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(p)
	}
}

// text writes a text element; class sets its style, anchor its alignment.
func (s *svg) text(x, y float64, class, anchor, content string) {
	s.raw(`<text x="`, num(x), `" y="`, num(y), `" class="`, class, `"`)
	if anchor != "" && anchor != "start" {
		s.raw(` text-anchor="`, anchor, `"`)
	}
	s.raw(">", content, "</text>\n")
}

func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.raw(`<path class="`, class, `" d="M`, num(x1), " ", num(y1), "L", num(x2), " ", num(y2), `"/>`, "\n")
}

func (s *svg) rect(x, y, w, h float64, class string) {
	s.raw(`<rect class="`, class, `" x="`, num(x), `" y="`, num(y), `" width="`, num(max(w, 0)), `" height="`, num(max(h, 0)), `"/>`, "\n")
}

// path writes a polyline through the points.
func (s *svg) path(class, extra string, pts []point) {
	if len(pts) == 0 {
		return
	}
	s.raw(`<path class="`, class, `"`, extra, ` d="`)
	for i, p := range pts {
		if i == 0 {
			s.raw("M", num(p.x), " ", num(p.y))
		} else {
			s.raw("L", num(p.x), " ", num(p.y))
		}
	}
	s.raw(`"/>`, "\n")
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
