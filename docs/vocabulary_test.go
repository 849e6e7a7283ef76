package docs

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// defined lists the vocabularies (engine.Vocabulary's fields) whose every
// kind scenario-format.md defines where it lists them, as "`kind`: what
// it does", "`kind` (what it does)" or "`kind`, (the) default: what it does",
// not only names: the queue
// disciplines' and balancers' semantics, and the others written so.
var defined = []string{"Arrivals", "QueueDisciplines", "Balancers", "KeyLaws", "CacheFills", "RateLimits",
	"RetryAfterModes", "BreakEnds", "HalfOpenDecisions", "WindowBucketings", "HedgeAfterFailures"}

// TestDocsNameEveryKind walks every list of engine.Kinds() (the
// vocabulary the validator accepts and the form offers): the scenario
// format names each kind, as `kind` or "kind", and each field a kind
// takes (its …Fields); the vocabularies of defined have each kind
// defined. A kind added to engine/kinds.go without its words in the
// manual fails here.
func TestDocsNameEveryKind(t *testing.T) {
	data, err := os.ReadFile("scenario-format.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	named := func(w string) bool { return strings.Contains(s, "`"+w+"`") || strings.Contains(s, `"`+w+`"`) }
	v := reflect.ValueOf(engine.Kinds())
	seen := map[string]bool{}
	for i := range v.NumField() {
		name, f := v.Type().Field(i).Name, v.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			seen[name] = true
			for j := range f.Len() {
				k := f.Index(j).String()
				if !named(k) {
					t.Errorf("scenario-format.md does not name the %s kind %q (as `%s` or \"%s\")", name, k, k, k)
				}
			}
		case reflect.Map:
			for it := f.MapRange(); it.Next(); {
				for j := range it.Value().Len() {
					field := it.Value().Index(j).String()
					if !named(field) {
						t.Errorf("scenario-format.md does not name the field %q that %s kind %q takes", field, name, it.Key().String())
					}
				}
			}
		default:
			t.Errorf("engine.Vocabulary.%s is a %s: this test walks lists and maps of fields", name, f.Kind())
		}
	}
	for _, name := range defined {
		if !seen[name] {
			t.Errorf("defined names %s, not a list of engine.Vocabulary", name)
			continue
		}
		f := v.FieldByName(name)
		for j := range f.Len() {
			k := f.Index(j).String()
			if !strings.Contains(s, "`"+k+"`:") && !strings.Contains(s, "`"+k+"` (") && !strings.Contains(s, "`"+k+"`, default") && !strings.Contains(s, "`"+k+"`, the default") {
				t.Errorf("scenario-format.md names the %s kind %q but does not define it (\"`%s`: what it does\")", name, k, k)
			}
		}
	}
}
