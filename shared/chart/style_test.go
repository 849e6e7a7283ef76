package chart

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// Look resolves the sheet as a browser resolves the CSS that style writes:
// the values below are those of the CSS in the goldens.
func TestLook(t *testing.T) {
	wide := &Drawing{Width: Wide, Theme: "auto"}
	dark := &Drawing{Width: Wide, Theme: "dark"}
	narrow := &Drawing{Width: Narrow, Theme: "light"}
	for _, tc := range []struct {
		d    *Drawing
		sh   Shape
		want Look
	}{
		{wide, Shape{Kind: ShapeRect, Class: "bg"}, Look{Fill: NRGBA{255, 255, 255, 255}, StrokeWidth: 1, FontSize: 16}},
		{dark, Shape{Kind: ShapeRect, Class: "bg"}, Look{Fill: NRGBA{0x0d, 0x11, 0x17, 255}, StrokeWidth: 1, FontSize: 16}},
		// The text rule, then the class's.
		{wide, Shape{Kind: ShapeText}, Look{Fill: NRGBA{0x1f, 0x23, 0x28, 255}, StrokeWidth: 1, FontSize: 12}},
		{wide, Shape{Kind: ShapeText, Class: "t"}, Look{Fill: NRGBA{0x1f, 0x23, 0x28, 255}, StrokeWidth: 1, FontSize: 15, Bold: true}},
		{narrow, Shape{Kind: ShapeText, Class: "s"}, Look{Fill: NRGBA{0x57, 0x60, 0x6a, 255}, StrokeWidth: 1, FontSize: 13}},
		// The text rule is for text only: a path's fill is SVG's black.
		{wide, Shape{Kind: ShapePath, Class: "pl"}, Look{Fill: NRGBA{A: 255}, Stroke: NRGBA{213, 94, 0, 41}, StrokeWidth: 1, FontSize: 16}},
		{wide, Shape{Kind: ShapePath, Class: "l c1 d1"}, Look{Stroke: NRGBA{0xD5, 0x5E, 0x00, 255}, StrokeWidth: 1.6, Dash: []float64{6, 3}, FontSize: 16}},
		{dark, Shape{Kind: ShapePath, Class: "l c9 c1 d4"}, Look{Stroke: NRGBA{0xF0, 0x8A, 0x5D, 255}, StrokeWidth: 1.6, Dash: []float64{1, 3}, FontSize: 16}},
		{wide, Shape{Kind: ShapeRect, Class: "kb c2"}, Look{Fill: NRGBA{0x00, 0x9E, 0x73, 217}, StrokeWidth: 1, FontSize: 16}},
		{wide, Shape{Kind: ShapeRect, Class: "ph ph2"}, Look{Fill: NRGBA{213, 94, 0, 41}, StrokeWidth: 1, FontSize: 16}},
		{wide, Shape{Kind: ShapeCircle, Class: "o c7"}, Look{Fill: NRGBA{255, 255, 255, 255}, Stroke: NRGBA{A: 255}, StrokeWidth: 1.6, FontSize: 16}},
	} {
		got, err := tc.d.Look(&tc.sh)
		if err != nil {
			t.Errorf("%q in %s: %v", tc.sh.Class, tc.d.Theme, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q in %s:\n got %+v\nwant %+v", tc.sh.Class, tc.d.Theme, got, tc.want)
		}
	}
	_, err := wide.Look(&Shape{Kind: ShapePath, Class: "l d1"})
	if err == nil || !strings.Contains(err.Error(), "no class c0..c7") {
		t.Errorf("a series line without its colour: error %v, want one naming c0..c7", err)
	}
}

// Every shape of E03-B's pictures has a look, and its numbers rounded to
// the tenth the SVG writes.
func TestEveryShapeHasALook(t *testing.T) {
	res := result(t, "e03b-synchronized-recovery")
	drawn := 0
	for _, pic := range Pictures {
		d, err := Draw(res, Options{Picture: pic})
		if err != nil {
			continue // a picture that does not apply to this scenario
		}
		drawn++
		for i := range d.Shapes {
			sh := &d.Shapes[i]
			if _, err := d.Look(sh); err != nil {
				t.Errorf("%s: shape %d of class %q: %v", pic, i, sh.Class, err)
			}
			nums := []float64{sh.X, sh.Y, sh.W, sh.H, sh.R}
			for _, sg := range sh.Segs {
				nums = append(nums, sg.X, sg.Y)
			}
			for _, v := range nums {
				if math.Abs(v*10-math.Round(v*10)) > 1e-9 {
					t.Errorf("%s: shape %d of class %q has %v, not a tenth", pic, i, sh.Class, v)
					break
				}
			}
		}
	}
	if drawn < 5 {
		t.Errorf("%d pictures of E03-B drawn, want 5 at least", drawn)
	}
}
