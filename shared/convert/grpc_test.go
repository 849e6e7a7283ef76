package convert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// exportedGRPC exports st and decodes the export's first method config.
func exportedGRPC(t *testing.T, st engine.Strategy) (grpcMethodConfig, []Note) {
	t.Helper()
	out, notes, err := Export(GRPC, st)
	if err != nil {
		t.Fatal(err)
	}
	var cfg grpcConfig
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return cfg.MethodConfig[0], notes
}

// noteAt returns the first note at path, if any.
func noteAt(notes []Note, path string) (Note, bool) {
	i := slices.IndexFunc(notes, func(n Note) bool { return n.Path == path })
	if i < 0 {
		return Note{}, false
	}
	return notes[i], true
}

// TestGRPCExportName: a strategy's name is a gRPC name only when it is
// one as Import writes it (package.Service, package.Service/Method, "all
// methods"); a label applies the config to every method, with an info.
func TestGRPCExportName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want grpcName
		info bool
	}{
		{"shop.Cart", grpcName{Service: "shop.Cart"}, false},
		{"shop.Cart/Add", grpcName{Service: "shop.Cart", Method: "Add"}, false},
		{"grpc.examples.echo.Echo", grpcName{Service: "grpc.examples.echo.Echo"}, false},
		{"all methods", grpcName{}, false},
		{"C", grpcName{}, true},
		{"C (search 1)", grpcName{}, true},
		{"Greeter", grpcName{}, true},
		{"EchoService/Echo", grpcName{Service: "EchoService", Method: "Echo"}, false},
		{"EchoService/*", grpcName{Service: "EchoService"}, false},
		{"shop.Cart/*", grpcName{Service: "shop.Cart"}, false},
		{"Cart/", grpcName{}, true},
		{"shop.Cart/", grpcName{}, true},
		{"shop.Cart/Add/x", grpcName{}, true},
		{"shop..Cart", grpcName{}, true},
		// An identifier has letters, digits and _, and starts with no digit.
		{"Zz.a_09/Az_9", grpcName{Service: "Zz.a_09", Method: "Az_9"}, false},
		{"shop.0Cart", grpcName{}, true},
		{"shop.9Cart", grpcName{}, true},
		{"shop.Cart/9", grpcName{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := engine.Strategy{Name: tc.name, Policy: engine.Policy{MaxAttempts: 1}}
			mc, notes := exportedGRPC(t, st)
			if len(mc.Name) != 1 || mc.Name[0] != tc.want {
				t.Errorf("name %+v, want [%+v]", mc.Name, tc.want)
			}
			n, ok := noteAt(notes, "name")
			if ok != tc.info || ok && (n.Level != Info || !strings.Contains(n.Message, `{"service": "package.Service"}`)) {
				t.Errorf("note %v (found %v), want an info saying how to name a service: %v", n, ok, tc.info)
			}
		})
	}
}

// TestGRPCRoundTripNames: a real service config's method configs export
// again with the service (and method) they were imported from.
func TestGRPCRoundTripNames(t *testing.T) {
	for _, file := range []string{"grpc-go-example.json", "grpc-mixed.json", "grpc-a6-retry.json", "grpc-a6-hedging.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "import", file))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ MethodConfig []struct{ Name []grpcName } }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		im, err := Import(GRPC, data)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range im.Strategies {
			mc, _ := exportedGRPC(t, st)
			if want := doc.MethodConfig[i].Name; !reflect.DeepEqual(mc.Name, want) {
				t.Errorf("%s: methodConfig[%d] (%q) exports as %+v, imported from %+v", file, i, st.Name, mc.Name, want)
			}
		}
	}
	// A service without a package, and several names in one method
	// config, export as they were written.
	doc := `{"methodConfig": [{"name": [{"service": "EchoService"}, {"service": "shop.Cart", "method": "Add"}, {"service": "shop.Orders"}],
		"retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`
	im, err := Import(GRPC, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	mc, notes := exportedGRPC(t, im.Strategies[0])
	want := []grpcName{{Service: "EchoService"}, {Service: "shop.Cart", Method: "Add"}, {Service: "shop.Orders"}}
	if !reflect.DeepEqual(mc.Name, want) {
		t.Errorf("%q exports as %+v; want %+v (%v)", im.Strategies[0].Name, mc.Name, want, notes)
	}
}

// TestGRPCExportTimeout: retry_on.timeout (a timed-out attempt) is not
// exported, while 504 is DEADLINE_EXCEEDED, a server's answer gRPC
// retries when listed (gRFC A6); the note says which the list holds.
func TestGRPCExportTimeout(t *testing.T) {
	for _, tc := range []struct {
		desc     string
		retryOn  engine.RetryOn
		listed   bool
		noteWord string
	}{
		{"504 and timeouts", engine.RetryOn{Statuses: []int{429, 503, 504}, Timeout: true, Connection: true}, true, "only a server's answer"},
		{"timeouts without 504", engine.RetryOn{Statuses: []int{503}, Timeout: true, Connection: true}, false, "not listed either"},
		{"504 without timeouts", engine.RetryOn{Statuses: []int{503, 504}, Connection: true}, true, ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			st := engine.Strategy{Name: "shop.Cart", Policy: engine.Policy{MaxAttempts: 3, RetryOn: &tc.retryOn,
				Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1e8, Multiplier: 2, Max: 1e9}}}
			mc, notes := exportedGRPC(t, st)
			if got := slices.Contains(mc.RetryPolicy.RetryableStatusCodes, "DEADLINE_EXCEEDED"); got != tc.listed {
				t.Errorf("DEADLINE_EXCEEDED listed: %v, want %v (%v)", got, tc.listed, mc.RetryPolicy.RetryableStatusCodes)
			}
			n, ok := noteAt(notes, "retry_on.timeout")
			switch {
			case tc.noteWord == "" && ok:
				t.Errorf("unexpected note %v", n)
			case tc.noteWord != "" && (!ok || n.Level != Warning || !strings.Contains(n.Message, tc.noteWord) || !strings.Contains(n.Message, "DEADLINE_EXCEEDED")):
				t.Errorf("note %v (found %v), want a warning saying %q about DEADLINE_EXCEEDED", n, ok, tc.noteWord)
			}
			for _, n := range notes {
				if strings.Contains(n.Message, "retrying timeouts is not exported") {
					t.Errorf("note %v says timeouts are not exported without saying what DEADLINE_EXCEEDED does", n)
				}
			}
		})
	}
}

// TestGRPCBasedOn: an imported retryPolicy is labelled with the preset of
// what the service config has, grpc-retry-throttling with retryThrottling
// and grpc-retry without (never throttling where the config has none), and
// either is searched within gRPC's limits.
func TestGRPCBasedOn(t *testing.T) {
	const method = `{"methodConfig": [{"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]`
	for doc, want := range map[string]string{
		method + `}`: "grpc-retry",
		method + `, "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`: "grpc-retry-throttling",
	} {
		im, err := Import(GRPC, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		st := im.Strategies[0]
		if st.BasedOn != want || (st.Budget != nil) != (want == "grpc-retry-throttling") {
			t.Errorf("%s: based_on %q, budget %v; want %q", doc, st.BasedOn, st.Budget, want)
		}
		sc := &engine.Scenario{Strategies: []engine.Strategy{st}}
		if got := engine.DefaultSearchFor(sc, st.Name); got.Within != "grpc" {
			t.Errorf("%s: searched within %q, want grpc", want, got.Within)
		}
	}
}

// TestGRPCLimitsAtTheirEdges: each range the importer checks accepts the
// value at its edge and refuses the one beyond, naming field and range.
func TestGRPCLimitsAtTheirEdges(t *testing.T) {
	retry := func(fields string) string {
		return `{"methodConfig": [{"name": [{"service": "s.S"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]` + fields + `}}]}`
	}
	throttled := func(maxTokens, ratio string) string {
		return `{"methodConfig": [{"name": [{"service": "s.S"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": ` + maxTokens + `, "tokenRatio": ` + ratio + `}}`
	}
	for _, tc := range []struct {
		doc   string
		check func(p engine.Policy) bool // nil: refused
		want  string                     // the error, or a note that must not be there
	}{
		{throttled("1000", "1e9"), func(p engine.Policy) bool { return p.Budget.MaxTokens == 1000 && p.Budget.TokenRatio == 1e9 }, "retryThrottling"},
		{throttled("1000.5", "0.1"), nil, `retryThrottling.maxTokens: 1000.5 is out of range; grpc-go allows maxTokens in (0, 1000]`},
		{throttled("0", "0.1"), nil, `retryThrottling.maxTokens: 0 is out of range`},
		{throttled("10", "0"), nil, `retryThrottling.tokenRatio: 0 is out of range; grpc-go requires a tokenRatio above 0 (RetryLab up to 1e9)`},
		{throttled("10", "1.000001e9"), nil, `retryThrottling.tokenRatio: 1.000001e9 is out of range`},
		{strings.Replace(retry(""), `"maxAttempts": 3`, `"maxAttempts": 5`, 1), func(p engine.Policy) bool { return p.MaxAttempts == 5 }, "maxAttempts"},
		{strings.Replace(retry(""), `"backoffMultiplier": 2`, `"backoffMultiplier": 1`, 1), func(p engine.Policy) bool { return p.Backoff.Multiplier == 1 }, ""},
		{strings.Replace(retry(""), `"backoffMultiplier": 2`, `"backoffMultiplier": 100`, 1), func(p engine.Policy) bool { return p.Backoff.Multiplier == 100 }, ""},
		{strings.Replace(retry(""), `"backoffMultiplier": 2`, `"backoffMultiplier": 0.99`, 1), nil, `retryPolicy.backoffMultiplier: 0.99 is out of range; RetryLab's exponential backoff allows a multiplier from 1 to 100`},
		{strings.Replace(retry(""), `"backoffMultiplier": 2`, `"backoffMultiplier": 100.5`, 1), nil, `retryPolicy.backoffMultiplier: 100.5 is out of range`},
		{strings.Replace(retry(""), `"initialBackoff": "1s"`, `"initialBackoff": "0s"`, 1), nil, `retryPolicy.initialBackoff: "0s" is not above 0; grpc-go requires it above 0`},
		{strings.Replace(retry(""), `"maxBackoff": "2s"`, `"maxBackoff": "1s"`, 1), func(p engine.Policy) bool { return p.Backoff.Base == 1e9 && p.Backoff.Max == 1e9 }, "below initialBackoff"},
	} {
		im, err := Import(GRPC, []byte(tc.doc))
		switch {
		case tc.check == nil:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, tc.want)
			}
		case err != nil:
			t.Errorf("Import(%s): %v", tc.doc, err)
		case !tc.check(im.Strategies[0].Policy):
			t.Errorf("Import(%s) =\n%s", tc.doc, indent(im.Strategies[0]))
		default:
			for _, n := range im.Notes {
				if tc.want != "" && strings.Contains(n.String(), tc.want) {
					t.Errorf("Import(%s): %s", tc.doc, n)
				}
			}
		}
	}
}

// TestGRPCExportEdges: what gRPC's service config expresses is written
// without a warning on it; what it cannot is warned about by field.
func TestGRPCExportEdges(t *testing.T) {
	retrying := func(f func(p *engine.Policy)) engine.Policy {
		p := engine.Policy{MaxAttempts: 3, Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1e8, Multiplier: 2, Max: 1e9},
			Jitter: engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.2}, HonorRetryAfter: true,
			RetryAfter: &engine.RetryAfterUse{Mode: engine.RetryAfterReplaceAndReset}, RetryOn: &engine.RetryOn{Statuses: []int{503}}}
		f(&p)
		return p
	}
	bucket := func(maxTokens, ratio, threshold float64) *engine.Budget {
		return &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: maxTokens, TokenRatio: ratio, Threshold: threshold}
	}
	for _, tc := range []struct {
		pol    engine.Policy
		path   string // a warning on it, or none when quiet
		quiet  bool
		output string // in the export
	}{
		{retrying(func(p *engine.Policy) { p.MaxAttempts = 5 }), "max_attempts", true, `"maxAttempts": 5`},
		{retrying(func(p *engine.Policy) { p.MaxAttempts = 6 }), "max_attempts", false, ""},
		{retrying(func(p *engine.Policy) { p.Budget = bucket(1000, 0.1, 500) }), "budget.max_tokens", true, `"maxTokens": 1000`},
		{retrying(func(p *engine.Policy) { p.Budget = bucket(1001, 0.1, 0) }), "budget.max_tokens", false, `"maxTokens": 1000`},
		// gRPC's threshold is maxTokens/2: saying so exactly is no loss.
		{retrying(func(p *engine.Policy) { p.Budget = bucket(10, 0.1, 5) }), "budget.threshold", true, `"maxTokens": 10`},
		{retrying(func(p *engine.Policy) { p.Budget = bucket(10, 0.1, 4) }), "budget.threshold", false, ""},
		{retrying(func(p *engine.Policy) { p.RetryAfter.Statuses = []int{503} }), "retry_after", false, ""},
		{retrying(func(p *engine.Policy) {}), "retry_after", true, `"retryPolicy"`},
		// One attempt: no retryPolicy, and so no retryThrottling to
		// write a budget in.
		{engine.Policy{MaxAttempts: 1}, "budget", true, `"methodConfig"`},
		{engine.Policy{MaxAttempts: 1, Budget: bucket(10, 0.1, 0)}, "budget", false, ""},
		{engine.Policy{MaxAttempts: 2, Hedging: &engine.Hedging{}}, "", true, `"hedgingPolicy"`},
	} {
		out, ns, err := Export(GRPC, engine.Strategy{Name: "s.S", Policy: tc.pol})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, n := range ns {
			warned = warned || tc.path != "" && n.Level == Warning && n.Path == tc.path
		}
		if tc.path != "" && warned == tc.quiet {
			t.Errorf("%s: a warning on %s is %v; want %v: %v", indent(tc.pol), tc.path, warned, !tc.quiet, ns)
		}
		if !strings.Contains(string(out), tc.output) {
			t.Errorf("%s: written without %s:\n%s", indent(tc.pol), tc.output, out)
		}
		if tc.pol.Hedging != nil && strings.Contains(string(out), "hedgingDelay") {
			t.Errorf("a hedging delay of 0 is written:\n%s", out)
		}
	}
}
