package convert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

func init() {
	exportExt[Linkerd] = "yaml"
	roundTrips[Linkerd] = randomLinkerd
	lossless = append(lossless, "linkerd-docs.yaml")
}

// randomLinkerd returns a strategy a ServiceProfile route expresses
// exactly: retried at once without an attempt limit, any set of failed
// statuses, a timeout, and a budget of whole retries per second over a
// ttl of whole seconds.
func randomLinkerd(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: "GET /books/{id}", Policy: linkerdPolicy()}
	var set [600]bool
	for k := 0; k < r.IntN(6); k++ {
		lo := 100 + r.IntN(500)
		hi := min(599, lo+r.IntN(3)*r.IntN(60))
		for s := lo; s <= hi; s++ {
			set[s] = r.IntN(4) == 0
		}
	}
	if r.IntN(3) > 0 {
		st.RetryOn = linkerdRetryOn(&set)
	}
	if r.IntN(2) == 0 {
		st.Deadline = ms(r, 1, 60000)
	}
	st.Budget = linkerdBudget(float64(1+r.IntN(10000))/100, float64(r.IntN(100)), engine.Duration(int64(1+r.IntN(60))*1e9))
	return st
}

// TestLinkerdBudgetAsFinagle: Linkerd's default budget is the
// finagle-budget preset's (RetryBudget's defaults: 20%, 10 per second,
// 10 s in 10 slices).
func TestLinkerdBudgetAsFinagle(t *testing.T) {
	for _, st := range presetStrategies(t) {
		if st.Name == "finagle-budget" && !reflect.DeepEqual(st.Budget, linkerdDefaultBudget()) {
			t.Errorf("Linkerd's default budget\n%s\nis not finagle-budget's\n%s", indent(linkerdDefaultBudget()), indent(st.Budget))
		}
	}
	im, err := Import(Linkerd, []byte(`apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata: {name: books.default.svc.cluster.local, namespace: default}
spec:
  routes:
  - {name: GET /books, condition: {method: GET, pathRegex: /books}, isRetryable: true}
  - {name: POST /books, condition: {method: POST, pathRegex: /books}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Strategies) != 1 {
		t.Fatalf("%d strategies; want the retryable route only", len(im.Strategies))
	}
	want := engine.Strategy{Name: "GET /books", Policy: linkerdPolicy()}
	if got := im.Strategies[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", indent(got), indent(want))
	}
}

// TestLinkerdResponseClasses: the first class matching a status decides
// whether it is a failure, and so retried; 5xx are failures otherwise.
func TestLinkerdResponseClasses(t *testing.T) {
	im, err := Import(Linkerd, []byte(`kind: ServiceProfile
apiVersion: linkerd.io/v1alpha2
spec:
  routes:
  - name: r
    condition: {pathRegex: /.*}
    isRetryable: true
    responseClasses:
    - condition: {status: {min: 501, max: 501}}
      isFailure: false
    - condition: {status: {min: 429, max: 429}}
      isFailure: true
    - condition: {status: {min: 500, max: 501}}
      isFailure: true
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &engine.RetryOn{Statuses: []int{429, 500}, StatusRanges: []string{"502-599"}}
	if got := im.Strategies[0].RetryOn; !reflect.DeepEqual(got, want) {
		t.Errorf("retry_on %s, want %s", indent(got), indent(want))
	}
}

func TestLinkerdErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{kind: ServiceProfile, apiVersion: linkerd.io/v1alpha2, spec: {routes: [], retryBudget: {minRetriesPerSecond: 10, ttl: 10s}}}`,
			`spec.retryBudget.retryRatio: is missing`},
		{`{kind: ServiceProfile, apiVersion: linkerd.io/v1alpha2, spec: {routes: [{condition: {method: GET}, timeout: soon}]}}`,
			`spec.routes[0].timeout: "soon" is not a duration`},
		{`{kind: ServiceProfile, apiVersion: linkerd.io/v1alpha2, spec: {routes: []}}`, `the document has no ServiceProfile route`},
	} {
		_, err := Import(Linkerd, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestLinkerdExportNotes: attempt limits, backoffs, retried connection
// errors and budgets other than a ratio are warnings naming them.
func TestLinkerdExportNotes(t *testing.T) {
	st := engine.Strategy{Name: "x", Policy: engine.Policy{MaxAttempts: 3,
		Backoff: engine.Backoff{Kind: engine.BackoffConstant, Base: engine.Duration(1e8)},
		RetryOn: &engine.RetryOn{Statuses: []int{503}, Connection: true},
		Budget:  &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.1}}}
	out, ns, err := Export(Linkerd, st)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ns)
	for _, path := range []string{`"max_attempts"`, `"backoff"`, `"retry_on.connection"`, `"budget"`} {
		if !strings.Contains(string(b), `"path":`+path+`,"level":"warning"`) {
			t.Errorf("no warning on %s: %s", path, b)
		}
	}
	im, err := Import(Linkerd, out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := im.Strategies[0].RetryOn, (&engine.RetryOn{Statuses: []int{503}}); !reflect.DeepEqual(got, want) {
		t.Errorf("503 re-imported as %s:\n%s", indent(got), out)
	}
}

// TestLinkerdAnnotations: Linkerd 2.16's retry annotations are counted
// retries (1 by default), at once, on the codes, ranges, gateway-error and
// 5xx listed; the retry timeout is a retried attempt timeout.
func TestLinkerdAnnotations(t *testing.T) {
	im, err := Import(Linkerd, []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: books
  annotations: {retry.linkerd.io/http: "gateway-error,429,420-422", retry.linkerd.io/timeout: 250ms}
spec: {rules: [{timeouts: {request: 3s}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := engine.Strategy{Name: "HTTPRoute/books", Policy: engine.Policy{MaxAttempts: 2,
		AttemptTimeout: engine.Duration(250e6), Deadline: engine.Duration(3e9), Backoff: engine.Backoff{Kind: engine.BackoffNone},
		RetryOn: &engine.RetryOn{Statuses: []int{429}, StatusRanges: []string{"420-422", "502-504"}, Timeout: true}}}
	if got := im.Strategies[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", indent(got), indent(want))
	}
	for _, tc := range []struct{ doc, want string }{
		{`{kind: Service, apiVersion: v1, metadata: {name: s, annotations: {retry.linkerd.io/limit: "many"}}}`,
			`metadata.annotations["retry.linkerd.io/limit"]: "many" is not a number of retries RetryLab simulates; allowed 0 to 99`},
		{`{kind: Service, apiVersion: v1, metadata: {name: s, annotations: {retry.linkerd.io/http: "5xx,600"}}}`,
			`metadata.annotations["retry.linkerd.io/http"]: "600" is not an HTTP status condition`},
		{`{kind: Service, apiVersion: v1, metadata: {name: s}}`, `the document has no ServiceProfile (linkerd.io/v1alpha2) nor retry annotations`},
	} {
		_, err := Import(Linkerd, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestLinkerdTTLOutOfRange: the CRD accepts a retryBudget ttl outside
// 1–60 s, but the proxy's TpsBudget refuses it, drops the budget and never
// retries: imported so, with a warning, for the misconfiguration to show.
func TestLinkerdTTLOutOfRange(t *testing.T) {
	for _, ttl := range []string{"500ms", "2m"} {
		doc := "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: cart.shop.svc.cluster.local\nspec:\n  routes:\n  - name: GET /cart\n    condition:\n      method: GET\n      pathRegex: /cart\n    isRetryable: true\n  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: 10\n    ttl: " + ttl + "\n"
		im, err := Import(Linkerd, []byte(doc))
		if err != nil {
			t.Fatalf("ttl %s: %v", ttl, err)
		}
		if st := im.Strategies[0]; st.MaxAttempts != 1 || st.Budget != nil {
			t.Errorf("ttl %s: max_attempts %d, budget %+v; want one attempt, no budget", ttl, st.MaxAttempts, st.Budget)
		}
		warned := false
		for _, n := range im.Notes {
			warned = warned || n.Level == Warning && n.Path == "spec.retryBudget.ttl" && strings.Contains(n.Message, "never retries")
		}
		if !warned {
			t.Errorf("ttl %s: no warning on the ttl: %v", ttl, im.Notes)
		}
	}
}

// TestLinkerdLimitsAtTheirEdges: each limit the importer checks accepts
// the value at its edge and refuses the one beyond, with an error naming
// the annotation or field, the value and what is allowed.
func TestLinkerdLimitsAtTheirEdges(t *testing.T) {
	annotated := func(k, v string) string {
		return `{kind: Service, apiVersion: v1, metadata: {name: s, annotations: {` + k + `: "` + v + `"}}}`
	}
	profile := func(budget string) string {
		return `{kind: ServiceProfile, apiVersion: linkerd.io/v1alpha2, spec: {routes: [{name: r, condition: {pathRegex: /.*}, isRetryable: true}], retryBudget: {` + budget + `}}}`
	}
	for _, tc := range []struct {
		doc   string
		check func(st engine.Strategy) bool // nil: refused
		want  string                        // the error, or a note
	}{
		{annotated("retry.linkerd.io/limit", "0"), func(st engine.Strategy) bool { return st.MaxAttempts == 1 }, ""},
		{annotated("retry.linkerd.io/limit", "99"), func(st engine.Strategy) bool { return st.MaxAttempts == 100 }, ""},
		{annotated("retry.linkerd.io/limit", "-1"), nil, `"-1" is not a number of retries RetryLab simulates; allowed 0 to 99`},
		{annotated("retry.linkerd.io/limit", "100"), nil, `"100" is not a number of retries RetryLab simulates; allowed 0 to 99`},
		{annotated("retry.linkerd.io/http", "100,599"), func(st engine.Strategy) bool {
			return reflect.DeepEqual(st.RetryOn.Statuses, []int{100, 599})
		}, ""},
		{annotated("retry.linkerd.io/http", "429-429"), func(st engine.Strategy) bool {
			return reflect.DeepEqual(st.RetryOn.Statuses, []int{429})
		}, ""},
		{annotated("retry.linkerd.io/http", "420-422,500-501"), func(st engine.Strategy) bool {
			return reflect.DeepEqual(st.RetryOn.StatusRanges, []string{"420-422"}) && reflect.DeepEqual(st.RetryOn.Statuses, []int{500, 501})
		}, ""},
		{annotated("retry.linkerd.io/http", "99"), nil, `"99" is not an HTTP status condition; allowed a code (504), a range (500-504), gateway-error or 5xx, codes from 100 to 599`},
		{annotated("retry.linkerd.io/http", "500-600"), nil, `"500-600" is not an HTTP status condition`},
		{annotated("retry.linkerd.io/http", "504-502"), nil, `"504-502" is not an HTTP status condition`},
		{profile("retryRatio: 100, minRetriesPerSecond: 0, ttl: 10s"), func(st engine.Strategy) bool {
			return st.Budget != nil && st.Budget.Ratio == 100
		}, ""},
		{profile("retryRatio: 0, minRetriesPerSecond: 10, ttl: 10s"), nil, `spec.retryBudget.retryRatio: 0 is out of range; RetryLab's ratio budget allows above 0, up to 100`},
		{profile("retryRatio: 100.5, minRetriesPerSecond: 10, ttl: 10s"), nil, `spec.retryBudget.retryRatio: 100.5 is out of range`},
		{profile("retryRatio: 0.2, minRetriesPerSecond: 10, ttl: 1s"), func(st engine.Strategy) bool {
			return st.MaxAttempts != 1 && st.Budget != nil && st.Budget.Window == engine.Duration(time.Second)
		}, ""},
		{profile("retryRatio: 0.2, minRetriesPerSecond: 10, ttl: 60s"), func(st engine.Strategy) bool {
			return st.MaxAttempts != 1 && st.Budget != nil && st.Budget.Window == engine.Duration(time.Minute)
		}, ""},
		// 1/0.3 is not whole: the proxy withdraws 3 per retry.
		{profile("retryRatio: 0.3, minRetriesPerSecond: 10, ttl: 10s"), func(st engine.Strategy) bool { return st.Budget != nil },
			"withdraws ⌊1/retryRatio⌋ = 3 per retry"},
	} {
		im, err := Import(Linkerd, []byte(tc.doc))
		switch {
		case tc.check == nil:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.want)
			}
		case err != nil:
			t.Errorf("Import(%s): %v", tc.doc, err)
		case !tc.check(im.Strategies[0]):
			t.Errorf("Import(%s) =\n%s", tc.doc, indent(im.Strategies[0]))
		case tc.want != "" && !strings.Contains(fmt.Sprint(im.Notes), tc.want):
			t.Errorf("Import(%s): no note saying %q: %v", tc.doc, tc.want, im.Notes)
		}
	}
}

// TestLinkerdExportEdges: one attempt is a route that does not retry, not
// an attempt limit Linkerd lacks; a budget's window of 1s or 60s is a ttl
// Linkerd takes as it is.
func TestLinkerdExportEdges(t *testing.T) {
	for _, tc := range []struct {
		st       engine.Strategy
		path     string // a warning on it, or none when empty
		contains string // in the export
	}{
		{engine.Strategy{Name: "x", Policy: engine.Policy{MaxAttempts: 1}}, "", "isRetryable: false"},
		{engine.Strategy{Name: "x", Policy: engine.Policy{MaxAttempts: 2}}, "max_attempts", "isRetryable: true"},
		{engine.Strategy{Name: "x", Policy: engine.Policy{Budget: linkerdBudget(20, 10, engine.Duration(time.Second))}}, "", "ttl: 1s"},
		{engine.Strategy{Name: "x", Policy: engine.Policy{Budget: linkerdBudget(20, 10, engine.Duration(time.Minute))}}, "", "ttl: 1m"},
		{engine.Strategy{Name: "x", Policy: engine.Policy{Budget: linkerdBudget(20, 10, engine.Duration(time.Minute+time.Second))}}, "budget.window", "ttl: 1m"},
		{engine.Strategy{Name: "x", Policy: engine.Policy{Budget: linkerdBudget(20, 10, engine.Duration(999*time.Millisecond))}}, "budget.window", "ttl: 1s"},
	} {
		tc.st.RetryOn = &engine.RetryOn{Statuses: []int{503}} // as Linkerd retries
		if tc.st.Budget == nil {
			tc.st.Budget = linkerdDefaultBudget()
		}
		out, ns, err := Export(Linkerd, tc.st)
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		for _, n := range ns {
			if n.Level == Warning {
				warned = append(warned, n.Path)
			}
		}
		if want := []string{tc.path}; tc.path == "" && len(warned) > 0 || tc.path != "" && !reflect.DeepEqual(warned, want) {
			t.Errorf("%s: warnings on %q; want %q", indent(tc.st), warned, tc.path)
		}
		if !strings.Contains(string(out), tc.contains) {
			t.Errorf("%s: written without %q:\n%s", indent(tc.st), tc.contains, out)
		}
	}
}
