package png

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	stdpng "image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

var e03b *engine.Result

// chartSVG draws a picture of the E03-B built-in with shared/chart; the run is
// made once per test binary.
func chartSVG(tb testing.TB, opt chart.Options) []byte {
	tb.Helper()
	if e03b == nil {
		b, ok := scenarios.Get("e03b-synchronized-recovery")
		if !ok {
			tb.Fatal("no built-in e03b-synchronized-recovery")
		}
		sc, err := b.Parse()
		if err != nil {
			tb.Fatal(err)
		}
		if e03b, err = engine.Run(context.Background(), sc, engine.Options{}); err != nil {
			tb.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := chart.Render(&b, e03b, opt); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// rasterise runs Chart and decodes what it wrote.
func rasterise(tb testing.TB, svg []byte, width, height int) image.Image {
	tb.Helper()
	var b bytes.Buffer
	if err := Chart(&b, svg, width, height); err != nil {
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

// attr reads the numeric attributes of the first element of svg that the
// regular expression finds.
func attrs(tb testing.TB, svg []byte, element string, names ...string) []float64 {
	tb.Helper()
	m := regexp.MustCompile(element).Find(svg)
	if m == nil {
		tb.Fatalf("no %s in the chart", element)
	}
	var v []float64
	for _, name := range names {
		a := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindSubmatch(m)
		if a == nil {
			tb.Fatalf("%s has no %s", m, name)
		}
		x, err := strconv.ParseFloat(string(a[1]), 64)
		if err != nil {
			tb.Fatal(err)
		}
		v = append(v, x)
	}
	return v
}

// The og:image case: a chart of 1200:630 proportions drawn at 1200×630.
func TestLinkPreviewOfTheAttemptsChart(t *testing.T) {
	svg := chartSVG(t, chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399})
	img := rasterise(t, svg, 1200, 630)
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
		xy := attrs(t, svg, `<text [^>]*class="t"[^>]*>`, "x", "y")
		// The first 200 units of the title's line, from the top of its capitals
		// to the baseline.
		box := image.Rect(int(xy[0]*s), int((xy[1]-11)*s), int((xy[0]+200)*s), int(xy[1]*s))
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
	svg := chartSVG(t, chart.Options{Picture: chart.Compare, Metric: "peak_per_100ms", Theme: "light"})
	img := rasterise(t, svg, 1200, 630)
	vb := attrs(t, svg, `<svg [^>]*>`, "width", "height")
	s := 1200 / vb[0]
	top := int((630 - vb[1]*s) / 2)
	if top < 50 {
		t.Fatalf("the compare chart is %v; this test wants a low one", vb)
	}
	band := image.Rect(0, 0, 1200, top)
	if n := count(img, band, func(c color.Color) bool { return nrgba(c) != color.NRGBA{255, 255, 255, 255} }); n > 0 {
		t.Errorf("%d pixels of the top margin are not the background", n)
	}
	// The middle of strategy A's bar is its colour at 85% over white.
	r := attrs(t, svg, `<rect class="kb c0"[^>]*>`, "x", "y", "width", "height")
	at := image.Pt(int((r[0]+r[2]/2)*s), top+int((r[1]+r[3]/2)*s))
	over := func(c float64) uint8 { return uint8(math.Round(0.85*c + 0.15*255)) }
	want := color.NRGBA{over(0x00), over(0x72), over(0xB2), 255}
	if got := nrgba(img.At(at.X, at.Y)); !near(got, want, 2) {
		t.Errorf("bar A at %v is %v, want %v", at, got, want)
	}
}

func TestDarkTheme(t *testing.T) {
	svg := chartSVG(t, chart.Options{Picture: chart.Latency, Theme: "dark"})
	img := rasterise(t, svg, 1200, 0)
	if c := nrgba(img.At(2, 2)); c != (color.NRGBA{0x0d, 0x11, 0x17, 0xff}) {
		t.Errorf("corner %v, want the dark background", c)
	}
	xy := attrs(t, svg, `<text [^>]*class="t"[^>]*>`, "x", "y")
	s := float64(img.Bounds().Dx()) / 760
	box := image.Rect(int(xy[0]*s), int((xy[1]-11)*s), int((xy[0]+200)*s), int(xy[1]*s))
	if n := count(img, box, func(c color.Color) bool { return luma(c) > 180 }); n < box.Dx()*box.Dy()/10 {
		t.Errorf("%d light pixels where the title is", n)
	}
}

// Every chart that shared/chart pins in its golden files is drawn, at the
// chart's own proportions when no height is asked.
func TestEveryPinnedChart(t *testing.T) {
	files, err := filepath.Glob("../../shared/chart/testdata/*.svg")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden charts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".svg"), func(t *testing.T) {
			svg, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			vb := attrs(t, svg, `<svg [^>]*>`, "width", "height")
			img := rasterise(t, svg, 600, 0)
			want := image.Rect(0, 0, 600, int(math.Round(vb[1]*600/vb[0])))
			if img.Bounds() != want {
				t.Errorf("bounds %v, want %v", img.Bounds(), want)
			}
		})
	}
}

func TestSameBytesEachTime(t *testing.T) {
	svg := chartSVG(t, chart.Options{Picture: chart.Outcomes, Theme: "light"})
	var a, b bytes.Buffer
	if err := Chart(&a, svg, 800, 0); err != nil {
		t.Fatal(err)
	}
	if err := Chart(&b, svg, 800, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two drawings of one chart differ")
	}
}

func TestRefusals(t *testing.T) {
	const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><style>.a{fill:#123456}</style>`
	for _, tc := range []struct {
		desc          string
		svg           string
		width, height int
		want          string
	}{
		{"no width", head + `</svg>`, 0, 0, "size"},
		{"too large", head + `</svg>`, MaxSize + 1, 0, "size"},
		{"too high", head + `</svg>`, 100, MaxSize + 1, "size"},
		{"not svg", `<html></html>`, 100, 0, "not <svg>"},
		{"not xml", `<svg`, 100, 0, "png:"},
		{"no viewBox", `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, 100, 0, "viewBox"},
		{"a group", head + `<g><rect/></g></svg>`, 100, 0, "<g> is not supported"},
		{"an image", head + `<image href="x.png"/></svg>`, 100, 0, "<image> is not supported"},
		{"a curve", head + `<path d="M0 0C1 1 2 2 3 3"/></svg>`, 100, 0, "command C"},
		{"a colour", head + `<rect class="a" style="fill:hsl(0,0%,0%)" width="9" height="9"/></svg>`, 100, 0, "hsl"},
		{"an undefined variable", head + `<rect style="fill:var(--nope)" width="9" height="9"/></svg>`, 100, 0, "--nope"},
		{"a selector", `<svg viewBox="0 0 9 9"><style>svg text{fill:red}</style></svg>`, 100, 0, "selector"},
		{"a skew", head + `<text transform="skewX(9)">x</text></svg>`, 100, 0, "skewX"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := Chart(&bytes.Buffer{}, []byte(tc.svg), tc.width, tc.height)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	got, err := parsePath("M1 2L3 4h2v-1H0V9Zm1 1l1,1 2 2zl1 0")
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
	svg := chartSVG(b, chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399})
	b.ReportAllocs()
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if err := Chart(&out, svg, 1200, 630); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.Len()), "bytes/png")
}

// Chart may be called from several handlers at once: the fonts are shared,
// the faces are not.
func TestConcurrentCalls(t *testing.T) {
	svg := chartSVG(t, chart.Options{Picture: chart.Latency, Theme: "light"})
	var want bytes.Buffer
	if err := Chart(&want, svg, 300, 0); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			var b bytes.Buffer
			err := Chart(&b, svg, 300, 0)
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
