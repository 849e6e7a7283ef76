package png

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
)

// A style answers for one shape: the declarations of the rules that match
// it, then what it inherits.
type style struct {
	own    map[string]string
	parent *style
}

// style computes the style of an element, by its name and its classes, a
// child of parent (nil for the root). Element rules apply before class
// rules, each in the sheet's order, as CSS specificity has it.
func (r *renderer) style(name, class string, parent *style) *style {
	st := &style{own: map[string]string{}, parent: parent}
	classes := strings.Fields(class)
	for _, byClass := range []bool{false, true} {
		for _, rule := range r.sheet {
			sel, isClass := strings.CutPrefix(rule.Selector, ".")
			if isClass != byClass || isClass && !slices.Contains(classes, sel) || !isClass && sel != name {
				continue
			}
			for _, d := range rule.Decls {
				st.own[d[0]] = d[1]
			}
		}
	}
	return st
}

// notInherited lists the properties read here that an element does not take
// from its parent.
var notInherited = map[string]bool{"opacity": true}

// get returns the value of prop with var() resolved, or "" when it is not set.
func (st *style) get(prop string) (string, error) {
	v := st.lookup(prop)
	for range 8 {
		i := strings.Index(v, "var(")
		if i < 0 {
			return v, nil
		}
		j := strings.IndexByte(v[i:], ')')
		if j < 0 {
			return "", fmt.Errorf("%s: %q", prop, v)
		}
		name, fallback, _ := strings.Cut(v[i+4:i+j], ",")
		sub := st.lookup(strings.TrimSpace(name))
		if sub == "" {
			sub = strings.TrimSpace(fallback)
		}
		if sub == "" {
			return "", fmt.Errorf("%s: %s is not defined", prop, strings.TrimSpace(name))
		}
		v = v[:i] + sub + v[i+j+1:]
	}
	return "", fmt.Errorf("%s: var() nested too deep", prop)
}

func (st *style) lookup(prop string) string {
	for s := st; s != nil; s = s.parent {
		if v, ok := s.own[prop]; ok {
			return v
		}
		if notInherited[prop] {
			break
		}
	}
	return ""
}

// number returns a numeric property such as stroke-width or opacity, in
// user units; a "px" suffix is allowed.
func (st *style) number(prop string, initial float64) (float64, error) {
	v, err := st.get(prop)
	if err != nil || v == "" {
		return initial, err
	}
	x, err := strconv.ParseFloat(strings.TrimSuffix(v, "px"), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", prop, v)
	}
	return x, nil
}

// paint returns the colour of prop (fill or stroke), its alpha multiplied by
// the opacity property op and by the element's opacity.
func (st *style) paint(prop, op, initial string, opacity float64) (color.NRGBA, error) {
	v, err := st.get(prop)
	if err != nil {
		return color.NRGBA{}, err
	}
	if v == "" {
		v = initial
	}
	c, err := parseColor(v)
	if err != nil {
		return c, fmt.Errorf("%s: %w", prop, err)
	}
	o, err := st.number(op, 1)
	if err != nil {
		return c, err
	}
	c.A = uint8(float64(c.A)*clamp01(o)*clamp01(opacity) + 0.5)
	return c, nil
}

// dashes returns the stroke-dasharray, nil for a solid line.
func (st *style) dashes() ([]float64, error) {
	v, err := st.get("stroke-dasharray")
	if err != nil || v == "" || v == "none" {
		return nil, err
	}
	var d []float64
	sum := 0.0
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
		x, err := strconv.ParseFloat(strings.TrimSuffix(f, "px"), 64)
		if err != nil || x < 0 {
			return nil, fmt.Errorf("stroke-dasharray: %q", v)
		}
		d = append(d, x)
		sum += x
	}
	if sum == 0 {
		return nil, nil
	}
	if len(d)%2 == 1 {
		d = append(d, d...)
	}
	return d, nil
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

var named = map[string]color.NRGBA{
	"none":        {},
	"transparent": {},
	"black":       {0, 0, 0, 255},
	"white":       {255, 255, 255, 255},
}

// parseColor reads #rgb, #rrggbb, rgb(), rgba() and a few names.
func parseColor(s string) (color.NRGBA, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if c, ok := named[s]; ok {
		return c, nil
	}
	bad := fmt.Errorf("colour %q is not supported", s)
	if hex, ok := strings.CutPrefix(s, "#"); ok {
		if len(hex) == 3 {
			hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
		}
		if len(hex) != 6 {
			return color.NRGBA{}, bad
		}
		n, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return color.NRGBA{}, bad
		}
		return color.NRGBA{uint8(n >> 16), uint8(n >> 8), uint8(n), 255}, nil
	}
	args, ok := strings.CutPrefix(s, "rgba(")
	if !ok {
		args, ok = strings.CutPrefix(s, "rgb(")
	}
	args, ok2 := strings.CutSuffix(args, ")")
	if !ok || !ok2 {
		return color.NRGBA{}, bad
	}
	f := strings.Split(args, ",")
	if len(f) != 3 && len(f) != 4 {
		return color.NRGBA{}, bad
	}
	var v [4]float64
	v[3] = 1
	for i, x := range f {
		n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return color.NRGBA{}, bad
		}
		v[i] = n
	}
	b := func(x float64) uint8 { return uint8(min(max(x, 0), 255) + 0.5) }
	return color.NRGBA{b(v[0]), b(v[1]), b(v[2]), b(clamp01(v[3]) * 255)}, nil
}
