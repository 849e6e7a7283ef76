package convert

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

func init() {
	exportExt[Envoy] = "yaml"
	roundTrips[Envoy] = randomEnvoy
	lossless = append(lossless, "envoy-docs.yaml", "envoy-xds.json")
}

// randomEnvoy returns a strategy an Envoy route and cluster express
// exactly: whole-millisecond doubling back-off with full jitter, the
// retry_on conditions RetryLab simulates, and a concurrency budget (or
// none, written as max_retries 4294967295).
func randomEnvoy(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: []string{"orders", "/api", "checkout route"}[r.IntN(3)], Policy: envoyRetry()}
	st.MaxAttempts = 1 + r.IntN(engine.MaxAttempts)
	st.Deadline = 0
	if r.IntN(4) > 0 {
		st.Deadline = ms(r, 1, 120000)
	}
	if r.IntN(2) == 0 {
		st.AttemptTimeout = ms(r, 1, 30000)
	}
	base := ms(r, 1, 2000)
	st.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: base, Multiplier: 2, Max: base + ms(r, 0, 30000)}
	ro := &engine.RetryOn{}
	switch r.IntN(4) {
	case 0:
		ro.StatusRanges, ro.Timeout, ro.Connection = []string{"500-599"}, true, true
	case 1:
		ro.Statuses, ro.Timeout, ro.Connection = []int{502, 503, 504}, true, true
	case 2:
		ro.Timeout, ro.Connection = true, true
	case 3:
		ro.Connection = r.IntN(2) == 0
	}
	for _, s := range []int{408, 409, 425, 429, 500, 503} {
		if r.IntN(3) == 0 && (ro.StatusRanges == nil || s < 500) {
			ro.Statuses = append(ro.Statuses, s)
		}
	}
	slices.Sort(ro.Statuses)
	ro.Statuses = slices.Compact(ro.Statuses)
	st.RetryOn = ro
	switch r.IntN(3) {
	case 0:
		st.Budget = nil
	case 1:
		st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: r.IntN(100), ShareOf: engine.ShareAttempts}
	case 2:
		st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, Ratio: float64(1+r.IntN(1000)) / 1000, MinConcurrency: r.IntN(10), ShareOf: engine.ShareAttempts}
		st.BasedOn = "envoy-retry-budget"
	}
	return st
}

// TestEnvoyPresetsAsImported: a route retrying 5xx is the envoy-retry
// preset, and with its cluster's default retry_budget the
// envoy-retry-budget one.
func TestEnvoyPresetsAsImported(t *testing.T) {
	presets := map[string]engine.Policy{}
	for _, st := range presetStrategies(t) {
		presets[st.Name] = st.Policy
	}
	for _, tc := range []struct {
		doc, preset string
	}{
		{"match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx}}\n", "envoy-retry"},
		{"match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx}}\n---\nname: c\ncircuit_breakers: {thresholds: [{retry_budget: {}}]}\n", "envoy-retry-budget"},
	} {
		im, err := Import(Envoy, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		got, want := im.Strategies[0].Policy, presets[tc.preset]
		got.BasedOn = tc.preset
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q imports as\n%s\nnot as the preset %s\n%s", tc.doc, indent(got), tc.preset, indent(want))
		}
	}
}

// TestEnvoyImport checks single readings: retry_on conditions, the
// virtual host's policy overridden by the route's, defaults.
func TestEnvoyImport(t *testing.T) {
	for _, tc := range []struct {
		desc, doc string
		check     func(p engine.Policy) bool
		note      string
	}{
		{"gateway-error", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: gateway-error}}",
			func(p engine.Policy) bool {
				return reflect.DeepEqual(p.RetryOn, &engine.RetryOn{Statuses: []int{502, 503, 504}, Timeout: true, Connection: true})
			}, ""},
		{"retriable-4xx and codes", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 'retriable-4xx,retriable-status-codes', retriable_status_codes: [429, 409]}}",
			func(p engine.Policy) bool {
				return reflect.DeepEqual(p.RetryOn, &engine.RetryOn{Statuses: []int{409, 429}})
			}, ""},
		// 5xx covers the listed 5xx codes: only the others are statuses.
		{"5xx and codes", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: '5xx,retriable-status-codes', retriable_status_codes: [503, 409, 500, 599]}}",
			func(p engine.Policy) bool {
				return reflect.DeepEqual(p.RetryOn.StatusRanges, []string{"500-599"}) && reflect.DeepEqual(p.RetryOn.Statuses, []int{409})
			}, ""},
		// A predicate that is not previous_hosts chooses hosts by what
		// RetryLab's backends lack.
		{"canary hosts", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx, retry_host_predicate: [{name: envoy.retry_host_predicates.canary_hosts}]}}",
			func(p engine.Policy) bool { return p.RetryHostPredicate == "" },
			"route.retry_policy.retry_host_predicate[0]: envoy.retry_host_predicates.canary_hosts chooses hosts by canary status or metadata"},
		// camelCase keys, digits included, are named by their proto names.
		{"camelCase with digits", `{"match": {"prefix": "/"}, "route": {"cluster": "c", "retryPolicy": {"retryOn": "5xx", "numRetries09": 3}}}`,
			func(p engine.Policy) bool { return p.MaxAttempts == 2 },
			"route.retry_policy.num_retries09: is not a RetryPolicy field"},
		{"no retry_on", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {num_retries: 3}}",
			func(p engine.Policy) bool {
				return p.MaxAttempts == 4 && reflect.DeepEqual(p.RetryOn, &engine.RetryOn{})
			},
			"retries nothing"},
		{"route overrides virtual host", "name: v\ndomains: ['*']\nretry_policy: {retry_on: 5xx, num_retries: 7}\nroutes:\n- match: {prefix: /}\n  route: {cluster: c, retry_policy: {retry_on: reset}}",
			func(p engine.Policy) bool {
				return p.MaxAttempts == 2 && reflect.DeepEqual(p.RetryOn, &engine.RetryOn{Timeout: true, Connection: true})
			}, ""},
		{"virtual host's policy", "name: v\ndomains: ['*']\nretry_policy: {retry_on: 5xx, num_retries: 7}\nroutes:\n- match: {prefix: /}\n  route: {cluster: c}",
			func(p engine.Policy) bool { return p.MaxAttempts == 8 }, ""},
		{"max interval default", "match: {prefix: /}\nroute: {cluster: c, timeout: 0s, retry_policy: {retry_on: 5xx, retry_back_off: {base_interval: 0.1s}}}",
			func(p engine.Policy) bool { return p.Backoff.Max == 1e9 && p.Deadline == 0 }, "no deadline"},
		{"max_retries", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx}}\n---\nname: c\ncircuit_breakers: {thresholds: [{max_retries: 7}]}",
			func(p engine.Policy) bool {
				return reflect.DeepEqual(p.Budget, &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: 7, ShareOf: engine.ShareAttempts})
			}, ""},
		{"default threshold", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx}}\n---\nname: c\nconnect_timeout: 1s",
			func(p engine.Policy) bool { return p.Budget != nil && p.Budget.MinConcurrency == 3 }, "max_retries 3"},
		{"rate limited", "match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx, rate_limited_retry_back_off: {reset_headers: [{name: retry-after}]}}}",
			func(p engine.Policy) bool {
				return p.HonorRetryAfter && p.RetryAfter.Mode == engine.RetryAfterReplace
			}, "1.5 times"},
	} {
		im, err := Import(Envoy, []byte(tc.doc))
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		if !tc.check(im.Strategies[0].Policy) {
			t.Errorf("%s: imported as\n%s", tc.desc, indent(im.Strategies[0]))
		}
		if tc.note != "" && !strings.Contains(fmt.Sprint(im.Notes), tc.note) {
			t.Errorf("%s: no note saying %q: %s", tc.desc, tc.note, indent(im.Notes))
		}
	}
}

func TestEnvoyImportErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx, num_retries: 100}}", `route.retry_policy.num_retries: 100 is out of range; allowed a whole number from 0 to 99`},
		{"match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx, retry_back_off: {base_interval: 25ms}}}", `route.retry_policy.retry_back_off.base_interval: "25ms" is not a duration`},
		{"name: c\ncircuit_breakers: {thresholds: [{max_retries: 7}]}", `routes: the document has no route with a retry_policy`},
		{"match: {prefix: /}\nroute: {cluster: c, retry_policy: {retry_on: 5xx}}\n---\n- 1", `[document 2][0]: 1 is not an object; allowed a list of Envoy RouteConfigurations`},
	} {
		_, err := Import(Envoy, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Import(%q) = %v; want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestEnvoyRetryOnExport: what each set of retried outcomes is written as.
func TestEnvoyRetryOnExport(t *testing.T) {
	for _, tc := range []struct {
		ro    *engine.RetryOn
		want  string
		codes []int
	}{
		{nil, "gateway-error,retriable-status-codes", []int{408, 429}},
		{&engine.RetryOn{StatusRanges: []string{"500-599"}, Timeout: true, Connection: true, Statuses: []int{409}}, "5xx,retriable-4xx", nil},
		{&engine.RetryOn{Statuses: []int{503}, Connection: true}, "connect-failure,retriable-status-codes", []int{503}},
		{&engine.RetryOn{}, "", nil},
	} {
		var n notes
		got, codes := envoyRetryOnFor(&n, tc.ro)
		if got != tc.want || !reflect.DeepEqual(codes, tc.codes) {
			t.Errorf("%+v: written as %q %v; want %q %v", tc.ro, got, codes, tc.want, tc.codes)
		}
	}
}

// TestEnvoyNothingDroppedSilently: a retry_policy written beside route:
// instead of in it, and a misspelt field, are named; with no route left
// to import, the error carries them. Envoy's camelCase JSON names read as
// the proto names.
func TestEnvoyNothingDroppedSilently(t *testing.T) {
	misplaced := `virtual_hosts:
- name: orders
  domains: ["*"]
  routes:
  - match: {prefix: /}
    retry_policy: {retry_on: 5xx}
    typo_field: 1
    route: {cluster: orders}
`
	_, err := Import(Envoy, []byte(misplaced))
	for _, want := range []string{
		"virtual_hosts[0].routes[0].retry_policy: is not a field of Envoy's Route",
		"it belongs in the route's route: (RouteAction)",
		"virtual_hosts[0].routes[0].typo_field: is not a field of Envoy's Route",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v; want it to contain %q", err, want)
		}
	}
	camel := `{"virtualHosts": [{"name": "orders", "domains": ["*"], "routes": [{"match": {"prefix": "/"},
		"route": {"cluster": "orders", "timeout": "3s", "retryPolicy": {"retryOn": "5xx", "numRetries": 2, "perTryTimeout": "1s"}}}]}]}`
	im, err := Import(Envoy, []byte(camel))
	if err != nil {
		t.Fatal(err)
	}
	st := im.Strategies[0]
	if st.MaxAttempts != 3 || st.AttemptTimeout != engine.Duration(1e9) || st.Deadline != engine.Duration(3e9) {
		t.Errorf("camelCase config read as max_attempts %d, attempt_timeout %v, deadline %v; want 3, 1s, 3s", st.MaxAttempts, st.AttemptTimeout, st.Deadline)
	}
}

// TestEnvoyExportUncappedBackoff: an exponential backoff with no max is
// written with the longest interval its attempts reach as Envoy's
// max_interval (its default cap, 10 times the base, would shorten it),
// at most a day.
func TestEnvoyExportUncappedBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempts int
		want     string
	}{
		{2, "max_interval: 0.1s\n"},
		{3, "max_interval: 0.2s\n"},
		{5, "max_interval: 0.8s\n"},
		{0, "max_interval: 86400s\n"},
	} {
		out, ns, err := Export(Envoy, engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: tc.attempts,
			Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1e8, Multiplier: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "base_interval: 0.1s\n") || !strings.Contains(string(out), tc.want) || !strings.Contains(fmt.Sprint(ns), "backoff.max") {
			t.Errorf("max_attempts %d: want %q and a note on backoff.max:\n%s%v", tc.attempts, tc.want, out, ns)
		}
	}
}

// TestLinearBackoffCap: linear backoff without a cap is written as a
// doubling one capped where the linear one ends, (attempts-1) × base, in
// Envoy and gRPC; Envoy's note on the exported backends names the first
// and the last endpoint.
func TestLinearBackoffCap(t *testing.T) {
	st := engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: 4,
		Backoff: engine.Backoff{Kind: engine.BackoffLinear, Base: engine.Duration(100e6)}}}
	for _, format := range []string{Envoy, GRPC} {
		_, notes, err := Export(format, st)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range notes {
			found = found || n.Path == "backoff.kind" && strings.Contains(n.Message, "from 100ms capped at 300ms")
		}
		if !found {
			t.Errorf("%s: no note of the cap at 300ms: %v", format, notes)
		}
	}
	_, notes, err := ExportFrom(Envoy, st, &engine.Backends{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range notes {
		found = found || strings.Contains(n.Message, "the cluster's 3 endpoints, dependency-0 to dependency-2:80")
	}
	if !found {
		t.Errorf("no note naming the endpoints: %v", notes)
	}
}
