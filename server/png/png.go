// Package png draws the charts of shared/chart as PNG images, for link
// previews: Slack, X, LinkedIn and most other unfurlers show an og:image only
// when it is a bitmap, never SVG.
//
// It draws a chart.Drawing, the shapes that chart.Render writes as SVG, so
// that a preview and the chart it previews have the same layout, each shape
// in its chart.Look: the colours, stroke width, dashes and font that
// shared/chart resolves from the style sheet it writes into the SVG, so
// nothing here reads CSS. A shape it cannot draw is an error, so that a
// change to the charts which this package would draw wrongly fails its
// tests instead of a preview. A chart of theme "auto" is drawn light: an
// image cannot follow the reader's colour scheme.
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
	"errors"
	"fmt"
	"image"
	"image/color"
	stdpng "image/png"
	"io"
	"math"

	"golang.org/x/image/vector"

	"github.com/retrylab/retrylab/shared/chart"
)

// MaxSize bounds the width and height that Chart draws, in pixels.
const MaxSize = 4000

// Chart draws d and writes it to w as a PNG width pixels wide. With height
// 0 the image has the chart's own proportions; otherwise it is exactly
// width × height, the chart scaled to fit and centred, and the margin
// painted with the chart's background. For an og:image, ask shared/chart
// for a chart of the image's proportions (1200 × 630 is 760 × 399) and pass
// 1200, 630.
func Chart(w io.Writer, d *chart.Drawing, width, height int) error {
	if width < 1 || width > MaxSize || height < 0 || height > MaxSize {
		return fmt.Errorf("png: size %d×%d is not within 1..%d", width, height, MaxSize)
	}
	img, err := draw1(d, width, height)
	if err != nil {
		return err
	}
	enc := stdpng.Encoder{CompressionLevel: stdpng.BestSpeed}
	return enc.Encode(w, img)
}

// draw1 draws d on a new image.
func draw1(d *chart.Drawing, width, height int) (*image.RGBA, error) {
	if !(d.Width > 0 && d.Height > 0) {
		return nil, fmt.Errorf("png: the chart is %g×%g", d.Width, d.Height)
	}
	s := float64(width) / d.Width
	if height > 0 {
		s = min(s, float64(height)/d.Height)
	} else {
		height = max(1, int(math.Round(d.Height*s)))
		if height > MaxSize {
			return nil, fmt.Errorf("png: a chart %d wide would be %d high, over %d", width, height, MaxSize)
		}
	}
	r := &renderer{
		img: image.NewRGBA(image.Rect(0, 0, width, height)),
		d:   d,
		s:   s,
		ox:  (float64(width) - d.Width*s) / 2,
		oy:  (float64(height) - d.Height*s) / 2,
	}
	if err := r.background(); err != nil {
		return nil, fmt.Errorf("png: the background: %w", err)
	}
	for i := range d.Shapes {
		sh := &d.Shapes[i]
		look, err := d.Look(sh)
		if err == nil {
			err = r.shape(sh, look)
		}
		if err != nil {
			return nil, fmt.Errorf("png: shape %d (%s of class %q): %w", i, kindName(sh.Kind), sh.Class, err)
		}
	}
	return r.img, nil
}

// A renderer draws the shapes of d on img, user space scaled by s and moved
// by ox, oy.
type renderer struct {
	img    *image.RGBA
	d      *chart.Drawing
	s      float64
	ox, oy float64
	z      *vector.Rasterizer
	faces  faces
}

// px maps a point of user space to the image.
func (r *renderer) px(x, y float64) pt { return pt{x*r.s + r.ox, y*r.s + r.oy} }

// kindName is the SVG element of a kind of shape, for errors.
func kindName(k chart.Kind) string {
	switch k {
	case chart.ShapePath:
		return "path"
	case chart.ShapeRect:
		return "rect"
	case chart.ShapeCircle:
		return "circle"
	case chart.ShapeText:
		return "text"
	}
	return fmt.Sprintf("kind %d", k)
}

// background paints the whole image, margin included, as the chart's
// background (class bg).
func (r *renderer) background() error {
	look, err := r.d.Look(&chart.Shape{Kind: chart.ShapeRect, Class: "bg"})
	if err != nil {
		return err
	}
	b := r.img.Bounds()
	r.fill([][]pt{{{0, 0}, {float64(b.Dx()), 0}, {float64(b.Dx()), float64(b.Dy())}, {0, float64(b.Dy())}}}, color.NRGBA(look.Fill))
	return nil
}

// shape draws sh as look says.
func (r *renderer) shape(sh *chart.Shape, look chart.Look) error {
	var subs []subpath
	switch sh.Kind {
	case chart.ShapeText:
		return r.text(sh, look)
	case chart.ShapeRect:
		if sh.W <= 0 || sh.H <= 0 {
			return nil
		}
		x, y, w, h := sh.X, sh.Y, sh.W, sh.H
		subs = []subpath{{pts: []pt{r.px(x, y), r.px(x+w, y), r.px(x+w, y+h), r.px(x, y+h)}, closed: true}}
	case chart.ShapeCircle:
		if sh.R <= 0 {
			return nil
		}
		subs = []subpath{{pts: circle(r.px(sh.X, sh.Y), sh.R*r.s), closed: true}}
	case chart.ShapePath:
		var err error
		subs, err = subpaths(sh.Segs)
		if err != nil {
			return err
		}
		for _, sp := range subs {
			for i, p := range sp.pts {
				sp.pts[i] = r.px(p.x, p.y)
			}
		}
	default:
		return errors.New("not a kind of shape")
	}
	if fill := look.Fill; fill.A > 0 {
		var polys [][]pt
		for _, sp := range subs {
			if len(sp.pts) > 2 {
				polys = append(polys, sp.pts)
			}
		}
		r.fill(polys, color.NRGBA(fill))
	}
	if look.Stroke.A == 0 || look.StrokeWidth <= 0 {
		return nil
	}
	var dash []float64
	for _, x := range look.Dash {
		dash = append(dash, x*r.s)
	}
	var polys [][]pt
	for _, sp := range subs {
		polys = strokePolys(polys, sp, look.StrokeWidth*r.s/2, dash)
	}
	r.fill(polys, color.NRGBA(look.Stroke))
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
