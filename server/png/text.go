package png

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"

	"github.com/retrylab/retrylab/shared/chart"
)

// The Go fonts, parsed once; an sfnt.Font is safe for concurrent use, a face
// is not, so each drawing makes its own faces.
var fonts = sync.OnceValues(func() ([2]*sfnt.Font, error) {
	regular, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return [2]*sfnt.Font{}, err
	}
	bold, err := opentype.Parse(gobold.TTF)
	return [2]*sfnt.Font{regular, bold}, err
})

type faceKey struct {
	bold bool
	size float64
}

// faces are the faces of one drawing, by weight and size in pixels.
type faces map[faceKey]font.Face

func (fs *faces) face(bold bool, size float64) (font.Face, error) {
	k := faceKey{bold, size}
	if f, ok := (*fs)[k]; ok {
		return f, nil
	}
	ff, err := fonts()
	if err != nil {
		return nil, err
	}
	i := 0
	if bold {
		i = 1
	}
	f, err := opentype.NewFace(ff[i], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	if *fs == nil {
		*fs = faces{}
	}
	(*fs)[k] = f
	return f, nil
}

// text draws a text shape: its content on one line, from X, Y (the
// baseline) as its anchor says, turned a quarter to read upwards when Up.
func (r *renderer) text(sh *chart.Shape, look chart.Look) error {
	content := strings.Join(strings.Fields(sh.Text), " ")
	fill, size := color.NRGBA(look.Fill), look.FontSize
	if content == "" || fill.A == 0 || size <= 0 {
		return nil
	}
	face, err := r.faces.face(look.Bold, size*r.s)
	if err != nil {
		return err
	}
	adv := float64(font.MeasureString(face, content)) / 64
	shift := 0.0
	switch sh.Anchor {
	case "":
	case "middle":
		shift = adv / 2
	case "end":
		shift = adv
	default:
		return fmt.Errorf("anchor %q is not supported", sh.Anchor)
	}
	angle := 0.0
	if sh.Up {
		angle = -90
	}
	sin, cos := math.Sincos(angle * math.Pi / 180)
	at := r.px(sh.X, sh.Y)
	src := image.NewUniform(fill)
	if angle == 0 {
		d := font.Drawer{Dst: r.img, Src: src, Face: face, Dot: fixed.Point26_6{X: fix(at.x - shift), Y: fix(at.y)}}
		d.DrawString(content)
		return nil
	}
	// Turned text is drawn level on its own image, then turned onto the chart.
	m := face.Metrics()
	asc, desc := m.Ascent.Ceil()+1, m.Descent.Ceil()+1
	tmp := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(adv))+2, asc+desc))
	d := font.Drawer{Dst: tmp, Src: src, Face: face, Dot: fixed.Point26_6{X: fix(1), Y: fixed.I(asc)}}
	d.DrawString(content)
	ax, ay := 1+shift, float64(asc) // the anchor on tmp
	aff := f64.Aff3{cos, -sin, at.x - cos*ax + sin*ay, sin, cos, at.y - sin*ax - cos*ay}
	draw.BiLinear.Transform(r.img, aff, tmp, tmp.Bounds(), draw.Over, nil)
	return nil
}

func fix(x float64) fixed.Int26_6 { return fixed.Int26_6(math.Round(x * 64)) }
