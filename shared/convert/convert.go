package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrylab/retrylab/shared/engine"
)

// A Level says how much a Note matters.
type Level string

const (
	// Info is a choice the converter made that keeps the meaning: a default
	// filled in, a label, a value written in another form.
	Info Level = "info"
	// Warning is a difference: something read but not simulated, or a
	// feature the target cannot express, left out or approximated.
	Warning Level = "warning"
)

// A Note is one thing a conversion did not carry over exactly. Path is
// where: a path in the source document on import
// (methodConfig[0].retryPolicy.hedgingPolicy, [profile prod].retry_mode,
// Retry.UseJitter), a strategy's JSON path on export (breaker,
// backoff.kind, layers).
type Note struct {
	Path    string `json:"path,omitempty"`
	Level   Level  `json:"level"`
	Message string `json:"message"`
}

// String formats the note as "level: path: message".
func (n Note) String() string {
	if n.Path == "" {
		return string(n.Level) + ": " + n.Message
	}
	return string(n.Level) + ": " + n.Path + ": " + n.Message
}

// Imported is what Import read: one strategy per policy of the document,
// in document order, and the notes on what was not carried over exactly.
// Each strategy can be put as it is in a scenario's strategies.
type Imported struct {
	Strategies []engine.Strategy `json:"strategies"`
	// Backends are the backends the document puts behind the dependency
	// (outlier detection, a retry host predicate): nil when it says
	// nothing of them. Scenario puts them on the scenario's dependency.
	Backends *engine.Backends `json:"backends,omitempty"`
	Notes    []Note           `json:"notes,omitempty"`
}

// The formats, by the names Import and Export take.
const (
	GRPC       = "grpc"
	AWS        = "aws"
	Polly      = "polly"
	FailsafeGo = "failsafe-go"
	Cenkalti   = "cenkalti"

	Envoy            = "envoy"
	Istio            = "istio"
	Linkerd          = "linkerd"
	Resilience4j     = "resilience4j"
	PollyCSharp      = "polly-csharp"
	Resilience4jJava = "resilience4j-java"
)

// ImportFormats are the formats Import reads.
var ImportFormats = []string{GRPC, Envoy, Istio, Linkerd, Resilience4j, Polly, AWS}

// ExportFormats are the formats Export writes: those Import reads, and
// code (Go, C#, Java).
var ExportFormats = []string{GRPC, Envoy, Istio, Linkerd, Resilience4j, Polly, AWS, FailsafeGo, Cenkalti, PollyCSharp, Resilience4jJava}

// Import reads a configuration document of the given format (one of
// ImportFormats) into strategies. A document that cannot be read, or a
// value RetryLab cannot simulate faithfully at all, is an error: an
// engine.Errors naming each problem's path in the document, the value and
// what is allowed. Everything else that is not carried over exactly is a
// Note.
func Import(format string, data []byte) (*Imported, error) {
	var im *Imported
	var err error
	// A byte order mark (Windows editors write one) is no part of the
	// document; JSON readers refuse it and YAML ones skip it.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	switch format {
	case GRPC:
		im, err = importGRPC(data)
	case AWS:
		im, err = importAWS(data)
	case Polly:
		im, err = importPolly(data)
	case Envoy:
		im, err = importEnvoy(data)
	case Istio:
		im, err = importIstio(data)
	case Linkerd:
		im, err = importLinkerd(data)
	case Resilience4j:
		im, err = importResilience4j(data)
	default:
		return nil, engine.Errors{{Value: strconv.Quote(format), Message: "is not a format Import reads; allowed " + quoteList(ImportFormats)}}
	}
	if err != nil {
		return nil, err
	}
	if len(im.Strategies) > engine.MaxStrategies {
		// Generated configurations repeat one policy on many routes:
		// identical policies are one strategy, which lists them.
		mergeIdentical(im)
	}
	if n := len(im.Strategies); n > engine.MaxStrategies {
		// A scenario compares at most MaxStrategies: say so about the
		// configuration, not about a scenario the user has not seen.
		path := map[string]string{GRPC: "methodConfig", AWS: "profiles",
			Envoy: "routes", Istio: "http", Linkerd: "routes", Resilience4j: "resilience4j.retry.instances"}[format]
		return nil, engine.Errors{{Path: path, Value: strconv.Itoa(n), Message: fmt.Sprintf("policies are more than a scenario compares (at most %d strategies); import the configuration in parts", engine.MaxStrategies)}}
	}
	fitNames(im)
	uniqueNames(im.Strategies)
	return im, nil
}

// mergeIdentical makes the strategies whose policies are identical (all
// but their names) one, named after the first and how many more it
// stands for, with an info listing them all.
func mergeIdentical(im *Imported) {
	var out []engine.Strategy
	var groups [][]string
	for _, st := range im.Strategies {
		k := slices.IndexFunc(out, func(o engine.Strategy) bool {
			a, b := o, st
			a.Name, b.Name = "", ""
			return reflect.DeepEqual(a, b)
		})
		if k < 0 {
			out = append(out, st)
			groups = append(groups, []string{st.Name})
			continue
		}
		groups[k] = append(groups[k], st.Name)
	}
	for i, g := range groups {
		if len(g) == 1 {
			continue
		}
		out[i].Name = fmt.Sprintf("%s (+%d identical)", g[0], len(g)-1)
		im.Notes = append(im.Notes, Note{Level: Info, Message: fmt.Sprintf("%d policies are identical and imported as one strategy, %q, as a scenario compares at most %d: %s",
			len(g), out[i].Name, engine.MaxStrategies, strings.Join(g, ", "))})
	}
	im.Strategies = out
}

// fitNames gives every imported strategy a name a scenario takes: a name
// that is not UTF-8 is mended, an empty one is "policy N", a long one is
// cut (leaving room for uniqueNames' " (N)"), each with a note.
func fitNames(im *Imported) {
	const room = 8
	for i := range im.Strategies {
		st := &im.Strategies[i]
		was := st.Name
		st.Name = strings.ToValidUTF8(st.Name, "\ufffd")
		if st.Name != was {
			im.Notes = append(im.Notes, Note{Level: Warning, Message: fmt.Sprintf("policy %d's name is not UTF-8: its other bytes are shown as \ufffd, in %s", i+1, show(st.Name))})
		}
		if st.Name == "" {
			st.Name = fmt.Sprintf("policy %d", i+1)
			im.Notes = append(im.Notes, Note{Level: Info, Message: fmt.Sprintf("policy %d has no name: named %q", i+1, st.Name)})
		}
		if n := utf8.RuneCountInString(st.Name); n > engine.MaxStrategyName-room {
			st.Name = string([]rune(st.Name)[:engine.MaxStrategyName-room])
			im.Notes = append(im.Notes, Note{Level: Info, Message: fmt.Sprintf("policy %d's name is %d characters long: cut to %d, %s", i+1, n, engine.MaxStrategyName-room, show(st.Name))})
		}
	}
}

// Export writes the strategy's policy in the given format (one of
// ExportFormats), with notes on every feature of the policy the format
// cannot express (left out or approximated, as each note says). Only the
// strategy's own policy is exported: its layers, pool, bulkheads and
// fallbacks are each a warning. The error is for an unknown format only.
func Export(format string, st engine.Strategy) ([]byte, []Note, error) {
	return ExportFrom(format, st, nil)
}

// ExportFrom writes the strategy's policy as Export does, with b, the
// backends of the dependency it calls (nil: one server; see Backends):
// Envoy writes them as the cluster's hosts, lb_policy and
// outlier_detection, Istio as the DestinationRule's outlierDetection;
// the other formats have no place for them (a note says so).
func ExportFrom(format string, st engine.Strategy, b *engine.Backends) ([]byte, []Note, error) {
	var n notes
	if b != nil && format != Envoy && format != Istio && slices.Contains(ExportFormats, format) {
		n.warn("dependency.backends", "are the server's, behind a load balancer; a %s configuration has no place for them: not exported", format)
	}
	var out []byte
	switch format {
	case GRPC:
		out = exportGRPC(&st, &n)
	case AWS:
		out = exportAWS(&st, &n)
	case Polly:
		out = exportPolly(&st, &n)
	case FailsafeGo:
		out = exportFailsafe(&st, &n)
	case Cenkalti:
		out = exportCenkalti(&st, &n)
	case Envoy:
		out = exportEnvoy(&st, b, &n)
	case Istio:
		out = exportIstio(&st, b, &n)
	case Linkerd:
		out = exportLinkerd(&st, &n)
	case Resilience4j:
		out = exportResilience4j(&st, &n)
	case PollyCSharp:
		out = exportPollyCSharp(&st, &n)
	case Resilience4jJava:
		out = exportResilience4jJava(&st, &n)
	default:
		return nil, nil, engine.Errors{{Value: strconv.Quote(format), Message: "is not a format Export writes; allowed " + quoteList(ExportFormats)}}
	}
	return out, n.list, nil
}

// Joined lists the formats whose exports of several strategies ExportAll
// writes as one configuration that their tools read as a whole: Istio's
// and Linkerd's Kubernetes documents joined with "---", and one
// resilience4j tree with an instance per strategy.
var Joined = []string{Istio, Linkerd, Resilience4j}

// ExportAll writes several strategies as one configuration of a format
// of Joined, with the notes on each strategy (notes[i] for sts[i]), which
// RetryLab's import reads back as those strategies. Strategies of the
// same name make instances or routes of the same name: give them
// different names first.
func ExportAll(format string, sts []engine.Strategy) ([]byte, [][]Note, error) {
	return ExportAllFrom(format, sts, nil)
}

// ExportAllFrom is ExportAll with b, the backends of the dependency the
// strategies call, as ExportFrom writes them.
func ExportAllFrom(format string, sts []engine.Strategy, b *engine.Backends) ([]byte, [][]Note, error) {
	if !slices.Contains(Joined, format) {
		return nil, nil, engine.Errors{{Value: strconv.Quote(format), Message: "is not a format ExportAll joins; allowed " + quoteList(Joined)}}
	}
	ns := make([]notes, len(sts))
	if b != nil && format != Istio {
		for i := range ns {
			ns[i].warn("dependency.backends", "are the server's, behind a load balancer; a %s configuration has no place for them: not exported", format)
		}
	}
	var out []byte
	if format == Resilience4j {
		out = exportResilience4jAll(sts, ns)
	} else {
		for i := range sts {
			var part []byte
			if format == Istio {
				part = exportIstio(&sts[i], b, &ns[i])
			} else {
				part = exportLinkerd(&sts[i], &ns[i])
			}
			if i > 0 {
				out = append(out, "---\n"...)
			}
			out = append(out, part...)
		}
	}
	lists := make([][]Note, len(sts))
	for i := range ns {
		lists[i] = ns[i].list
	}
	return out, lists, nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// uniqueNames makes the strategies' names unique, as a scenario needs,
// by numbering repeats.
func uniqueNames(sts []engine.Strategy) {
	seen := map[string]bool{}
	for i := range sts {
		name := sts[i].Name
		for k := 2; seen[name]; k++ {
			name = fmt.Sprintf("%s (%d)", sts[i].Name, k)
		}
		seen[name] = true
		sts[i].Name = name
	}
}

// notes collects notes and errors as a conversion goes.
type notes struct {
	list []Note
	errs engine.Errors
}

func (n *notes) info(path, format string, args ...any) {
	n.list = append(n.list, Note{Path: path, Level: Info, Message: fmt.Sprintf(format, args...)})
}

func (n *notes) warn(path, format string, args ...any) {
	n.list = append(n.list, Note{Path: path, Level: Warning, Message: fmt.Sprintf(format, args...)})
}

// fail records an error at path: value as written, then what is allowed.
func (n *notes) fail(path string, value any, format string, args ...any) {
	n.errs = append(n.errs, engine.FieldError{Path: path, Value: show(value), Message: fmt.Sprintf(format, args...)})
}

func (n *notes) err() error {
	if len(n.errs) > 0 {
		return n.errs
	}
	return nil
}

// maxShown is the most runes of a string an error quotes: a long string
// (one an alias repeats, in every error about it) is cut, and its length
// said, so that an error is never much larger than a line.
const maxShown = 64

// show formats a value of a decoded JSON document as it was written, a
// string of more than maxShown runes cut to its start.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		n := 0
		for i := range v {
			if n++; n > maxShown {
				return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(v[:i]), len(v))
			}
		}
		return strconv.Quote(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// join appends a key to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// decodeJSON reads one JSON value, numbers as json.Number. A key given
// twice in one object is an error, as it is in YAML, naming its line:
// JSON leaves duplicates to the reader, and readers disagree on which
// one wins.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		msg := "is not JSON: " + err.Error()
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			line, col := position(data, int(se.Offset)-1)
			msg = fmt.Sprintf("is not JSON: %s at line %d, column %d", se.Error(), line, col)
		} else if errors.Is(err, io.EOF) {
			msg = "is empty; a JSON object is needed"
		}
		return nil, engine.Errors{{Path: "", Value: "the document", Message: msg}}
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, int(dec.InputOffset()))
		return nil, engine.Errors{{Value: "the document", Message: fmt.Sprintf("has data after its JSON value, at line %d, column %d; one JSON object is needed", line, col)}}
	}
	return jsonTree(data, raw)
}

// jsonTree reads raw, valid JSON that starts at its offset in data, into
// objects, arrays, json.Number, strings, booleans and nil, refusing a key
// given twice in one object.
func jsonTree(data, raw []byte) (any, error) {
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var walk func(path string) (any, error)
	walk = func(path string) (any, error) {
		tok, _ := dec.Token() // raw is valid JSON: no error
		switch tok {
		case json.Delim('{'):
			obj := map[string]any{}
			for dec.More() {
				key, _ := dec.Token()
				k := key.(string)
				if _, dup := obj[k]; dup {
					line, _ := position(data, start+int(dec.InputOffset()))
					return nil, engine.Errors{{Path: join(path, k), Value: "the key", Message: fmt.Sprintf("is given twice (again at line %d); allowed once", line)}}
				}
				v, err := walk(join(path, k))
				if err != nil {
					return nil, err
				}
				obj[k] = v
			}
			dec.Token() // '}'
			return obj, nil
		case json.Delim('['):
			arr := []any{}
			for i := 0; dec.More(); i++ {
				v, err := walk(index(path, i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			dec.Token() // ']'
			return arr, nil
		}
		return tok, nil
	}
	return walk("")
}

// UniqueKeys returns an error naming the first key given twice in one
// object of the JSON document data, or nil: for JSON that is read with
// encoding/json, which keeps the last.
func UniqueKeys(data []byte) error {
	var raw json.RawMessage
	if json.Unmarshal(data, &raw) != nil {
		return nil // encoding/json says what is wrong with it
	}
	_, err := jsonTree(data, bytes.TrimSpace(raw))
	return err
}

// position returns the line and column of byte offset off of data, both
// counted from 1, columns in characters, as engine's errors count them.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
	return line, col
}

// An object is a decoded JSON object with its path, read field by field.
type object struct {
	path string
	m    map[string]any
	read map[string]bool
}

// asObject returns v as an object, or records an error.
func asObject(n *notes, path string, v any) (*object, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		n.fail(path, v, "is not a JSON object; an object is needed here")
		return nil, false
	}
	return &object{path: path, m: m, read: map[string]bool{}}, true
}

// get returns the field named key, matching case when fold is false and
// ignoring it otherwise, and marks it read.
func (o *object) get(key string, fold bool) (v any, path string, ok bool) {
	if v, ok := o.m[key]; ok {
		o.read[key] = true
		return v, join(o.path, key), true
	}
	if fold {
		for _, k := range o.sortedKeys() {
			if strings.EqualFold(k, key) {
				o.read[k] = true
				return o.m[k], join(o.path, k), true
			}
		}
	}
	return nil, "", false
}

func (o *object) sortedKeys() []string {
	ks := make([]string, 0, len(o.m))
	for k := range o.m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// unread warns about every field not read, in name order.
func (o *object) unread(n *notes, why string) {
	for _, k := range o.sortedKeys() {
		if !o.read[k] {
			n.warn(join(o.path, k), "%s", why)
		}
	}
}

// number reads a JSON number, or a string holding one when strs is set
// (.NET configuration values are strings).
func number(n *notes, path string, v any, strs bool) (float64, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		if !strs {
			n.fail(path, v, "is not a number")
			return 0, false
		}
		s = strings.TrimSpace(v)
	default:
		n.fail(path, v, "is not a number")
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		n.fail(path, v, "is not a finite number")
		return 0, false
	}
	return f, true
}

// integer reads a whole number in [lo, hi].
func integer(n *notes, path string, v any, strs bool, lo, hi int) (int, bool) {
	f, ok := number(n, path, v, strs)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		n.fail(path, v, "is out of range; allowed a whole number from %d to %d", lo, hi)
		return 0, false
	}
	return int(f), true
}

// boolean reads a JSON boolean, or "true"/"false" in any case when strs
// is set.
func boolean(n *notes, path string, v any, strs bool) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		if strs {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		}
	}
	n.fail(path, v, "is not a boolean; allowed true or false")
	return false, false
}

// retried expands a retry_on (nil: the engine's default) into the statuses
// it retries, and whether it retries timeouts and connection errors.
func retried(ro *engine.RetryOn) (statuses []int, timeout, connection bool) {
	if ro == nil {
		return []int{408, 429, 502, 503, 504}, true, true
	}
	var set [600]bool
	for _, s := range ro.Statuses {
		if s >= 0 && s < len(set) {
			set[s] = true
		}
	}
	for _, r := range ro.StatusRanges {
		a, b, ok := strings.Cut(r, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		for s := max(lo, 0); s <= min(hi, len(set)-1); s++ {
			set[s] = true
		}
	}
	for _, s := range ro.Except {
		if s >= 0 && s < len(set) {
			set[s] = false
		}
	}
	for s, ok := range set {
		if ok {
			statuses = append(statuses, s)
		}
	}
	return statuses, ro.Timeout, ro.Connection
}

// statusList formats statuses compactly: runs of 3 or more as "500-599".
func statusList(ss []int) string {
	var parts []string
	for i := 0; i < len(ss); {
		j := i
		for j+1 < len(ss) && ss[j+1] == ss[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d-%d", ss[i], ss[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(ss[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// policyFeatures lists the features of a strategy, by their JSON names,
// with what each is and whether a strategy has it: what unsupported
// warns about, and what an AWS export compares.
var policyFeatures = []struct {
	field string
	what  string
	set   func(st *engine.Strategy) bool
}{
	{"max_attempts", "an attempt limit", func(st *engine.Strategy) bool { return true }},
	{"attempt_timeout", "a per-attempt timeout", func(st *engine.Strategy) bool { return st.AttemptTimeout != 0 }},
	{"deadline", "a deadline for the whole call", func(st *engine.Strategy) bool { return st.Deadline != 0 }},
	{"min_attempt_time", "a minimum time left for an attempt", func(st *engine.Strategy) bool { return st.MinAttemptTime != 0 }},
	{"backoff", "a backoff", func(st *engine.Strategy) bool { return st.Backoff != (engine.Backoff{}) }},
	{"jitter", "a jitter", func(st *engine.Strategy) bool { return st.Jitter != (engine.Jitter{}) }},
	{"retry_on", "a set of retried outcomes", func(st *engine.Strategy) bool { return true }},
	{"honor_retry_after", "honouring Retry-After", func(st *engine.Strategy) bool { return st.HonorRetryAfter }},
	{"retry_after", "a Retry-After mode", func(st *engine.Strategy) bool { return st.RetryAfter != nil }},
	{"max_elapsed", "a limit on the time spent retrying (max_elapsed)", func(st *engine.Strategy) bool { return st.MaxElapsed != 0 }},
	{"retry_non_idempotent", "retrying non-idempotent operations", func(st *engine.Strategy) bool { return st.RetryNonIdempotent }},
	{"idempotency_key", "idempotency keys", func(st *engine.Strategy) bool { return st.IdempotencyKey }},
	{"dead_letter", "a dead-letter queue", func(st *engine.Strategy) bool { return st.DeadLetter }},
	{"budget", "a retry budget", func(st *engine.Strategy) bool { return st.Budget != nil }},
	{"breaker", "a circuit breaker", func(st *engine.Strategy) bool { return st.Breaker != nil }},
	{"adaptive", "an adaptive backoff", func(st *engine.Strategy) bool { return st.Adaptive != nil }},
	{"throttle", "client-side throttling", func(st *engine.Strategy) bool { return st.Throttle != nil }},
	{"client_rate_limit", "a client-side rate limiter", func(st *engine.Strategy) bool { return st.RateLimit != nil }},
	{"connection_limits", "a proxy's connection limits", func(st *engine.Strategy) bool { return st.ConnectionLimits != nil }},
	{"instances", "a number of client instances", func(st *engine.Strategy) bool { return st.Instances != 0 }},
	{"hedging", "hedging", func(st *engine.Strategy) bool { return st.Hedging != nil }},
	{"layers", "layers (the policies of the services between the client and the dependency)", func(st *engine.Strategy) bool { return len(st.Layers) > 0 }},
	{"pool", "a client pool", func(st *engine.Strategy) bool { return st.Pool != nil }},
	{"bulkheads", "bulkheads", func(st *engine.Strategy) bool { return len(st.Bulkheads) > 0 }},
	{"fallbacks", "fallbacks", func(st *engine.Strategy) bool { return len(st.Fallbacks) > 0 }},
}

// unsupported warns about every feature of the strategy that is set and
// is not among the fields the format handles.
func unsupported(n *notes, st *engine.Strategy, format string, handled ...string) {
	for _, f := range policyFeatures {
		if slices.Contains(handled, f.field) || !f.set(st) {
			continue
		}
		n.warn(f.field, "%s cannot express %s; not exported", format, f.what)
	}
}
