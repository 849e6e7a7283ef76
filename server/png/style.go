package png

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
)

// A rule is one selector of the style sheet, an element name ("text") or a
// class (".m"), with its declarations.
type rule struct {
	class bool
	name  string
	decls [][2]string
}

// A sheet holds the rules of a chart's <style> in their order.
type sheet []rule

// parseSheet reads the rules of css. Blocks of at-rules (@media) are skipped.
func parseSheet(css string) (sheet, error) {
	var sh sheet
	for {
		css = strings.TrimSpace(css)
		if css == "" {
			return sh, nil
		}
		open := strings.IndexByte(css, '{')
		if open < 0 {
			return nil, fmt.Errorf("png: style: %q has no block", css)
		}
		sel := strings.TrimSpace(css[:open])
		if strings.HasPrefix(sel, "@") {
			depth, i := 0, open
			for ; i < len(css); i++ {
				if css[i] == '{' {
					depth++
				} else if css[i] == '}' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if i == len(css) {
				return nil, fmt.Errorf("png: style: %s is not closed", sel)
			}
			css = css[i+1:]
			continue
		}
		end := strings.IndexByte(css, '}')
		if end < open {
			return nil, fmt.Errorf("png: style: the block of %s is not closed", sel)
		}
		var decls [][2]string
		for d := range strings.SplitSeq(css[open+1:end], ";") {
			k, v, ok := strings.Cut(d, ":")
			if !ok {
				if strings.TrimSpace(d) != "" {
					return nil, fmt.Errorf("png: style: %q is not a declaration", d)
				}
				continue
			}
			decls = append(decls, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
		for s := range strings.SplitSeq(sel, ",") {
			s = strings.TrimSpace(s)
			r := rule{name: s, decls: decls}
			if strings.HasPrefix(s, ".") {
				r.class, r.name = true, s[1:]
			}
			if !isIdent(r.name) {
				return nil, fmt.Errorf("png: style: selector %q is not supported", s)
			}
			sh = append(sh, r)
		}
		css = css[end+1:]
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// A style answers for one element: the declarations of the rules that match
// it, then its presentation attributes, then what it inherits.
type style struct {
	own    map[string]string
	attr   map[string]string
	parent *style
}

// style computes the style of e, a child of parent (nil for the root).
// Element rules apply before class rules, each in the sheet's order, and the
// style attribute last, as CSS specificity has it.
func (sh sheet) style(e *element, parent *style) *style {
	st := &style{own: map[string]string{}, attr: e.attr, parent: parent}
	classes := strings.Fields(e.attr["class"])
	for _, class := range []bool{false, true} {
		for _, r := range sh {
			if r.class != class {
				continue
			}
			if class && !contains(classes, r.name) || !class && r.name != e.name {
				continue
			}
			for _, d := range r.decls {
				st.own[d[0]] = d[1]
			}
		}
	}
	for d := range strings.SplitSeq(e.attr["style"], ";") {
		if k, v, ok := strings.Cut(d, ":"); ok {
			st.own[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return st
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
		if v, ok := s.attr[prop]; ok {
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
