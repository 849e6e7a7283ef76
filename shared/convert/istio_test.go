package convert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func init() {
	exportExt[Istio] = "yaml"
	roundTrips[Istio] = randomIstio
	lossless = append(lossless, "istio-docs.yaml")
}

// istioTokens are the retryOn conditions randomIstio picks from.
var istioTokens = []string{"5xx", "gateway-error", "reset", "connect-failure", "refused-stream", "retriable-4xx",
	"cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable", "408", "429", "503", "425", "226"}

// randomIstio returns a strategy a VirtualService (and DestinationRule)
// expresses exactly: Envoy's back-off from any base, a retryOn of
// Envoy's conditions, timeouts in whole milliseconds, maxRetries.
func randomIstio(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: "dependency/route", Policy: istioPolicy(1 + r.IntN(engine.MaxAttempts-1))}
	if r.IntN(2) == 0 {
		st.Name = []string{"dependency", "reviews", "shop.svc"}[r.IntN(3)] + "/" + []string{"reviews", "a b", "x/y"}[r.IntN(3)]
	}
	if r.IntN(2) == 0 {
		base := ms(r, 1, 5000)
		st.Backoff.Base, st.Backoff.Max = base, 10*base
	}
	for st.RetryOn == nil || reflect.DeepEqual(st.RetryOn, &engine.RetryOn{}) {
		var toks []string
		for _, t := range istioTokens {
			if r.IntN(4) == 0 {
				toks = append(toks, t)
			}
		}
		st.RetryOn, _ = istioRetryOn(&notes{}, "x", strings.Join(toks, ","))
	}
	if r.IntN(2) == 0 {
		st.AttemptTimeout = ms(r, 1, 30000)
	}
	if r.IntN(2) == 0 {
		st.Deadline = ms(r, 1, 60000)
	}
	if r.IntN(3) == 0 {
		st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: 1 + r.IntN(1000), ShareOf: engine.ShareAttempts}
	}
	return st
}

// TestIstioAsPresets: a route whose retries are Envoy's 5xx with one
// retry and a 15 s timeout imports as the envoy-retry preset's settings
// (based on istio-retry, Istio's own limits), Istio's defaults as the
// istio-retry preset; a DestinationRule's maxRetries is
// a concurrency budget of ratio 0 counting attempts.
func TestIstioAsPresets(t *testing.T) {
	presets := map[string]engine.Policy{}
	for _, st := range presetStrategies(t) {
		presets[st.Name] = st.Policy
	}
	im, err := Import(Istio, []byte(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  hosts: [r]
  http:
  - timeout: 15s
    retries: {attempts: 1, retryOn: 5xx}
    route: [{destination: {host: r}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	got, want := im.Strategies[0].Policy, presets["envoy-retry"]
	label := got.BasedOn
	got.BasedOn, want.BasedOn = "", ""
	if !reflect.DeepEqual(got, want) || label != "istio-retry" {
		t.Errorf("got\n%s\nwant the envoy-retry preset's settings, based on istio-retry\n%s", indent(got), indent(want))
	}
	if name := im.Strategies[0].Name; name != "r/0" {
		t.Errorf("name %q, want r/0", name)
	}
	// A route without retries is Istio's default: the istio-retry preset,
	// label and all.
	im, err = Import(Istio, []byte(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  hosts: [r]
  http:
  - route: [{destination: {host: r}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := im.Strategies[0].Policy, presets["istio-retry"]; !reflect.DeepEqual(got, want) {
		t.Errorf("Istio's default retries imported as\n%s\nwant the istio-retry preset\n%s", indent(got), indent(want))
	}
}

func TestIstioDefaultsAndPairing(t *testing.T) {
	im, err := Import(Istio, []byte(`apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: shop}
spec:
  hosts: [cart]
  http:
  - name: default
    route: [{destination: {host: cart.shop.svc.cluster.local}}]
  - name: off
    retries: {attempts: 0}
    route: [{destination: {host: other}}]
---
apiVersion: networking.istio.io/v1alpha3
kind: DestinationRule
metadata: {name: cart}
spec:
  host: cart
  trafficPolicy: {connectionPool: {http: {maxRetries: 4}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Strategies) != 2 {
		t.Fatalf("%d strategies, want 2: %s", len(im.Strategies), indent(im))
	}
	def, off := im.Strategies[0], im.Strategies[1]
	if def.Name != "shop/default" || def.MaxAttempts != 3 || !reflect.DeepEqual(def.RetryOn, istioDefaultRetryOn()) || def.Deadline != 0 {
		t.Errorf("the route without retries is not Istio's default policy: %s", indent(def))
	}
	if b := def.Budget; b == nil || b.Kind != engine.BudgetConcurrency || b.MinConcurrency != 4 || b.Ratio != 0 || b.ShareOf != engine.ShareAttempts {
		t.Errorf("maxRetries 4 of the DestinationRule of cart.shop's short name is not the budget: %s", indent(def.Budget))
	}
	if off.MaxAttempts != 1 || off.Budget != nil {
		t.Errorf("attempts 0 on another host: %s", indent(off))
	}
}

func TestIstioErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{retries: {attempts: 2, retryOn: "5xx,sometimes"}}]}}`,
			`spec.http[0].retries.retryOn: "sometimes" is not a retry condition`},
		{`{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{retries: {attempts: 2, perTryTimeout: "2"}}]}}`,
			`spec.http[0].retries.perTryTimeout: "2" is not a duration`},
		{`{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{retries: {attempts: 100}}]}}`,
			`spec.http[0].retries.attempts: 100 is out of range; allowed a whole number from 0 to 99`},
		{`{kind: Service, apiVersion: v1}`, `the document has no VirtualService http route nor DestinationRule`},
		{`{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{retries: {attempts: 2, retryOn: "5xx,600"}}]}}`,
			`spec.http[0].retries.retryOn: "600" is not a status code Go's net/http names`},
	} {
		_, err := Import(Istio, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestIstioExportRetryOn: each retried set is written with the Envoy
// conditions that retry exactly it.
func TestIstioExportRetryOn(t *testing.T) {
	for _, tc := range []struct {
		ro   engine.RetryOn
		want string
	}{
		{engine.RetryOn{StatusRanges: []string{"500-599"}, Connection: true, Timeout: true}, "5xx"},
		{engine.RetryOn{Statuses: []int{502, 503, 504}, Connection: true, Timeout: true}, "gateway-error"},
		{engine.RetryOn{Statuses: []int{429, 503}, Connection: true}, "connect-failure,429,503"},
		{engine.RetryOn{Statuses: []int{409, 502, 503, 504}, Connection: true, Timeout: true}, "gateway-error,409"},
		{engine.RetryOn{Statuses: []int{500, 503}, Connection: true}, "connect-failure,500,503"},
		{engine.RetryOn{Connection: true}, ""},
	} {
		var n notes
		if got := istioRetryOnFor(&n, &tc.ro); got != tc.want {
			t.Errorf("%+v written as %q, want %q", tc.ro, got, tc.want)
		}
		if len(n.list) > 0 {
			t.Errorf("%+v: notes %v", tc.ro, n.list)
		}
	}
}

// TestIstioExportNotes: what Istio cannot express is a warning naming it.
func TestIstioExportNotes(t *testing.T) {
	st := engine.Strategy{Name: "x", Policy: engine.Policy{MaxAttempts: 0,
		Backoff: engine.Backoff{Kind: engine.BackoffConstant, Base: engine.Duration(1e8)},
		Budget:  &engine.Budget{Kind: engine.BudgetRatio, Ratio: 0.1},
		Breaker: &engine.Breaker{Kind: engine.BreakerConsecutive, Failures: 5, Break: engine.Duration(1e9)}}}
	_, ns, err := Export(Istio, st)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ns)
	for _, path := range []string{`"max_attempts"`, `"backoff"`, `"budget"`, `"breaker"`} {
		if !strings.Contains(string(b), `"path":`+path+`,"level":"warning"`) {
			t.Errorf("no warning on %s: %s", path, b)
		}
	}
}

// TestIstioMaxRetriesZero: Istio treats maxRetries 0 as not set, so it
// is no budget; a budget of 0 retries is not written as 0.
func TestIstioMaxRetriesZero(t *testing.T) {
	im, err := Import(Istio, []byte(`{kind: DestinationRule, apiVersion: networking.istio.io/v1, spec: {host: a, trafficPolicy: {connectionPool: {http: {maxRetries: 0}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b := im.Strategies[0].Budget; b != nil {
		t.Errorf("maxRetries 0 imported as %s", indent(b))
	}
	out, ns, _ := Export(Istio, engine.Strategy{Name: "a", Policy: engine.Policy{MaxAttempts: 2,
		Budget: &engine.Budget{Kind: engine.BudgetConcurrency, ShareOf: engine.ShareAttempts}}})
	if strings.Contains(string(out), "maxRetries") || !strings.Contains(indentString(ns), `"path": "budget"`) {
		t.Errorf("a budget of no retries is written:\n%s%v", out, ns)
	}
}

func indentString(v any) string { return string(indent(v)) }

// TestIstioRetriesTooDeep: retries indented under a destination are named,
// not dropped while Istio's default policy is imported.
func TestIstioRetriesTooDeep(t *testing.T) {
	doc := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: inv}
spec:
  hosts: [inv]
  http:
  - route:
    - destination: {host: inv}
      retries: {attempts: 5, retryOn: 5xx}
`
	im, err := Import(Istio, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range im.Notes {
		if n.Path == "spec.http[0].route[0].retries" && n.Level == Warning && strings.Contains(n.Message, "belongs to the http route") {
			return
		}
	}
	t.Errorf("no warning on spec.http[0].route[0].retries; notes: %v", im.Notes)
}

// TestIstioMisspeltPoolField: a misspelt connectionPool.http field is
// named as not a field, not as a pool limit RetryLab does not simulate.
func TestIstioMisspeltPoolField(t *testing.T) {
	doc := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: inv}
spec:
  hosts: [inv]
  http:
  - route:
    - destination: {host: inv}
    retries: {attempts: 2, retryOn: 5xx}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: inv}
spec:
  host: inv
  trafficPolicy:
    connectionPool:
      http: {maxRetires: 3}
`
	im, err := Import(Istio, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range im.Notes {
		if strings.HasSuffix(n.Path, "connectionPool.http.maxRetires") {
			if !strings.Contains(n.Message, "is not a field of Istio's connectionPool.http") {
				t.Errorf("note %s", n)
			}
			return
		}
	}
	t.Errorf("no note on maxRetires: %v", im.Notes)
}

// TestIstioLongNamesAndNamedErrors: a VirtualService and route named as
// generators name them, together over a strategy name's limit, import
// with the name cut and a note saying so, into a valid scenario; an
// error names the document's metadata.name, which a stream of documents
// names better than its index.
func TestIstioLongNamesAndNamedErrors(t *testing.T) {
	long := strings.Repeat("reviews-v2-", 8) + "canary"
	doc := func(perTry string) string {
		return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: " + long + "\nspec:\n  hosts: [reviews]\n  http:\n  - name: " + long + "-route\n    route:\n    - destination:\n        host: reviews\n    retries:\n      attempts: 3\n      perTryTimeout: " + perTry + "\n"
	}
	im, err := Import(Istio, []byte(doc("1s")))
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(im.Strategies[0].Name); n > engine.MaxStrategyName {
		t.Errorf("name of %d characters", n)
	}
	cut := false
	for _, n := range im.Notes {
		cut = cut || strings.Contains(n.Message, "characters long: cut to")
	}
	if !cut {
		t.Errorf("no note on the cut name: %v", im.Notes)
	}
	if _, err := scenarios.Imported(im.Strategies, Istio, "reviews.yaml"); err != nil {
		t.Errorf("the imported name makes an invalid scenario: %v", err)
	}
	_, err = Import(Istio, []byte(doc("40d")))
	if err == nil || !strings.Contains(err.Error(), `in VirtualService "`+long+`"`) {
		t.Errorf("error %v does not name the VirtualService", err)
	}
}

// TestIstioZeroesAndUpgrades: an HTTP/2 upgrade leaves only
// http2MaxRequests simulated, whichever HTTP/1 limit is set beside it;
// outlier counts of 0 turn nothing on (consecutiveErrors: 0 does not turn
// consecutive 5xx ejection off).
func TestIstioZeroesAndUpgrades(t *testing.T) {
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: inv}\nspec:\n  hosts: [inv]\n  http:\n  - route:\n    - destination: {host: inv}\n    retries: {attempts: 2, retryOn: 5xx}\n---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: inv}\nspec:\n  host: inv\n  trafficPolicy:\n"
	for _, pool := range []string{
		"{http: {h2UpgradePolicy: UPGRADE, http1MaxPendingRequests: 5, http2MaxRequests: 10}}",
		"{tcp: {maxConnections: 5}, http: {h2UpgradePolicy: UPGRADE, http2MaxRequests: 10}}",
	} {
		im, err := Import(Istio, []byte(vs+"    connectionPool: "+pool+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := im.Strategies[0].ConnectionLimits, (&engine.ConnectionLimits{MaxRequests: 10}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: connection_limits %+v; want %+v", pool, got, want)
		}
		if !strings.Contains(fmt.Sprint(im.Notes), "only http2MaxRequests is simulated") {
			t.Errorf("%s: no note on the upgrade: %v", pool, im.Notes)
		}
	}
	im, err := Import(Istio, []byte(vs+"    outlierDetection: {consecutiveErrors: 0, consecutiveGatewayErrors: 0, consecutive5xxErrors: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	if got, want := im.Backends.OutlierDetection, (&engine.OutlierDetection{Consecutive5xx: 3, MinHealthPercent: &zero}); !reflect.DeepEqual(got, want) {
		t.Errorf("outlier_detection %s; want %s", indent(got), indent(want))
	}
	if s := fmt.Sprint(im.Notes); strings.Contains(s, "consecutiveErrors") {
		t.Errorf("a note on consecutiveErrors: 0: %s", s)
	}
}

// TestIstioRetriesNothing: a retryOn that retries none of the failures
// RetryLab simulates is warned about; one that retries a status code, a
// status range or a connection error is not.
func TestIstioRetriesNothing(t *testing.T) {
	for _, tc := range []struct {
		retryOn string
		nothing bool
	}{
		{"503", false},
		{"retriable-4xx", false},
		{"5xx", false},
		{"connect-failure", false},
		{"retriable-status-codes,503", false},
		{"retriable-status-codes", true},
		{"retriable-headers", true},
	} {
		im, err := Import(Istio, []byte(`{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{retries: {attempts: 2, retryOn: "`+tc.retryOn+`"}}]}}`))
		if err != nil {
			t.Fatalf("retryOn %q: %v", tc.retryOn, err)
		}
		warned := false
		for _, n := range im.Notes {
			warned = warned || n.Level == Warning && n.Path == "spec.http[0].retries.retryOn" && n.Message == "retries nothing RetryLab simulates"
		}
		if warned != tc.nothing {
			t.Errorf("retryOn %q: warned it retries nothing %v, want %v: %v", tc.retryOn, warned, tc.nothing, im.Notes)
		}
	}
}

// TestIstioExportOneAttempt: a policy of one attempt is written as
// attempts 0 with no retryOn, and no note on a retry_on it never uses;
// one of two attempts has its retryOn.
func TestIstioExportOneAttempt(t *testing.T) {
	for _, tc := range []struct {
		attempts int
		ro       engine.RetryOn
		want     string // "" for no retryOn
	}{
		{1, engine.RetryOn{Statuses: []int{503}}, ""},
		{1, engine.RetryOn{}, ""},
		{2, engine.RetryOn{Statuses: []int{503}}, "retryOn: \"503\""},
		{2, engine.RetryOn{}, "retryOn: connect-failure"},
	} {
		out, ns, err := Export(Istio, engine.Strategy{Name: "a", Policy: engine.Policy{MaxAttempts: tc.attempts, RetryOn: &tc.ro}})
		if err != nil {
			t.Fatal(err)
		}
		y := string(out)
		if !strings.Contains(y, fmt.Sprintf("attempts: %d\n", tc.attempts-1)) || tc.want == "" && strings.Contains(y, "retryOn") || tc.want != "" && !strings.Contains(y, tc.want) {
			t.Errorf("max_attempts %d, retry_on %+v: want attempts %d and %q in\n%s", tc.attempts, tc.ro, tc.attempts-1, tc.want, y)
		}
		for _, n := range ns {
			if n.Path == "retry_on" && tc.want == "" {
				t.Errorf("max_attempts %d, retry_on %+v: %s", tc.attempts, tc.ro, n)
			}
		}
	}
}
