package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// A FormEdit is one change the playground's form makes to a scenario: Action
// names one of EditActions; Index, Item and Step say which element of
// which list (a strategy, a phase or a load change, a fleet, a
// requirement; a layer, a bulkhead, a fallback or a call within it; a
// step of the plan), Dep the path of a dependency ("dependency",
// "dependencies[1]"). "set" writes Value (absent or null: removes it) at
// Path, a path as the engine's errors name them. Builtin, when the
// scenario is a built-in as published (its title), renames it: an edited
// built-in is the user's own ("… (edited)"). Window is the affected window
// the form shows while it follows the phases: typing one end of it pins
// it, the other end keeping the bound shown.
type FormEdit struct {
	Action  string          `json:"action"`
	Index   int             `json:"index,omitempty"`
	Item    int             `json:"item,omitempty"`
	Step    int             `json:"step,omitempty"`
	Dep     string          `json:"dep,omitempty"`
	Path    string          `json:"path,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Builtin string          `json:"builtin,omitempty"`
	Window  *WindowBounds   `json:"window,omitempty"`
}

// WindowBounds are the bounds of an affected window, as the engine writes
// durations.
type WindowBounds struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// EditActions are the form's edits, by name. Each works on the scenario
// as JSON (an object whose keys keep their order), so that what Edit does
// not change stays as written, and a scenario with errors can still be
// edited.
var EditActions = map[string]func(sc *object, e FormEdit) error{
	"set":                setField,
	"add":                addStrategy,
	"duplicate":          duplicateStrategy,
	"remove":             removeStrategy,
	"layer-add":          addLayer,
	"layer-remove":       removeLayer,
	"phase-add":          addPhase,
	"phase-remove":       removePhase,
	"load-add":           addLoad,
	"load-remove":        removeLoad,
	"fleet-add":          addFleet,
	"fleet-remove":       removeFleet,
	"dep-add":            addDependency,
	"dep-remove":         removeDependency,
	"step-add":           addStep,
	"call-add":           addCall,
	"call-remove":        removeCall,
	"bulkhead-add":       addBulkhead,
	"bulkhead-remove":    removeBulkhead,
	"fallback-add":       addFallback,
	"fallback-remove":    removeFallback,
	"requirement-add":    addRequirement,
	"requirement-remove": removeRequirement,
	"search-remove":      removeSearch,
	"window-follow":      followPhases,
	// own changes nothing itself: with Builtin, the scenario is renamed
	// as every edit renames it (the page's first edit of a built-in in
	// a way the form does not make, such as an imported strategy).
	"own": func(*object, FormEdit) error { return nil },
}

// Edit applies the form's edit (a FormEdit, as JSON) to the scenario and
// returns the scenario, as JSON: the keys in the order they had, new ones
// last. The playground calls it on a worker of its own, which never runs
// simulations, so that an edit never waits behind a run (the engine's
// workers are busy for seconds during one, and ended to cancel it); the
// page sends its edits one after the other, each on the scenario the
// previous one gave. The page could apply rules handed to it as data, but
// adding a dependency or a phase is more than data (names that must not
// collide, durations added with the engine's parser), and two copies of
// those rules would drift apart.
func Edit(scenarioJSON, editJSON []byte) ([]byte, error) {
	var e FormEdit
	if err := json.Unmarshal(editJSON, &e); err != nil {
		return nil, fmt.Errorf("the edit %s is not an edit: %v", editJSON, err)
	}
	f, ok := EditActions[e.Action]
	if !ok {
		names := make([]string, 0, len(EditActions))
		for n := range EditActions {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("edit: no action %q; the actions are %s", e.Action, strings.Join(names, ", "))
	}
	v, err := decodeOrdered(scenarioJSON)
	if err != nil {
		return nil, fmt.Errorf("edit %s: the scenario does not parse: %v", e.Action, err)
	}
	sc, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("edit %s: the scenario is not a JSON object", e.Action)
	}
	if err := f(sc, e); err != nil {
		return nil, fmt.Errorf("edit %s: %w", e.Action, err)
	}
	if e.Builtin != "" {
		name, _ := sc.get("name").(string)
		if name == "" {
			name = e.Builtin
		}
		sc.set("name", name+" (edited)")
	}
	return json.Marshal(sc)
}

// ---- the scenario as JSON, its keys in order --------------------------------

// object is a JSON object that keeps its keys' order. Its values are
// *object, []any, string, json.Number, bool or nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject(kv ...any) *object {
	o := &object{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) any { return o.vals[k] }

func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// set sets k, in its place if o has it, else last.
func (o *object) set(k string, v any) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if !o.has(k) {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
}

// list returns the list at k, or nil.
func (o *object) list(k string) []any {
	l, _ := o.get(k).([]any)
	return l
}

// obj returns the object at k, making it (in place of anything else) when
// make is true.
func (o *object) obj(k string, make bool) *object {
	c, ok := o.get(k).(*object)
	if !ok && make {
		c = newObject()
		o.set(k, c)
	}
	return c
}

// drop removes k when it holds an empty list or object.
func (o *object) drop(k string) {
	switch v := o.get(k).(type) {
	case []any:
		if len(v) == 0 {
			o.del(k)
		}
	case *object:
		if len(v.keys) == 0 {
			o.del(k)
		}
	}
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("trailing data after the scenario")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := newObject()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := dec.Token()
		return l, err
	}
	return t, nil
}

// clone copies a JSON value deeply.
func clone(v any) any {
	switch v := v.(type) {
	case *object:
		c := newObject()
		for _, k := range v.keys {
			c.set(k, clone(v.vals[k]))
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = clone(x)
		}
		return c
	}
	return v
}

// ---- paths --------------------------------------------------------------------

var pathKey = regexp.MustCompile(`[^.[\]]+`)

// keysOf splits a path as the engine's errors write them
// ("strategies[1].backoff.base") into keys (string) and indexes (int).
func keysOf(path string) []any {
	var out []any
	for _, k := range pathKey.FindAllString(path, -1) {
		if n, err := strconv.Atoi(k); err == nil {
			out = append(out, n)
		} else {
			out = append(out, k)
		}
	}
	return out
}

// at returns the value at path, or nil.
func at(v any, path string) any {
	for _, k := range keysOf(path) {
		switch k := k.(type) {
		case string:
			o, ok := v.(*object)
			if !ok {
				return nil
			}
			v = o.get(k)
		case int:
			l, ok := v.([]any)
			if !ok || k < 0 || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// objectAt returns the object at path, or an error naming the path.
func objectAt(sc *object, path string) (*object, error) {
	o, ok := at(sc, path).(*object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object of the scenario", path)
	}
	return o, nil
}

// element returns the i-th object of the list at key of o, or an error
// naming where and how many there are.
func element(o *object, where, key string, i int) (*object, error) {
	l := o.list(key)
	if i < 0 || i >= len(l) {
		return nil, fmt.Errorf("%s%s[%d] does not exist: there are %d", where, key, i, len(l))
	}
	e, ok := l[i].(*object)
	if !ok {
		return nil, fmt.Errorf("%s%s[%d] is not an object", where, key, i)
	}
	return e, nil
}

// removeAt removes the i-th element of the list at key of o, and the list
// once empty.
func removeAt(o *object, where, key string, i int) error {
	l := o.list(key)
	if i < 0 || i >= len(l) {
		return fmt.Errorf("%s%s[%d] does not exist: there are %d", where, key, i, len(l))
	}
	o.set(key, slices.Delete(slices.Clone(l), i, i+1))
	o.drop(key)
	return nil
}

// push appends v to the list at key of o, made when missing.
func push(o *object, key string, v any) {
	o.set(key, append(slices.Clone(o.list(key)), v))
}

// last returns the last element of the list at key of o as an object, or
// nil.
func last(o *object, key string) *object {
	l := o.list(key)
	if len(l) == 0 {
		return nil
	}
	e, _ := l[len(l)-1].(*object)
	return e
}

// ---- set --------------------------------------------------------------------

var (
	dependencyName = regexp.MustCompile(`^dependencies\[\d+\]\.name$`)
	strategyName   = regexp.MustCompile(`^strategies\[\d+\]\.name$`)
)

// setField writes e.Value at e.Path (making the objects on the way), or
// removes it when the value is absent or null, with the objects it leaves
// empty ("shedding": {} would be refused as incomplete). Then: a renamed
// dependency keeps its calls and bulkheads, a renamed or removed strategy
// its place in report.yours; an object with a kind (KindRules) keeps only
// the fields its new kind takes, and goes when its kind is cleared; typing
// one end of the affected window pins it (FormEdit.Window).
func setField(sc *object, e FormEdit) error {
	keys := keysOf(e.Path)
	if len(keys) == 0 {
		return fmt.Errorf("no path to set")
	}
	var value any
	if len(e.Value) > 0 {
		v, err := decodeOrdered(e.Value)
		if err != nil {
			return fmt.Errorf("%s: the value %s is not JSON: %v", e.Path, e.Value, err)
		}
		value = v
	}
	if text, ok := value.(string); ok && numbersAt(keys) {
		// A "numbers" field's text, read as its list when it is one.
		if ns, ok := NumbersOf(text); ok && len(ns) > 0 {
			l := make([]any, len(ns))
			for i, n := range ns {
				l[i] = json.Number(strconv.Itoa(n))
			}
			value = l
		} else if ok {
			value = nil
		}
	}
	before := at(sc, e.Path)
	// owners[n] is the value keys[:n] lead to.
	owners := []any{sc}
	cur := any(sc)
	for n, k := range keys[:len(keys)-1] {
		next, err := step(cur, k, keys[n+1], value != nil, e.Path)
		if err != nil {
			return err
		}
		if next == nil {
			return nil // nothing to remove
		}
		cur = next
		owners = append(owners, cur)
	}
	lastKey := keys[len(keys)-1]
	switch k := lastKey.(type) {
	case string:
		o, ok := cur.(*object)
		if !ok {
			return fmt.Errorf("%s: its owner is not an object", e.Path)
		}
		if value != nil {
			o.set(k, value)
		} else {
			o.del(k)
			// The objects left empty go too.
			for n := len(keys) - 1; n > 0; n-- {
				owner, ok := owners[n-1].(*object)
				key, isKey := keys[n-1].(string)
				child, isObj := owners[n].(*object)
				if !ok || !isKey || !isObj || len(child.keys) > 0 {
					break
				}
				owner.del(key)
			}
		}
	case int:
		l, ok := cur.([]any)
		if !ok || k < 0 || k >= len(l) {
			return fmt.Errorf("%s does not exist", e.Path)
		}
		l[k] = value
	}
	switch {
	case dependencyName.MatchString(e.Path):
		renameDependency(sc, before, value)
	case strategyName.MatchString(e.Path):
		followYours(sc, before, value)
	}
	pruneKind(sc, keys)
	pinWindow(sc, e.Path, value, e.Window)
	return nil
}

// step goes from cur down key k (the next key being next), making the
// object or failing on a missing list element when making is true;
// without making, a missing step is nil.
func step(cur, k, next any, making bool, path string) (any, error) {
	switch k := k.(type) {
	case string:
		o, ok := cur.(*object)
		if !ok {
			return nil, fmt.Errorf("%s: %v is not in an object", path, k)
		}
		if v := o.get(k); v != nil {
			return v, nil
		}
		if !making {
			return nil, nil
		}
		if _, isIndex := next.(int); isIndex {
			return nil, fmt.Errorf("%s: there is no list %s", path, k)
		}
		c := newObject()
		o.set(k, c)
		return c, nil
	case int:
		l, ok := cur.([]any)
		if !ok || k < 0 || k >= len(l) {
			return nil, fmt.Errorf("%s: element %d does not exist", path, k)
		}
		if l[k] == nil && making {
			l[k] = newObject()
		}
		return l[k], nil
	}
	return nil, nil
}

// renameDependency points the plan's calls and the bulkheads at a renamed
// dependency's new name.
func renameDependency(sc *object, from, to any) {
	if from == nil {
		return
	}
	for _, s := range objects(at(sc, "workload.plan")) {
		for _, c := range objects(s.get("calls")) {
			if c.get("dependency") == from {
				c.set("dependency", to)
			}
		}
	}
	for _, st := range objects(sc.get("strategies")) {
		for _, b := range objects(st.get("bulkheads")) {
			if b.get("dependency") == from {
				b.set("dependency", to)
			}
		}
	}
}

// followYours keeps report.yours naming the user's policies when one is
// renamed (to) or removed (to nil).
func followYours(sc *object, from, to any) {
	r := sc.obj("report", false)
	if r == nil || from == nil {
		return
	}
	yours, ok := r.get("yours").([]any)
	if !ok {
		return
	}
	var out []any
	for _, n := range yours {
		switch {
		case n != from:
			out = append(out, n)
		case to != nil:
			out = append(out, to)
		}
	}
	r.set("yours", out)
	if len(out) == 0 {
		r.del("yours")
	}
}

// pruneKind applies the kind rules after a set at keys: when they name
// the key of an object with a kind, the object keeps only what its kind
// takes, and goes without a kind.
func pruneKind(sc *object, keys []any) {
	if len(keys) < 2 {
		return
	}
	field, ok := keys[len(keys)-1].(string)
	if !ok {
		return
	}
	// The object's name is the key above it, or above its index.
	owner := keys[:len(keys)-1]
	name, _ := owner[len(owner)-1].(string)
	if _, isIndex := owner[len(owner)-1].(int); isIndex && len(owner) > 1 {
		name, _ = owner[len(owner)-2].(string)
	}
	for _, r := range KindRules() {
		// A rule above: the owner's kind changed, its object keeps only
		// what that kind takes, and goes when nothing is left.
		if o, ok := at(sc, pathOf(owner)).(*object); ok && r.Above && field == r.Key {
			if child, ok := o.get(r.Object).(*object); ok {
				kind, _ := o.get(r.Key).(string)
				for _, k := range slices.Clone(child.keys) {
					if !r.Takes(kind, k) {
						child.del(k)
					}
				}
				if len(child.keys) == 0 {
					o.del(r.Object)
				}
			}
		}
	}
	r, ok := kindRule(name)
	if !ok || field != r.Key || r.Above {
		return
	}
	o, ok := at(sc, pathOf(owner)).(*object)
	if !ok {
		return
	}
	kind, _ := o.get(r.Key).(string)
	if kind == "" {
		if _, isIndex := owner[len(owner)-1].(int); !isIndex {
			if parent, ok := at(sc, pathOf(owner[:len(owner)-1])).(*object); ok {
				parent.del(name)
			}
			return
		}
	}
	for _, k := range slices.Clone(o.keys) {
		if !r.Takes(kind, k) {
			o.del(k)
		}
	}
}

// pathOf writes keys as a path.
func pathOf(keys []any) string {
	var b strings.Builder
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

// pinWindow pins the affected window when one end of it is typed while
// it follows the phases (w): the other end keeps the bound shown, since
// the engine takes both or neither.
func pinWindow(sc *object, path string, value any, w *WindowBounds) {
	end, ok := strings.CutPrefix(path, "report.affected_")
	if !ok || value == nil || w == nil {
		return
	}
	other, bound := "to", w.To
	if end == "to" {
		other, bound = "from", w.From
	}
	r := sc.obj("report", true)
	if !r.has("affected_" + other) {
		r.set("affected_"+other, bound)
	}
}

// objects returns the objects of a list.
func objects(v any) []*object {
	l, _ := v.([]any)
	var out []*object
	for _, x := range l {
		if o, ok := x.(*object); ok {
			out = append(out, o)
		}
	}
	return out
}

// ---- strategies ---------------------------------------------------------------

func strategy(sc *object, i int) (*object, error) { return element(sc, "", "strategies", i) }

// addStrategy adds a strategy to start from, named "s" and a number no
// other strategy has: three attempts, a 2 s timeout, exponential backoff
// from 100 ms with full jitter.
func addStrategy(sc *object, _ FormEdit) error {
	list := sc.list("strategies")
	taken := takenNames(list)
	n := len(list) + 1
	for taken["s"+strconv.Itoa(n)] {
		n++
	}
	push(sc, "strategies", newObject("name", "s"+strconv.Itoa(n), "max_attempts", json.Number("3"), "attempt_timeout", "2s",
		"backoff", newObject("kind", "exponential", "base", "100ms"), "jitter", newObject("kind", "full")))
	return nil
}

// duplicateStrategy copies a strategy after it, named as it with "-copy".
func duplicateStrategy(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	c := clone(st).(*object)
	name, _ := c.get("name").(string)
	c.set("name", name+"-copy")
	sc.set("strategies", slices.Insert(slices.Clone(sc.list("strategies")), e.Index+1, any(c)))
	return nil
}

// removeStrategy removes a strategy, and its name from report.yours.
func removeStrategy(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	followYours(sc, st.get("name"), nil)
	return removeAt(sc, "", "strategies", e.Index)
}

// addLayer adds a layer of three attempts below a strategy.
func addLayer(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	push(st, "layers", newObject("max_attempts", json.Number("3")))
	return nil
}

func removeLayer(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	return removeAt(st, fmt.Sprintf("strategies[%d].", e.Index), "layers", e.Item)
}

// addBulkhead adds a bulkhead of 10 concurrent calls to a strategy, on
// the first dependency.
func addBulkhead(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	push(st, "bulkheads", newObject("dependency", firstDependency(sc), "max_concurrent", json.Number("10")))
	return nil
}

func removeBulkhead(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	return removeAt(st, fmt.Sprintf("strategies[%d].", e.Index), "bulkheads", e.Item)
}

// addFallback adds a fallback to a strategy, for the plan's first call.
func addFallback(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	call := ""
	if cs := callNames(sc); len(cs) > 0 {
		call = cs[0]
	}
	push(st, "fallbacks", newObject("call", call))
	return nil
}

func removeFallback(sc *object, e FormEdit) error {
	st, err := strategy(sc, e.Index)
	if err != nil {
		return err
	}
	return removeAt(st, fmt.Sprintf("strategies[%d].", e.Index), "fallbacks", e.Item)
}

// takenNames returns the names the objects of a list have.
func takenNames(list []any) map[string]bool {
	out := map[string]bool{}
	for _, x := range objects(list) {
		if n, ok := x.get("name").(string); ok {
			out[n] = true
		}
	}
	return out
}

// ---- the timeline and the load ------------------------------------------------

// later returns d plus secs seconds, written as the engine writes
// durations; an empty d counts from start.
func later(d any, start string, secs int, what string) (string, string, error) {
	from, _ := d.(string)
	if d == nil {
		from = start
	}
	v, err := engine.ParseDuration(from)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", what, err)
	}
	return from, (v + engine.Duration(time.Duration(secs)*time.Second)).String(), nil
}

// addPhase adds an outage (503s) of 5 s to a dependency's timeline, from
// where its last phase ends (or from 5 s).
func addPhase(sc *object, e FormEdit) error {
	dep, err := objectAt(sc, e.Dep)
	if err != nil {
		return err
	}
	var end any
	if l := last(dep, "phases"); l != nil {
		end = l.get("to")
	}
	from, to, err := later(end, "5s", 5, "the last phase's to")
	if err != nil {
		return err
	}
	push(dep, "phases", newObject("kind", string(engine.PhaseOutage), "from", from, "to", to, "status", json.Number("503")))
	return nil
}

func removePhase(sc *object, e FormEdit) error {
	dep, err := objectAt(sc, e.Dep)
	if err != nil {
		return err
	}
	return removeAt(dep, e.Dep+".", "phases", e.Index)
}

// addLoad adds a load change to start from: twice the rate for 10 s,
// after the last change (or from 10 s).
func addLoad(sc *object, _ FormEdit) error {
	w := sc.obj("workload", true)
	var end any
	if l := last(w, "load"); l != nil {
		end = l.get("to")
	}
	from, to, err := later(end, "10s", 10, "the last load change's to")
	if err != nil {
		return err
	}
	push(w, "load", newObject("kind", string(engine.LoadStep), "from", from, "to", to, "factor", json.Number("2")))
	return nil
}

func removeLoad(sc *object, e FormEdit) error {
	w, err := objectAt(sc, "workload")
	if err != nil {
		return err
	}
	return removeAt(w, "workload.", "load", e.Index)
}

// addFleet adds a fleet that retries hard beside the workload's own
// clients: named "fleet-" and a number no fleet has, 100 clients, half
// the workload's rate (10 without one), 5 attempts of 1 s.
func addFleet(sc *object, _ FormEdit) error {
	w := sc.obj("workload", true)
	fleets := w.list("fleets")
	taken := takenNames(fleets)
	n := len(fleets) + 1
	for taken["fleet-"+strconv.Itoa(n)] {
		n++
	}
	rate := 10.0
	if r, ok := w.get("rate").(json.Number); ok {
		if f, err := r.Float64(); err == nil {
			rate = f
		}
	}
	half := math.Max(1, math.Round(rate/2))
	push(w, "fleets", newObject("name", "fleet-"+strconv.Itoa(n), "clients", json.Number("100"),
		"rate", json.Number(strconv.FormatFloat(half, 'f', -1, 64)), "max_attempts", json.Number("5"), "attempt_timeout", "1s"))
	return nil
}

// removeFleet removes a fleet; without fleets, the workload's own clients
// lose their fleet's name.
func removeFleet(sc *object, e FormEdit) error {
	w, err := objectAt(sc, "workload")
	if err != nil {
		return err
	}
	if err := removeAt(w, "workload.", "fleets", e.Index); err != nil {
		return err
	}
	if !w.has("fleets") {
		w.del("fleet")
	}
	return nil
}

// ---- dependencies and the plan ------------------------------------------------

// dependencyNames lists the names of the scenario's dependencies (none
// while it has the one "dependency").
func dependencyNames(sc *object) []string {
	var out []string
	for _, d := range objects(sc.get("dependencies")) {
		if n, ok := d.get("name").(string); ok && n != "" {
			out = append(out, n)
		}
	}
	return out
}

func firstDependency(sc *object) string {
	if ns := dependencyNames(sc); len(ns) > 0 {
		return ns[0]
	}
	return ""
}

// callNames lists the names of the plan's calls: a call's name, or its
// dependency's.
func callNames(sc *object) []string {
	var out []string
	for _, s := range objects(at(sc, "workload.plan")) {
		for _, c := range objects(s.get("calls")) {
			n, _ := c.get("name").(string)
			if n == "" {
				n, _ = c.get("dependency").(string)
			}
			if n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// addDependency adds a dependency of 10 workers, 20 ms of constant
// service time and a queue of 100, named "dependency-" and a number no
// dependency has, called in parallel with the plan's last step. The one
// "dependency" becomes the first of a list, named "dependency"; a
// scenario without a plan gets one that calls it.
func addDependency(sc *object, _ FormEdit) error {
	if _, ok := sc.get("dependencies").([]any); !ok {
		first := newObject("name", "dependency")
		if d, ok := sc.get("dependency").(*object); ok {
			for _, k := range d.keys {
				first.set(k, d.vals[k])
			}
		}
		if sc.has("dependency") {
			// In its place.
			sc.keys[slices.Index(sc.keys, "dependency")] = "dependencies"
			delete(sc.vals, "dependency")
		}
		sc.set("dependencies", []any{first})
		w := sc.obj("workload", true)
		if !w.has("plan") {
			w.set("plan", []any{newObject("calls", []any{newObject("dependency", first.get("name"))})})
		}
	}
	taken := map[string]bool{}
	for _, n := range dependencyNames(sc) {
		taken[n] = true
	}
	n := len(sc.list("dependencies")) + 1
	for taken["dependency-"+strconv.Itoa(n)] {
		n++
	}
	name := "dependency-" + strconv.Itoa(n)
	push(sc, "dependencies", newObject("name", name, "workers", json.Number("10"),
		"service_time", newObject("kind", string(engine.ServiceConstant), "mean", "20ms"), "queue_capacity", json.Number("100")))
	w := sc.obj("workload", true)
	if len(w.list("plan")) == 0 {
		w.set("plan", []any{newObject("calls", []any{})})
	}
	lastStep := last(w, "plan")
	if lastStep == nil {
		return fmt.Errorf("workload.plan's last step is not an object")
	}
	push(lastStep, "calls", newObject("dependency", name))
	return nil
}

// removeDependency removes a dependency, its calls (and the steps left
// without one) and its bulkheads.
func removeDependency(sc *object, e FormEdit) error {
	dep, err := objectAt(sc, e.Dep)
	if err != nil {
		return err
	}
	list := sc.list("dependencies")
	i := slices.IndexFunc(list, func(x any) bool { return x == any(dep) })
	if i < 0 {
		return fmt.Errorf("%s is not one of the dependencies", e.Dep)
	}
	name := dep.get("name")
	sc.set("dependencies", slices.Delete(slices.Clone(list), i, i+1))
	if w := sc.obj("workload", false); w != nil && w.has("plan") {
		var steps []any
		for _, s := range objects(w.get("plan")) {
			calls := slices.DeleteFunc(slices.Clone(s.list("calls")), func(c any) bool {
				o, ok := c.(*object)
				return ok && o.get("dependency") == name
			})
			if len(calls) > 0 {
				s.set("calls", calls)
				steps = append(steps, s)
			}
		}
		w.set("plan", steps)
		w.drop("plan")
	}
	for _, st := range objects(sc.get("strategies")) {
		if st.has("bulkheads") {
			st.set("bulkheads", slices.DeleteFunc(slices.Clone(st.list("bulkheads")), func(b any) bool {
				o, ok := b.(*object)
				return ok && o.get("dependency") == name
			}))
			st.drop("bulkheads")
		}
	}
	return nil
}

// plan returns the workload (made when missing) whose plan an edit
// changes, or an error when its plan is not a list.
func plan(sc *object) (*object, error) {
	w := sc.obj("workload", true)
	if _, ok := w.get("plan").([]any); !ok && w.has("plan") {
		return nil, fmt.Errorf("workload.plan is not a list")
	}
	return w, nil
}

// addStep adds a step after the plan's, calling the first dependency.
func addStep(sc *object, _ FormEdit) error {
	w, err := plan(sc)
	if err != nil {
		return err
	}
	push(w, "plan", newObject("calls", []any{newObject("dependency", firstDependency(sc))}))
	return nil
}

// addCall adds a call of the first dependency, in parallel with a step's.
func addCall(sc *object, e FormEdit) error {
	w, err := plan(sc)
	if err != nil {
		return err
	}
	s, err := element(w, "workload.", "plan", e.Step)
	if err != nil {
		return err
	}
	push(s, "calls", newObject("dependency", firstDependency(sc)))
	return nil
}

// removeCall removes a call, and its step once it has none.
func removeCall(sc *object, e FormEdit) error {
	w, err := plan(sc)
	if err != nil {
		return err
	}
	s, err := element(w, "workload.", "plan", e.Step)
	if err != nil {
		return err
	}
	if err := removeAt(s, fmt.Sprintf("workload.plan[%d].", e.Step), "calls", e.Item); err != nil {
		return err
	}
	if !s.has("calls") {
		return removeAt(w, "workload.", "plan", e.Step)
	}
	return nil
}

// ---- the report and the search --------------------------------------------------

// addRequirement adds a requirement to start from: 95% of the incident's
// operations served, on every seed.
func addRequirement(sc *object, _ FormEdit) error {
	r := sc.obj("report", true)
	if n := len(r.list("thresholds")); n >= engine.MaxThresholds {
		return fmt.Errorf("report.thresholds has %d requirements, the most a scenario may have", n)
	}
	push(r, "thresholds", newObject("metric", "affected_success_rate", "op", string(engine.OpAtLeast), "value", json.Number("0.95")))
	return nil
}

// removeRequirement removes a requirement, and the report once empty.
func removeRequirement(sc *object, e FormEdit) error {
	r, err := objectAt(sc, "report")
	if err != nil {
		return err
	}
	if err := removeAt(r, "report.", "thresholds", e.Index); err != nil {
		return err
	}
	sc.drop("report")
	return nil
}

func removeSearch(sc *object, _ FormEdit) error {
	sc.del("search")
	return nil
}

// followPhases unpins the affected window: it follows the phases again.
func followPhases(sc *object, _ FormEdit) error {
	if r := sc.obj("report", false); r != nil {
		r.del("affected_from")
		r.del("affected_to")
		sc.drop("report")
	}
	return nil
}
