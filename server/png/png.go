// Package png draws the charts of shared/chart as PNG images, for link
// previews: Slack, X, LinkedIn and most other unfurlers show an og:image only
// when it is a bitmap, never SVG.
//
// It reads the SVG that shared/chart writes, not SVG in general: the elements
// rect, circle, path with straight segments (M, L, H, V, Z, absolute or
// relative) and text (x, y, text-anchor, a transform of translate and rotate),
// styled by one <style> element whose rules select an element name or a class,
// with custom properties and var(). Anything else is an error, so that a
// change to the charts which this package would draw wrongly fails its tests
// instead of a preview. @media rules are skipped: an image cannot follow the
// reader's colour scheme, so a chart of theme "auto" is drawn light.
//
// Shapes are rasterised, anti-aliased, by golang.org/x/image/vector; strokes
// become polygons here (butt caps, dashes, and every join round, which at the
// charts' widths of one or two pixels looks like a miter). Text is set on one
// line in the Go fonts (golang.org/x/image/font/gofont), regular or, from
// weight 600, bold: they are compiled in, so the same chart gives the same
// bytes on every machine. A character the Go fonts lack (CJK, emoji) is drawn
// as a box.
package png

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	stdpng "image/png"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/vector"
)

// MaxSize bounds the width and height that Chart draws, in pixels.
const MaxSize = 4000

// Chart rasterises svg, a chart written by shared/chart, and writes it to w
// as a PNG width pixels wide. With height 0 the image has the chart's own
// proportions; otherwise it is exactly width × height, the chart scaled to fit
// and centred, and the margin painted with the chart's background (a rect
// covering the whole viewBox). For an og:image, ask shared/chart for a chart
// of the image's proportions (1200 × 630 is 760 × 399) and pass 1200, 630.
func Chart(w io.Writer, svg []byte, width, height int) error {
	if width < 1 || width > MaxSize || height < 0 || height > MaxSize {
		return fmt.Errorf("png: size %d×%d is not within 1..%d", width, height, MaxSize)
	}
	img, err := draw1(svg, width, height)
	if err != nil {
		return err
	}
	enc := stdpng.Encoder{CompressionLevel: stdpng.BestSpeed}
	return enc.Encode(w, img)
}

// An element is one drawable element of the chart.
type element struct {
	name    string
	attr    map[string]string
	content string // of a text
}

// draw1 parses svg and draws it on a new image.
func draw1(svg []byte, width, height int) (*image.RGBA, error) {
	root, elems, err := parse(svg)
	if err != nil {
		return nil, err
	}
	vb, err := viewBox(root.attr)
	if err != nil {
		return nil, err
	}
	s := float64(width) / vb[2]
	if height > 0 {
		s = min(s, float64(height)/vb[3])
	} else {
		height = max(1, int(math.Round(vb[3]*s)))
		if height > MaxSize {
			return nil, fmt.Errorf("png: a chart %d wide would be %d high, over %d", width, height, MaxSize)
		}
	}
	r := &renderer{
		img: image.NewRGBA(image.Rect(0, 0, width, height)),
		s:   s,
		ox:  (float64(width)-vb[2]*s)/2 - vb[0]*s,
		oy:  (float64(height)-vb[3]*s)/2 - vb[1]*s,
		vb:  vb,
	}
	r.sheet, err = parseSheet(root.content)
	if err != nil {
		return nil, err
	}
	r.root = r.sheet.style(root, nil)
	for _, e := range elems {
		if err := r.element(e); err != nil {
			return nil, fmt.Errorf("png: <%s>: %w", e.name, err)
		}
	}
	return r.img, nil
}

// parse reads the svg element (its content the text of the <style>) and the
// elements to draw, in order.
func parse(svg []byte) (root *element, elems []*element, err error) {
	d := xml.NewDecoder(bytes.NewReader(svg))
	var cur *element // the element whose text is being read
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("png: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			e := &element{name: t.Name.Local, attr: make(map[string]string, len(t.Attr))}
			for _, a := range t.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			switch {
			case depth == 1:
				if e.name != "svg" {
					return nil, nil, fmt.Errorf("png: the root element is <%s>, not <svg>", e.name)
				}
				root = e
			case depth > 2:
				return nil, nil, fmt.Errorf("png: <%s> inside <%s> is not supported", e.name, cur.name)
			case e.name == "title" || e.name == "desc":
				cur = e
			case e.name == "style":
				cur = root
			case e.name == "rect" || e.name == "circle" || e.name == "path" || e.name == "text":
				cur = e
				elems = append(elems, e)
			default:
				return nil, nil, fmt.Errorf("png: <%s> is not supported", e.name)
			}
		case xml.EndElement:
			depth--
			if depth == 1 {
				cur = nil
			}
		case xml.CharData:
			if cur != nil {
				cur.content += string(t)
			}
		}
	}
	if root == nil {
		return nil, nil, errors.New("png: no <svg> element")
	}
	return root, elems, nil
}

// viewBox returns min-x, min-y, width and height of the chart's user space.
func viewBox(attr map[string]string) ([4]float64, error) {
	var vb [4]float64
	if v, ok := attr["viewBox"]; ok {
		f := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' })
		if len(f) != 4 {
			return vb, fmt.Errorf("png: viewBox %q", v)
		}
		for i := range f {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return vb, fmt.Errorf("png: viewBox %q", v)
			}
			vb[i] = x
		}
	} else {
		var err1, err2 error
		vb[2], err1 = strconv.ParseFloat(attr["width"], 64)
		vb[3], err2 = strconv.ParseFloat(attr["height"], 64)
		if err1 != nil || err2 != nil {
			return vb, errors.New("png: the chart has neither a viewBox nor a width and height")
		}
	}
	if !(vb[2] > 0 && vb[3] > 0) {
		return vb, fmt.Errorf("png: the chart is %g×%g", vb[2], vb[3])
	}
	return vb, nil
}

// A renderer draws elements on img, user space scaled by s and moved by ox, oy.
type renderer struct {
	img    *image.RGBA
	s      float64
	ox, oy float64
	vb     [4]float64
	sheet  sheet
	root   *style
	z      *vector.Rasterizer
	faces  faces
}

// px maps a point of user space to the image.
func (r *renderer) px(x, y float64) pt { return pt{x*r.s + r.ox, y*r.s + r.oy} }

func (r *renderer) element(e *element) error {
	st := r.sheet.style(e, r.root)
	if e.name == "text" {
		return r.text(e, st)
	}
	var subs []subpath
	switch e.name {
	case "rect":
		x, y, w, h, err := floats(e.attr, "x", "y", "width", "height")
		if err != nil {
			return err
		}
		if w <= 0 || h <= 0 {
			return nil
		}
		subs = []subpath{{pts: []pt{r.px(x, y), r.px(x+w, y), r.px(x+w, y+h), r.px(x, y+h)}, closed: true}}
		if x <= r.vb[0] && y <= r.vb[1] && x+w >= r.vb[0]+r.vb[2] && y+h >= r.vb[1]+r.vb[3] {
			// The chart's background reaches into the margin.
			b := r.img.Bounds()
			subs[0].pts = []pt{{0, 0}, {float64(b.Dx()), 0}, {float64(b.Dx()), float64(b.Dy())}, {0, float64(b.Dy())}}
		}
	case "circle":
		cx, cy, rad, err := floats3(e.attr, "cx", "cy", "r")
		if err != nil {
			return err
		}
		if rad <= 0 {
			return nil
		}
		subs = []subpath{{pts: circle(r.px(cx, cy), rad*r.s), closed: true}}
	case "path":
		var err error
		subs, err = parsePath(e.attr["d"])
		if err != nil {
			return err
		}
		for _, sp := range subs {
			for i, p := range sp.pts {
				sp.pts[i] = r.px(p.x, p.y)
			}
		}
	}
	opacity, err := st.number("opacity", 1)
	if err != nil {
		return err
	}
	fill, err := st.paint("fill", "fill-opacity", "black", opacity)
	if err != nil {
		return err
	}
	if fill.A > 0 {
		var polys [][]pt
		for _, sp := range subs {
			if len(sp.pts) > 2 {
				polys = append(polys, sp.pts)
			}
		}
		r.fill(polys, fill)
	}
	stroke, err := st.paint("stroke", "stroke-opacity", "none", opacity)
	if err != nil {
		return err
	}
	if stroke.A == 0 {
		return nil
	}
	sw, err := st.number("stroke-width", 1)
	if err != nil {
		return err
	}
	dash, err := st.dashes()
	if err != nil {
		return err
	}
	for i := range dash {
		dash[i] *= r.s
	}
	var polys [][]pt
	for _, sp := range subs {
		polys = strokePolys(polys, sp, sw*r.s/2, dash)
	}
	r.fill(polys, stroke)
	return nil
}

// fill paints the union of polys, which must all wind the same way (or be
// one simple polygon), with c.
func (r *renderer) fill(polys [][]pt, c color.NRGBA) {
	if len(polys) == 0 {
		return
	}
	// A long line's stroke covers little of its bounding box, which is the
	// area drawn: opaque, it is drawn in runs of neighbouring pieces. (Drawn
	// over each other, translucent runs would show where they overlap.)
	const run = 32
	if c.A == 0xff && len(polys) > run {
		for i := 0; i < len(polys); i += run {
			r.fill(polys[i:min(i+run, len(polys))], c)
		}
		return
	}
	lo, hi := pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
	for _, p := range polys {
		for _, q := range p {
			lo.x, lo.y = min(lo.x, q.x), min(lo.y, q.y)
			hi.x, hi.y = max(hi.x, q.x), max(hi.y, q.y)
		}
	}
	box := image.Rect(int(math.Floor(lo.x)), int(math.Floor(lo.y)), int(math.Ceil(hi.x)), int(math.Ceil(hi.y))).Intersect(r.img.Bounds())
	if box.Empty() {
		return
	}
	if r.z == nil {
		r.z = vector.NewRasterizer(box.Dx(), box.Dy())
	} else {
		r.z.Reset(box.Dx(), box.Dy())
	}
	dx, dy := float64(box.Min.X), float64(box.Min.Y)
	for _, p := range polys {
		r.z.MoveTo(float32(p[0].x-dx), float32(p[0].y-dy))
		for _, q := range p[1:] {
			r.z.LineTo(float32(q.x-dx), float32(q.y-dy))
		}
		r.z.ClosePath()
	}
	r.z.Draw(r.img, box, image.NewUniform(c), image.Point{})
}

// floats reads four numeric attributes; a missing one is 0.
func floats(attr map[string]string, a, b, c, d string) (float64, float64, float64, float64, error) {
	var v [4]float64
	for i, k := range []string{a, b, c, d} {
		s, ok := attr[k]
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("%s=%q is not a number", k, s)
		}
		v[i] = x
	}
	return v[0], v[1], v[2], v[3], nil
}

func floats3(attr map[string]string, a, b, c string) (float64, float64, float64, error) {
	x, y, z, _, err := floats(attr, a, b, c, "")
	return x, y, z, err
}
