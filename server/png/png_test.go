package png

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	stdpng "image/png"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/hashes.txt instead of comparing with it")

var results = map[string]*engine.Result{}

// result runs a built-in once per test binary.
func result(tb testing.TB, slug string) *engine.Result {
	tb.Helper()
	if r, ok := results[slug]; ok {
		return r
	}
	b, ok := scenarios.Get(slug)
	if !ok {
		tb.Fatalf("no built-in %q", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	results[slug] = r
	return r
}

// drawing lays out a picture of the E03-B built-in with shared/chart.
func drawing(tb testing.TB, opt chart.Options) *chart.Drawing {
	tb.Helper()
	d, err := chart.Draw(result(tb, "e03b-synchronized-recovery"), opt)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// rasterise runs Chart and decodes what it wrote.
func rasterise(tb testing.TB, d *chart.Drawing, width, height int) image.Image {
	tb.Helper()
	var b bytes.Buffer
	if err := Chart(&b, d, width, height); err != nil {
		tb.Fatal(err)
	}
	img, err := stdpng.Decode(&b)
	if err != nil {
		tb.Fatal(err)
	}
	return img
}

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

func luma(c color.Color) float64 {
	n := nrgba(c)
	return 0.299*float64(n.R) + 0.587*float64(n.G) + 0.114*float64(n.B)
}

// near reports whether a and b differ by at most d in every channel.
func near(a, b color.NRGBA, d int) bool {
	diff := func(x, y uint8) bool { return int(x)-int(y) <= d && int(y)-int(x) <= d }
	return diff(a.R, b.R) && diff(a.G, b.G) && diff(a.B, b.B) && diff(a.A, b.A)
}

// count counts the pixels of r in img for which ok holds.
func count(img image.Image, r image.Rectangle, ok func(color.Color) bool) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if ok(img.At(x, y)) {
				n++
			}
		}
	}
	return n
}

// first returns the first shape of d of a kind and class.
func first(tb testing.TB, d *chart.Drawing, kind chart.Kind, class string) *chart.Shape {
	tb.Helper()
	for i := range d.Shapes {
		if sh := &d.Shapes[i]; sh.Kind == kind && sh.Class == class {
			return sh
		}
	}
	tb.Fatalf("no %s of class %q in the chart", kindName(kind), class)
	return nil
}

// The og:image case: a chart of 1200:630 proportions drawn at 1200×630.
func TestLinkPreviewOfTheAttemptsChart(t *testing.T) {
	d := drawing(t, chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399})
	img := rasterise(t, d, 1200, 630)
	if got := img.Bounds(); got != image.Rect(0, 0, 1200, 630) {
		t.Fatalf("bounds %v, want 1200×630", got)
	}
	s := 1200.0 / 760

	t.Run("not blank", func(t *testing.T) {
		colours := map[color.NRGBA]bool{}
		count(img, img.Bounds(), func(c color.Color) bool { colours[nrgba(c)] = true; return false })
		if len(colours) < 100 {
			t.Errorf("%d distinct colours", len(colours))
		}
		if c := nrgba(img.At(2, 2)); c != (color.NRGBA{255, 255, 255, 255}) {
			t.Errorf("corner %v, want the light background", c)
		}
	})

	t.Run("title is drawn", func(t *testing.T) {
		title := first(t, d, chart.ShapeText, "t")
		// The first 200 units of the title's line, from the top of its capitals
		// to the baseline.
		box := image.Rect(int(title.X*s), int((title.Y-11)*s), int((title.X+200)*s), int(title.Y*s))
		dark := count(img, box, func(c color.Color) bool { return luma(c) < 80 })
		if dark < box.Dx()*box.Dy()/10 {
			t.Errorf("%d dark pixels of %d where the title is", dark, box.Dx()*box.Dy())
		}
		above := box.Sub(image.Pt(0, box.Dy()+4)).Intersect(img.Bounds())
		if n := count(img, above, func(c color.Color) bool { return luma(c) < 200 }); n > 0 {
			t.Errorf("%d dark pixels above the title", n)
		}
	})

	t.Run("lines are drawn", func(t *testing.T) {
		// Strategy A's line is #0072B2, 1.6 units wide: whole pixels of it.
		blue := color.NRGBA{0x00, 0x72, 0xB2, 0xff}
		if n := count(img, img.Bounds(), func(c color.Color) bool { return near(nrgba(c), blue, 24) }); n < 300 {
			t.Errorf("%d pixels of strategy A's colour", n)
		}
	})

	t.Run("axis label is turned", func(t *testing.T) {
		// The y axis label stands left of the plot: its ink is taller than wide.
		left := image.Rect(0, int(80*s), int(40*s), img.Bounds().Max.Y-int(50*s))
		ink := image.Rectangle{}
		for y := left.Min.Y; y < left.Max.Y; y++ {
			for x := left.Min.X; x < left.Max.X; x++ {
				if luma(img.At(x, y)) < 180 {
					ink = ink.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		if ink.Dy() < 4*ink.Dx() || ink.Dy() < 100 {
			t.Errorf("ink of the y axis label: %v", ink)
		}
	})
}

func TestBarsAndTheMargin(t *testing.T) {
	// The compare chart is wide and low: drawn 1200×630 it is centred between
	// two bands of its background.
	// E03-B's 100 ms peaks differ enough to be drawn as bars from zero.
	d := drawing(t, chart.Options{Picture: chart.Compare, Metric: "peak_per_100ms", Theme: "light"})
	img := rasterise(t, d, 1200, 630)
	s := 1200 / d.Width
	top := int((630 - d.Height*s) / 2)
	if top < 50 {
		t.Fatalf("the compare chart is %g×%g; this test wants a low one", d.Width, d.Height)
	}
	band := image.Rect(0, 0, 1200, top)
	if n := count(img, band, func(c color.Color) bool { return nrgba(c) != color.NRGBA{255, 255, 255, 255} }); n > 0 {
		t.Errorf("%d pixels of the top margin are not the background", n)
	}
	// The middle of strategy A's bar is its colour at 85% over white.
	r := first(t, d, chart.ShapeRect, "kb c0")
	at := image.Pt(int((r.X+r.W/2)*s), top+int((r.Y+r.H/2)*s))
	over := func(c float64) uint8 { return uint8(math.Round(0.85*c + 0.15*255)) }
	want := color.NRGBA{over(0x00), over(0x72), over(0xB2), 255}
	if got := nrgba(img.At(at.X, at.Y)); !near(got, want, 2) {
		t.Errorf("bar A at %v is %v, want %v", at, got, want)
	}
}

func TestDarkTheme(t *testing.T) {
	d := drawing(t, chart.Options{Picture: chart.Latency, Theme: "dark"})
	img := rasterise(t, d, 1200, 0)
	if c := nrgba(img.At(2, 2)); c != (color.NRGBA{0x0d, 0x11, 0x17, 0xff}) {
		t.Errorf("corner %v, want the dark background", c)
	}
	title := first(t, d, chart.ShapeText, "t")
	s := float64(img.Bounds().Dx()) / d.Width
	box := image.Rect(int(title.X*s), int((title.Y-11)*s), int((title.X+200)*s), int(title.Y*s))
	if n := count(img, box, func(c color.Color) bool { return luma(c) > 180 }); n < box.Dx()*box.Dy()/10 {
		t.Errorf("%d light pixels where the title is", n)
	}
}

// Every picture of every built-in that shared/chart draws is drawn as a PNG
// of the chart's proportions, and not blank: ink of the foreground's colour
// beyond the title's line.
func TestEveryPictureOfEveryBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every built-in")
	}
	drawn := 0
	for _, b := range scenarios.All() {
		res := result(t, b.Slug)
		for _, p := range chart.Pictures {
			d, err := chart.Draw(res, chart.Options{Picture: p, Theme: "light"})
			var oe *chart.OptionError
			if errors.As(err, &oe) {
				continue // the picture does not apply to this built-in
			}
			if err != nil {
				t.Fatalf("%s %s: %v", b.Slug, p, err)
			}
			t.Run(b.Slug+"/"+p, func(t *testing.T) {
				img := rasterise(t, d, 600, 0)
				want := image.Rect(0, 0, 600, int(math.Round(d.Height*600/d.Width)))
				if img.Bounds() != want {
					t.Errorf("bounds %v, want %v", img.Bounds(), want)
				}
				below := image.Rect(0, int(40*600/d.Width), want.Dx(), want.Dy())
				if n := count(img, below, func(c color.Color) bool { return luma(c) < 128 }); n < 200 {
					t.Errorf("%d dark pixels below the title", n)
				}
			})
			drawn++
		}
	}
	t.Logf("%d pictures of %d built-ins", drawn, len(scenarios.All()))
	if drawn < 2*len(scenarios.All()) {
		t.Errorf("%d pictures of %d built-ins drawn", drawn, len(scenarios.All()))
	}
}

// svgElement is one element of a chart's SVG, as an XML decoder reads it.
type svgElement struct {
	name  string
	attr  map[string]string
	text  string
	depth int
}

// svgElements reads the elements after the background rect of the SVG that
// Render writes for d.
func svgElements(tb testing.TB, d *chart.Drawing) []svgElement {
	tb.Helper()
	var b bytes.Buffer
	if err := d.WriteSVG(&b); err != nil {
		tb.Fatal(err)
	}
	dec := xml.NewDecoder(&b)
	var out []svgElement
	depth, open := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			e := svgElement{name: tok.Name.Local, attr: map[string]string{}, depth: depth}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			out = append(out, e)
			open = true
		case xml.EndElement:
			depth--
			open = false
		case xml.CharData:
			if open {
				out[len(out)-1].text += string(tok)
			}
		}
	}
	// svg, title, desc, style and the background rect come first.
	if len(out) < 5 || out[4].name != "rect" || out[4].attr["class"] != "bg" {
		tb.Fatalf("the SVG does not start with its background: %v", out[:min(5, len(out))])
	}
	return out[5:]
}

// inkBox is the box of the pixels of img that are not its corner's colour.
func inkBox(img *image.RGBA) image.Rectangle {
	bg := img.At(0, 0)
	var box image.Rectangle
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			if img.At(x, y) != bg {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// Each shape of a drawing is one element of its SVG, in order, at the
// shape's place, and what the PNG draws of it lies where the shape is: the
// two backends draw one layout, so a change to a shape shows in both.
func TestEveryShapeInBoth(t *testing.T) {
	for _, tc := range []struct {
		slug string
		opt  chart.Options
	}{
		{"e03b-synchronized-recovery", chart.Options{Picture: chart.Attempts}},
		{"e03b-synchronized-recovery", chart.Options{Picture: chart.Outcomes}},
		{"e03b-synchronized-recovery", chart.Options{Picture: chart.Compare}},
		{"bulkheads", chart.Options{Picture: chart.Calls, Width: 400}},
	} {
		t.Run(tc.slug+"/"+tc.opt.Picture, func(t *testing.T) {
			d, err := chart.Draw(result(t, tc.slug), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			els := svgElements(t, d)
			if len(els) != len(d.Shapes) {
				t.Fatalf("%d SVG elements for %d shapes", len(els), len(d.Shapes))
			}
			kinds := map[chart.Kind]int{}
			for i := range d.Shapes {
				sh, el := &d.Shapes[i], els[i]
				kinds[sh.Kind]++
				if el.name != kindName(sh.Kind) || el.attr["class"] != sh.Class || el.depth != 2 {
					t.Fatalf("shape %d (%s %q) is <%s class=%q> at depth %d", i, kindName(sh.Kind), sh.Class, el.name, el.attr["class"], el.depth)
				}
				checkPlace(t, i, sh, el)
				checkInk(t, i, d, sh)
			}
			if len(kinds) < 3 {
				t.Errorf("only %d kinds of shape: %v", len(kinds), kinds)
			}
		})
	}
}

// checkPlace compares the SVG element's coordinates with the shape's.
func checkPlace(t *testing.T, i int, sh *chart.Shape, el svgElement) {
	t.Helper()
	f := func(k string) float64 {
		v, err := strconv.ParseFloat(el.attr[k], 64)
		if err != nil {
			t.Fatalf("shape %d: %s=%q: %v", i, k, el.attr[k], err)
		}
		return v
	}
	var got, want []float64
	switch sh.Kind {
	case chart.ShapeRect:
		got, want = []float64{f("x"), f("y"), f("width"), f("height")}, []float64{sh.X, sh.Y, sh.W, sh.H}
	case chart.ShapeCircle:
		got, want = []float64{f("cx"), f("cy"), f("r")}, []float64{sh.X, sh.Y, sh.R}
	case chart.ShapeText:
		if sh.Up {
			want := fmt.Sprintf("translate(%g %g) rotate(-90)", math.Round(sh.X*10)/10, math.Round(sh.Y*10)/10)
			if el.attr["transform"] != want {
				t.Errorf("shape %d: transform %q, want %q", i, el.attr["transform"], want)
			}
		} else {
			got, want = []float64{f("x"), f("y")}, []float64{sh.X, sh.Y}
		}
		if el.attr["text-anchor"] != sh.Anchor {
			t.Errorf("shape %d: text-anchor %q, want %q", i, el.attr["text-anchor"], sh.Anchor)
		}
		if el.text != sh.Text {
			t.Errorf("shape %d: text %q, want %q", i, el.text, sh.Text)
		}
	case chart.ShapePath:
		if n := strings.Count(el.attr["d"], string(sh.Segs[0].Op)); sh.Segs[0].Op != 'M' || n < 1 || !strings.HasPrefix(el.attr["d"], "M") {
			t.Errorf("shape %d: d %q for %v", i, el.attr["d"], sh.Segs)
		}
		ops := 0
		for _, c := range el.attr["d"] {
			if strings.ContainsRune("MLHVhZ", c) {
				ops++
			}
		}
		if ops != len(sh.Segs) {
			t.Errorf("shape %d: d %q has %d segments, want %d", i, el.attr["d"], ops, len(sh.Segs))
		}
	}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 0.051 {
			t.Errorf("shape %d: SVG %v, shape %v", i, got, want)
			break
		}
	}
}

// checkInk draws the shape alone and checks that its ink lies in the
// shape's box: a path's or a rect's, a circle's, or the line of a text from
// its anchor, with room for the stroke and anti-aliasing.
func checkInk(t *testing.T, i int, d *chart.Drawing, sh *chart.Shape) {
	t.Helper()
	one := *d
	one.Shapes = []chart.Shape{*sh}
	img, err := draw1(&one, int(d.Width), 0) // a scale of 1
	if err != nil {
		t.Fatalf("shape %d: %v", i, err)
	}
	ink := inkBox(img)
	var lo, hi pt
	switch sh.Kind {
	case chart.ShapeRect:
		lo, hi = pt{sh.X, sh.Y}, pt{sh.X + sh.W, sh.Y + sh.H}
	case chart.ShapeCircle:
		lo, hi = pt{sh.X - sh.R, sh.Y - sh.R}, pt{sh.X + sh.R, sh.Y + sh.R}
	case chart.ShapePath:
		subs, err := subpaths(sh.Segs)
		if err != nil {
			t.Fatalf("shape %d: %v", i, err)
		}
		lo, hi = pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
		for _, sp := range subs {
			for _, p := range sp.pts {
				lo, hi = pt{min(lo.x, p.x), min(lo.y, p.y)}, pt{max(hi.x, p.x), max(hi.y, p.y)}
			}
		}
	case chart.ShapeText:
		// A line of text at most as wide as the picture from its anchor,
		// from a cap height above the baseline to a descender below.
		w, h, x := d.Width, 20.0, sh.X
		switch sh.Anchor {
		case "middle":
			x -= w / 2
		case "end":
			x -= w
		}
		lo, hi = pt{x, sh.Y - h}, pt{x + w, sh.Y + 6}
		if sh.Up {
			lo, hi = pt{sh.X - h, sh.Y - w/2}, pt{sh.X + 6, sh.Y + w/2}
		}
		if ink.Empty() && strings.TrimSpace(sh.Text) != "" {
			t.Errorf("shape %d: the text %q draws nothing", i, sh.Text)
		}
		if sh.Anchor == "" && !sh.Up && !ink.Empty() && math.Abs(float64(ink.Min.X)-sh.X) > 3 {
			t.Errorf("shape %d: the text %q starts at %d, not at its anchor %g", i, sh.Text, ink.Min.X, sh.X)
		}
		if sh.Anchor == "end" && !ink.Empty() && math.Abs(float64(ink.Max.X)-sh.X) > 3 {
			t.Errorf("shape %d: the text %q ends at %d, not at its anchor %g", i, sh.Text, ink.Max.X, sh.X)
		}
	}
	room := image.Rect(int(math.Floor(lo.x))-3, int(math.Floor(lo.y))-3, int(math.Ceil(hi.x))+3, int(math.Ceil(hi.y))+3)
	if !ink.In(room) {
		t.Errorf("shape %d (%s %q): ink %v outside %v", i, kindName(sh.Kind), sh.Class, ink, room)
	}
	if sh.Kind == chart.ShapeRect && sh.W >= 2 && sh.H >= 2 && ink.Empty() {
		t.Errorf("shape %d: the rect %v draws nothing", i, sh)
	}
}

// The PNGs of a few charts are pinned by their hashes in testdata/hashes.txt
// (go test -run TestHashes -update rewrites it; a mismatch writes the PNG
// to testdata/NAME.png.actual). Go does not fuse multiply-adds on amd64,
// where the hashes are made; elsewhere the anti-aliasing may differ.
func TestHashes(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the hashes are of amd64's floating point")
	}
	cases := []struct {
		name string
		opt  chart.Options
		w, h int
	}{
		{"e03b-attempts-preview", chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399}, 1200, 630},
		{"e03b-outcomes", chart.Options{Picture: chart.Outcomes, Theme: "dark"}, 800, 0},
		{"e03b-latency-narrow", chart.Options{Picture: chart.Latency, Width: 400}, 400, 0},
	}
	var lines []string
	for _, tc := range cases {
		var b bytes.Buffer
		if err := Chart(&b, drawing(t, tc.opt), tc.w, tc.h); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s %x", tc.name, sha256.Sum256(b.Bytes()))
		lines = append(lines, line)
		if !*update && !slices.Contains(pinned(t), line) {
			_ = os.WriteFile("testdata/"+tc.name+".png.actual", b.Bytes(), 0o644)
			t.Errorf("%s: the PNG differs from the pinned one (testdata/%s.png.actual)", tc.name, tc.name)
		}
	}
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/hashes.txt", []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func pinned(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/hashes.txt")
	if err != nil {
		t.Fatalf("%v (go test -run TestHashes -update creates it)", err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestSameBytesEachTime(t *testing.T) {
	d := drawing(t, chart.Options{Picture: chart.Outcomes, Theme: "light"})
	var a, b bytes.Buffer
	if err := Chart(&a, d, 800, 0); err != nil {
		t.Fatal(err)
	}
	if err := Chart(&b, d, 800, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two drawings of one chart differ")
	}
}

func TestRefusals(t *testing.T) {
	ok := &chart.Drawing{Width: 100, Height: 50, Theme: "light"}
	with := func(sh chart.Shape) *chart.Drawing {
		d := *ok
		d.Shapes = []chart.Shape{sh}
		return &d
	}
	for _, tc := range []struct {
		desc          string
		d             *chart.Drawing
		width, height int
		want          string
	}{
		{"no width", ok, 0, 0, "size"},
		{"too large", ok, MaxSize + 1, 0, "size"},
		{"too high", ok, 100, MaxSize + 1, "size"},
		{"too high for its width", &chart.Drawing{Width: 10, Height: 1000}, 100, 0, "over"},
		{"an empty chart", &chart.Drawing{}, 100, 0, "0×0"},
		{"a kind", with(chart.Shape{Kind: 9}), 100, 0, "not a kind"},
		{"a segment", with(chart.Shape{Kind: chart.ShapePath, Segs: []chart.Seg{{Op: 'M'}, {Op: 'C'}}}), 100, 0, "segment 'C'"},
		{"no move", with(chart.Shape{Kind: chart.ShapePath, Segs: []chart.Seg{{Op: 'L'}}}), 100, 0, "not M"},
		{"an anchor", with(chart.Shape{Kind: chart.ShapeText, Text: "x", Anchor: "left"}), 100, 0, `"left"`},
		{"a series without its colour", with(chart.Shape{Kind: chart.ShapePath, Class: "l d1", Segs: []chart.Seg{{Op: 'M'}, {Op: 'h', X: 9}}}), 100, 0, "no class c0..c7"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := Chart(&bytes.Buffer{}, tc.d, tc.width, tc.height)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestSubpaths(t *testing.T) {
	got, err := subpaths([]chart.Seg{
		{Op: 'M', X: 1, Y: 2}, {Op: 'L', X: 3, Y: 4}, {Op: 'h', X: 2}, {Op: 'V', Y: 3}, {Op: 'H', X: 0}, {Op: 'V', Y: 9}, {Op: 'Z'},
		{Op: 'M', X: 2, Y: 3}, {Op: 'L', X: 3, Y: 4}, {Op: 'L', X: 5, Y: 6}, {Op: 'Z'},
		{Op: 'h', X: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []subpath{
		{pts: []pt{{1, 2}, {3, 4}, {5, 4}, {5, 3}, {0, 3}, {0, 9}}, closed: true},
		{pts: []pt{{2, 3}, {3, 4}, {5, 6}}, closed: true},
		{pts: []pt{{2, 3}, {3, 3}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func BenchmarkChart(b *testing.B) {
	d := drawing(b, chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399})
	b.ReportAllocs()
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if err := Chart(&out, d, 1200, 630); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.Len()), "bytes/png")
}

// Chart may be called from several handlers at once: the fonts are shared,
// the faces are not.
func TestConcurrentCalls(t *testing.T) {
	d := drawing(t, chart.Options{Picture: chart.Latency, Theme: "light"})
	var want bytes.Buffer
	if err := Chart(&want, d, 300, 0); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			var b bytes.Buffer
			err := Chart(&b, d, 300, 0)
			if err == nil && !bytes.Equal(b.Bytes(), want.Bytes()) {
				err = errors.New("a drawing made alongside others differs")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
