package png

import (
	"bytes"
	"image"
	"reflect"
	"testing"

	"github.com/retrylab/retrylab/shared/chart"
)

// TestEveryLookFieldPaints walks every field of chart.Look: changing that
// field alone, on a shape it applies to, changes the pixels this package
// paints. A field Look gains (shared/chart/style.go) fails here until the
// test knows how to vary it, and then unless the renderer paints it.
func TestEveryLookFieldPaints(t *testing.T) {
	box := chart.Shape{Kind: chart.ShapePath, Segs: []chart.Seg{{Op: 'M', X: 10, Y: 10}, {Op: 'L', X: 90, Y: 10}, {Op: 'L', X: 90, Y: 50}, {Op: 'Z'}}}
	word := chart.Shape{Kind: chart.ShapeText, X: 10, Y: 40, Text: "Retry 429"}
	base := chart.Look{Fill: chart.NRGBA{R: 200, A: 255}, Stroke: chart.NRGBA{B: 200, A: 255}, StrokeWidth: 2, FontSize: 14}
	// Each field: the shape it applies to and the look with only it changed.
	varied := map[string]struct {
		shape chart.Shape
		look  func(l *chart.Look)
	}{
		"Fill":        {box, func(l *chart.Look) { l.Fill = chart.NRGBA{G: 200, A: 255} }},
		"Stroke":      {box, func(l *chart.Look) { l.Stroke = chart.NRGBA{G: 200, A: 255} }},
		"StrokeWidth": {box, func(l *chart.Look) { l.StrokeWidth = 6 }},
		"Dash":        {box, func(l *chart.Look) { l.Dash = []float64{4, 4} }},
		"FontSize":    {word, func(l *chart.Look) { l.FontSize = 20 }},
		"Bold":        {word, func(l *chart.Look) { l.Bold = true }},
	}
	paint := func(sh chart.Shape, look chart.Look) []byte {
		t.Helper()
		d := &chart.Drawing{Width: 100, Height: 60}
		r := &renderer{img: image.NewRGBA(image.Rect(0, 0, 100, 60)), d: d, s: 1}
		if err := r.shape(&sh, look); err != nil {
			t.Fatal(err)
		}
		return r.img.Pix
	}
	lt := reflect.TypeFor[chart.Look]()
	for i := range lt.NumField() {
		name := lt.Field(i).Name
		v, ok := varied[name]
		if !ok {
			t.Errorf("chart.Look.%s: this test does not know how to vary it (add it to varied)", name)
			continue
		}
		look := base
		v.look(&look)
		if reflect.DeepEqual(look, base) {
			t.Errorf("chart.Look.%s: the variation leaves the look as it was", name)
			continue
		}
		if bytes.Equal(paint(v.shape, base), paint(v.shape, look)) {
			t.Errorf("chart.Look.%s: changing it alone paints the same pixels; server/png does not paint it", name)
		}
		delete(varied, name)
	}
	for name := range varied {
		t.Errorf("varied names %s, not a field of chart.Look", name)
	}
}
