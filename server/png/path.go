package png

import (
	"fmt"
	"math"

	"github.com/retrylab/retrylab/shared/chart"
)

type pt struct{ x, y float64 }

// A subpath is a polyline, closed or not.
type subpath struct {
	pts    []pt
	closed bool
}

// subpaths returns the polylines of a path's segments.
func subpaths(segs []chart.Seg) ([]subpath, error) {
	var subs []subpath
	var cur, start pt
	to := func(p pt) {
		if subs[len(subs)-1].closed {
			// A line after Z starts a new subpath where the last one started.
			subs = append(subs, subpath{pts: []pt{cur}})
		}
		subs[len(subs)-1].pts = append(subs[len(subs)-1].pts, p)
		cur = p
	}
	for _, sg := range segs {
		if sg.Op != 'M' && len(subs) == 0 {
			return nil, fmt.Errorf("the path starts with %c, not M", sg.Op)
		}
		switch sg.Op {
		case 'M':
			start = pt{sg.X, sg.Y}
			subs = append(subs, subpath{})
			to(start)
		case 'L':
			to(pt{sg.X, sg.Y})
		case 'H':
			to(pt{sg.X, cur.y})
		case 'V':
			to(pt{cur.x, sg.Y})
		case 'h':
			to(pt{cur.x + sg.X, cur.y})
		case 'Z':
			subs[len(subs)-1].closed = true
			cur = start
		default:
			return nil, fmt.Errorf("path segment %q is not supported", sg.Op)
		}
	}
	return subs, nil
}

// circle returns a polygon close to the circle of centre c and radius r,
// with sides of about a pixel and a half.
func circle(c pt, r float64) []pt {
	n := max(8, min(256, int(2*math.Pi*r/1.5)))
	p := make([]pt, n)
	for i := range p {
		a := 2 * math.Pi * float64(i) / float64(n)
		p[i] = pt{c.x + r*math.Cos(a), c.y + r*math.Sin(a)}
	}
	return p
}

// strokePolys appends to polys the outline of sp's stroke, half-width hw and
// dashed by dash (nil for solid), as polygons that all wind the same way: a
// quadrilateral for each segment (butt caps) and a disc at each join.
func strokePolys(polys [][]pt, sp subpath, hw float64, dash []float64) [][]pt {
	line := sp.pts
	if sp.closed && len(line) > 1 {
		line = append(line[:len(line):len(line)], line[0])
	}
	if len(line) < 2 {
		return polys
	}
	pieces := [][]pt{line}
	if dash != nil {
		pieces = dashed(line, dash)
	}
	for _, p := range pieces {
		for i := 1; i < len(p); i++ {
			a, b := p[i-1], p[i]
			dx, dy := b.x-a.x, b.y-a.y
			l := math.Hypot(dx, dy)
			if l == 0 {
				continue
			}
			nx, ny := -dy/l*hw, dx/l*hw
			polys = append(polys, wind([]pt{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}}))
		}
		last := len(p) - 1
		if sp.closed && dash == nil {
			last++ // the join where the outline closes
		}
		for i := 1; i < last; i++ {
			polys = append(polys, wind(circle(p[i], hw)))
		}
	}
	return polys
}

// wind orients p counter-clockwise on the screen, so that overlapping polygons
// add up instead of cancelling out.
func wind(p []pt) []pt {
	a := 0.0
	for i := range p {
		q, r := p[i], p[(i+1)%len(p)]
		a += q.x*r.y - r.x*q.y
	}
	if a > 0 {
		for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	return p
}

// dashed cuts the polyline line into the dashes of pattern (dash, gap, …),
// starting with a dash at the line's start.
func dashed(line []pt, pattern []float64) [][]pt {
	var out [][]pt
	k, left, on := 0, pattern[0], true
	cur := []pt{line[0]}
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		l := math.Hypot(b.x-a.x, b.y-a.y)
		t := 0.0
		for l-t > left {
			t += left
			p := pt{a.x + (b.x-a.x)*t/l, a.y + (b.y-a.y)*t/l}
			if on {
				out = append(out, append(cur, p))
				cur = nil
			} else {
				cur = []pt{p}
			}
			on = !on
			k = (k + 1) % len(pattern)
			left = pattern[k]
		}
		left -= l - t
		if on {
			cur = append(cur, b)
		}
	}
	if on && len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}
