package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A FieldError is one problem with one field of a scenario: the JSON path of
// the field, the offending value as written, and what is allowed.
type FieldError struct {
	Path    string `json:"path"`
	Value   string `json:"value,omitempty"`
	Message string `json:"message"`
}

// Error formats the problem as "path: value message".
func (e FieldError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	if e.Value != "" {
		b.WriteString(e.Value)
		b.WriteString(" ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors lists every problem found in a scenario, in document order.
type Errors []FieldError

// Error joins the problems, one per line.
func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// AsErrors returns the field errors in err, or nil when err is not a
// validation error.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var fe FieldError
	if errors.As(err, &fe) {
		return Errors{fe}
	}
	return nil
}

// Decode reads a scenario from JSON strictly: a missing version, unknown
// fields, keys written twice, values of the wrong type, numbers that overflow,
// underflow or are not exact integers where one is needed, and trailing data
// are errors, each naming its JSON path; malformed JSON is one error giving the
// line, column and byte offset of the problem. Decode does not check ranges;
// Validate does. The returned error is an Errors.
func Decode(data []byte) (*Scenario, error) {
	return DecodeWith(data, nil)
}

// DecodeWith decodes like Decode and expands policy presets: a policy with
// "preset": name starts from presets[name] (a JSON object of policy fields),
// and its own fields override the preset's. The expanded policy keeps the
// name in based_on, so its canonical form no longer depends on the preset.
func DecodeWith(data []byte, presets map[string]json.RawMessage) (*Scenario, error) {
	var sc Scenario
	if err := decodeStrict(data, &sc, presets); err != nil {
		return nil, err
	}
	return &sc, nil
}

// Parse decodes and validates a scenario.
func Parse(data []byte) (*Scenario, error) {
	return ParseWith(data, nil)
}

// ParseWith decodes with presets and validates a scenario.
func ParseWith(data []byte, presets map[string]json.RawMessage) (*Scenario, error) {
	sc, err := DecodeWith(data, presets)
	if err != nil {
		return nil, err
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// Canonical returns the scenario's canonical JSON: fields in a fixed order,
// unset fields omitted, no insignificant space. Two scenarios that mean the same
// thing as written have the same canonical form.
func (sc *Scenario) Canonical() []byte {
	b, err := json.Marshal(sc)
	if err != nil {
		// Every field of a Scenario marshals; a failure is a bug here.
		panic("engine: marshal scenario: " + err.Error())
	}
	return b
}

func decodeStrict(data []byte, dst any, presets map[string]json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return Errors{{Message: syntaxMessage(data, err)}}
	}
	if _, err := dec.Token(); err != io.EOF {
		at := int(dec.InputOffset())
		for at < len(data) && isSpace(data[at]) {
			at++
		}
		return Errors{{Message: fmt.Sprintf("trailing data after the scenario at %s; a scenario is one JSON object", position(data, at))}}
	}
	d := decoder{presets: presets}
	tree := d.tree(raw)
	obj, ok := tree.(map[string]any)
	if !ok {
		return Errors{{Value: describe(tree), Message: "is not a JSON object; a scenario is one JSON object"}}
	}
	if obj["version"] == nil {
		// Without a version the rest cannot be read with confidence; this is
		// said first, and the other problems with it.
		d.errs = append(Errors{{Path: "version", Message: fmt.Sprintf("is missing; a scenario must say \"version\": %d (the only version this engine reads)", Version)}}, d.errs...)
	}
	d.value("", tree, reflect.ValueOf(dst).Elem())
	if len(d.errs) > 0 {
		return d.errs
	}
	return nil
}

// tree reads syntactically valid JSON into a generic tree (objects as maps,
// numbers as json.Number), reporting every key that appears twice in one
// object.
func (d *decoder) tree(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var walk func(path string) any
	walk = func(path string) any {
		tok, _ := dec.Token() // raw is valid JSON: no error
		switch tok {
		case json.Delim('{'):
			obj := map[string]any{}
			var dups map[string]bool
			for dec.More() {
				key, _ := dec.Token()
				k := key.(string)
				p := join(path, k)
				v := walk(p)
				if _, dup := obj[k]; dup {
					if !dups[k] {
						d.errs = append(d.errs, FieldError{Path: p, Message: "duplicate key: a key may appear only once in an object"})
					}
					if dups == nil {
						dups = map[string]bool{}
					}
					dups[k] = true
					continue // the first one stays
				}
				obj[k] = v
			}
			dec.Token() // '}'
			return obj
		case json.Delim('['):
			arr := []any{}
			for i := 0; dec.More(); i++ {
				arr = append(arr, walk(fmt.Sprintf("%s[%d]", path, i)))
			}
			dec.Token() // ']'
			return arr
		}
		return tok
	}
	return walk("")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// position describes byte offset off of data as "line L, column C (byte
// offset off)": lines and columns count from 1, columns in characters, the
// byte offset from 0.
func position(data []byte, off int) string {
	off = max(0, min(off, len(data)))
	line, col := 1, 1
	for _, c := range string(data[:off]) {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d (byte offset %d)", line, col, off)
}

func syntaxMessage(data []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return fmt.Sprintf("invalid JSON at %s: %s", position(data, int(se.Offset)-1), strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF):
		return "invalid JSON: the document is empty; a scenario is one JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("invalid JSON at %s: the document ends too early%s", position(data, len(data)), unclosed(data))
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

// unclosed says what a truncated document leaves open: the innermost string,
// object or list, and where it starts.
func unclosed(data []byte) string {
	type open struct {
		what string
		at   int
	}
	var stack []open
	inString, escaped, strAt := false, false, 0
	for i, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString, strAt = true, i
		case c == '{':
			stack = append(stack, open{"object", i})
		case c == '[':
			stack = append(stack, open{"list", i})
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	switch {
	case inString:
		return ", inside the string that starts at " + position(data, strAt)
	case len(stack) > 0:
		o := stack[len(stack)-1]
		return fmt.Sprintf(", inside the %s that starts at %s", o.what, position(data, o.at))
	}
	return ""
}

// decoder walks a generic JSON tree alongside a Go type, filling the value and
// collecting every error with its path.
type decoder struct {
	errs    Errors
	presets map[string]json.RawMessage
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func (d *decoder) fail(path string, node any, msg string) {
	d.errs = append(d.errs, FieldError{Path: path, Value: describe(node), Message: msg})
}

func (d *decoder) value(path string, node any, v reflect.Value) {
	if node == nil {
		return // null leaves the zero value: the field is unset.
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		raw, _ := json.Marshal(node)
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			d.errs = append(d.errs, FieldError{Path: path, Message: strings.TrimPrefix(err.Error(), "json: ")})
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(path, node, v.Elem()) // over a preset's value: merged
	case reflect.Struct:
		obj, ok := node.(map[string]any)
		if !ok {
			d.fail(path, node, "is not an object")
			return
		}
		fields := structFields(v.Type())
		if _, ok := fields["deadline"]; ok {
			d.zeroDurations(path, obj) // a policy's
		}
		if _, ok := fields["preset"]; ok {
			d.preset(path, obj, v)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			idx, ok := fields[k]
			if !ok {
				names := fieldNames(v.Type())
				hint := "; allowed: "
				if near := didYouMean(k, names); near != "" {
					hint = near + " allowed: "
				}
				d.errs = append(d.errs, FieldError{
					Path:    join(path, k),
					Message: "is not a known field" + hint + strings.Join(names, ", "),
				})
				continue
			}
			d.value(join(path, k), obj[k], v.FieldByIndex(idx))
		}
	case reflect.Slice:
		arr, ok := node.([]any)
		if !ok {
			d.fail(path, node, "is not a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
		for i, e := range arr {
			d.value(fmt.Sprintf("%s[%d]", path, i), e, s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		// An object keyed by strings (a kind, such as a class); a map
		// filled by a preset is merged key by key.
		obj, ok := node.(map[string]any)
		if !ok {
			d.fail(path, node, "is not an object")
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(obj)))
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if obj[k] == nil {
				continue // null leaves the key unset, as it does a field
			}
			key := reflect.ValueOf(k).Convert(v.Type().Key())
			e := reflect.New(v.Type().Elem()).Elem()
			if old := v.MapIndex(key); old.IsValid() {
				e.Set(old)
			}
			d.value(join(path, k), obj[k], e)
			v.SetMapIndex(key, e)
		}
	case reflect.String:
		s, ok := node.(string)
		if !ok {
			d.fail(path, node, "is not a string")
			return
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := node.(bool)
		if !ok {
			d.fail(path, node, "is not true or false")
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, ok := node.(json.Number)
		if !ok {
			d.fail(path, node, "is not a number")
			return
		}
		i, msg := wholeNumber(string(n))
		if msg == "" && v.OverflowInt(i) {
			msg = "is out of range"
		}
		if msg != "" {
			d.fail(path, node, msg)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		n, ok := node.(json.Number)
		if !ok {
			d.fail(path, node, "is not a number")
			return
		}
		f, err := n.Float64()
		switch {
		case err != nil || math.IsInf(f, 0):
			d.fail(path, node, "is too large: it overflows a 64-bit float")
			return
		case math.Abs(f) < 0x1p-1022 && hasNonzeroDigit(string(n)):
			d.fail(path, node, "is too small: it underflows a 64-bit float (write 0 for zero)")
			return
		}
		v.SetFloat(f)
	default:
		panic("engine: decoder has no case for " + v.Type().String())
	}
}

// wholeNumber reads a JSON number that must be an exact integer: 10, 1e3 and
// 10.0 are, 1.5 and 1e-400 are not. It works on the digits, so a huge
// exponent costs nothing, and it returns what is wrong, or "".
func wholeNumber(s string) (int64, string) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) // the decimal point falls after this many digits
	if hasExp {
		e, err := strconv.Atoi(exp)
		switch {
		case err != nil && strings.HasPrefix(exp, "-"):
			e = math.MinInt32
		case err != nil:
			e = math.MaxInt32
		}
		point += max(math.MinInt32, min(e, math.MaxInt32))
	}
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	switch {
	case digits == "":
		return 0, ""
	case point < len(digits):
		return 0, "is not a whole number"
	case point > 19:
		return 0, "is out of range"
	}
	digits += strings.Repeat("0", point-len(digits))
	if neg {
		digits = "-" + digits
	}
	i, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, "is out of range"
	}
	return i, ""
}

// hasNonzeroDigit reports whether a JSON number's digits (before any
// exponent) are not all zero.
func hasNonzeroDigit(s string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	return strings.ContainsAny(mant, "123456789")
}

// preset fills a policy (or a strategy's level 0, the policy it embeds)
// from the preset its object names, before the object's own fields are
// decoded over it. A preset holds policy fields only.
func (d *decoder) preset(path string, obj map[string]any, v reflect.Value) {
	node, ok := obj["preset"]
	if !ok || node == nil {
		return
	}
	name, ok := node.(string)
	p := join(path, "preset")
	if !ok {
		d.fail(p, node, "is not a string")
		return
	}
	raw, ok := d.presets[name]
	if !ok {
		known := slices.Sorted(maps.Keys(d.presets))
		if len(known) == 0 {
			d.fail(p, node, "cannot be resolved: no presets are loaded here")
		} else {
			d.fail(p, node, "is not a known preset; known: "+strings.Join(known, ", "))
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		d.fail(p, node, "names a preset that is not a JSON object: "+err.Error())
		return
	}
	if st, ok := v.Addr().Interface().(*Strategy); ok {
		// A preset is a policy: it fills the strategy's level 0, not
		// what only a strategy has (its name, layers, pool, bulkheads).
		v = reflect.ValueOf(&st.Policy).Elem()
	}
	inner := decoder{}
	inner.value(p, tree, v)
	d.errs = append(d.errs, inner.errs...)
	delete(obj, "preset")
	v.FieldByIndex(structFields(v.Type())["based_on"]).SetString(name)
}

// zeroMeansNone lists a policy's durations that are unset at 0, and what
// that means.
var zeroMeansNone = []struct{ field, what, none string }{
	{"attempt_timeout", "an attempt time-out", "none"},
	{"deadline", "a deadline", "none"},
	{"max_elapsed", "a limit on the time spent retrying", "no limit"},
}

// zeroDurations refuses a policy's attempt_timeout, deadline or max_elapsed
// written as 0 ("0s"), which would silently mean none: unless it drops
// what the policy's preset sets (a policy's fields override its preset's).
// The other durations that are 0 when unset (a backoff's max, a budget's
// window, min_attempt_time) say what 0 means where they are documented,
// and a value of 0 reads as what it does.
func (d *decoder) zeroDurations(path string, obj map[string]any) {
	var preset map[string]any
	if name, ok := obj["preset"].(string); ok {
		_ = json.Unmarshal(d.presets[name], &preset) // a bad preset is reported by d.preset
	}
	for _, z := range zeroMeansNone {
		s, ok := obj[z.field].(string)
		if !ok {
			continue
		}
		if dur, err := time.ParseDuration(s); err != nil || dur != 0 {
			continue
		}
		if _, set := preset[z.field]; set {
			continue
		}
		d.errs = append(d.errs, FieldError{Path: join(path, z.field), Value: strconv.Quote(s),
			Message: fmt.Sprintf("is not %s: leave %s out for %s, or give it more than 0s", z.what, z.field, z.none)})
	}
}

// structFields maps the JSON names of t's fields, including those of embedded
// structs, to their index paths.
func structFields(t reflect.Type) map[string][]int {
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(slices.Clone(prefix), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, idx)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			m[name] = idx
		}
	}
	walk(t, nil)
	return m
}

func fieldNames(t reflect.Type) []string {
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names = append(names, name)
			}
		}
	}
	walk(t)
	return names
}

// join appends an object key to a path: a plain key after a dot, any other
// (empty, spaces, punctuation) quoted in brackets.
func join(path, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		if r := []rune(key); len(r) > 40 {
			key = string(r[:37]) + "..."
		}
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// describe renders a JSON value for an error message, shortened.
func describe(node any) string {
	var s string
	switch n := node.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case nil:
		return "null"
	case string:
		s = strconv.Quote(n)
	case json.Number:
		s = string(n)
	default:
		s = fmt.Sprint(n)
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return s
}
