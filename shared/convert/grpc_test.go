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
