package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/internal/golden"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// formatOf returns the format of a testdata file: its name's first word.
func formatOf(name string) string {
	f, _, _ := strings.Cut(filepath.Base(name), "-")
	return f
}

// validate checks that the strategies run in a scenario.
func validate(t testing.TB, sts []engine.Strategy) {
	t.Helper()
	validateWith(t, sts, nil)
}

// validateWith is validate with backends b (nil: none) on the dependency.
func validateWith(t testing.TB, sts []engine.Strategy, b *engine.Backends) {
	t.Helper()
	sc := &engine.Scenario{
		Version:  engine.Version,
		Name:     "imported",
		Workload: engine.Workload{Clients: 1, Rate: 1, Duration: engine.Duration(1e9)},
		Dependency: engine.Dependency{Workers: 1, QueueCapacity: 1,
			ServiceTime: engine.Distribution{Kind: engine.ServiceConstant, Mean: engine.Duration(1e6)}},
		Strategies: sts,
	}
	sc.Dependency.Backends = b
	if err := sc.Validate(); err != nil {
		t.Errorf("the imported strategies do not validate:\n%v", err)
	}
}

func indent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// TestImportGolden imports every document of testdata/import: the
// strategies and notes, or the errors of a bad-* document, are kept in
// testdata/golden/import.
func TestImportGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/import/*")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata/import files", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		if !slices.Contains(ImportFormats, formatOf(name)) {
			continue // README.md
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			im, err := Import(formatOf(name), data)
			bad := strings.Contains(name, "-bad")
			var got []byte
			switch {
			case err != nil && bad:
				got = []byte("error:\n" + err.Error() + "\n")
			case err != nil:
				t.Fatal(err)
			case bad:
				t.Fatalf("a bad document was imported: %s", indent(im))
			default:
				validateWith(t, im.Strategies, im.Backends)
				got = indent(im)
			}
			golden.Check(t, filepath.Join("testdata", "golden", "import", name+".golden"), got)
		})
	}
}

// TestImportErrorsNamePaths: every error names a path (or the document),
// a value and what is allowed, as the engine's validation errors do.
func TestImportErrorsNamePaths(t *testing.T) {
	for _, tc := range []struct {
		format, doc, want string
	}{
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
			`methodConfig[0].retryPolicy.initialBackoff: "1" is not a duration`},
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["Unavailable"]}}]}`,
			`methodConfig[0].retryPolicy.retryableStatusCodes[0]: "Unavailable" is not a gRPC status code; allowed`},
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": []}, "hedgingPolicy": {"maxAttempts": 2}}]}`,
			`methodConfig[0].hedgingPolicy: an object is given together with retryPolicy`},
		{GRPC, `{"methodConfig": [}`, `the document is not JSON`},
		// The position is the offending character's, in characters.
		{GRPC, "{\n  \"methodConfig\": ]\n}", `invalid character ']' looking for beginning of value at line 2, column 19`},
		{Polly, `{"Retry": "é", x}`, `at line 1, column 16`},
		{GRPC, "{\"methodConfig\": []}\n  x", `has data after its JSON value, at line 2, column 3`},
		{AWS, "[default]\nmax_attempts = many\n", `[default].max_attempts: "many" is out of range; allowed a whole number from 1 to 100`},
		{AWS, "[default]\nregion = x\n", `the document has no profile setting retry_mode or max_attempts`},
		{Polly, `{"Retry": {"Delay": "00:00:61"}}`, `Retry.Delay: "00:00:61" is not a TimeSpan: hours go to 23`},
		{Polly, `{"Retry": {"UseJitter": "yes"}}`, `Retry.UseJitter: "yes" is not a boolean; allowed true or false`},
		{"yaml", `{}`, `"yaml" is not a format Import reads; allowed "grpc", "envoy", "istio", "linkerd", "resilience4j", "polly", "aws"`},
	} {
		_, err := Import(tc.format, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Import(%s, %s) = %v; want an error containing %q", tc.format, tc.doc, err, tc.want)
		}
	}
}

// presetStrategies returns every preset of shared/scenarios as a strategy.
func presetStrategies(t testing.TB) []engine.Strategy {
	var sts []engine.Strategy
	for _, p := range scenarios.Presets() {
		st := engine.Strategy{Name: p.Name}
		if err := json.Unmarshal(p.Policy, &st.Policy); err != nil {
			t.Fatalf("preset %s: %v", p.Name, err)
		}
		st.BasedOn = p.Name
		sts = append(sts, st)
	}
	return sts
}

// exportExt is each export format's file extension, for the goldens; a
// format's own test file adds it in its init.
var exportExt = map[string]string{GRPC: "json", AWS: "ini", Polly: "json", FailsafeGo: "go", Cenkalti: "go"}

// roundTrips are the generators of random policies each format expresses
// exactly, for TestRoundTrip; a format's own test file adds its own.
var roundTrips = map[string]func(*rand.Rand) engine.Strategy{GRPC: randomGRPC, AWS: randomAWS, Polly: randomPolly}

// lossless are the samples of testdata/import that export again without a
// warning, for TestSamplesWithoutLoss; a format's test file adds its own.
var lossless = []string{"grpc-a6-retry.json", "grpc-a6-hedging.json", "grpc-go-example.json", "aws-sdkref.ini", "polly-docs.json", "polly-full.json"}

// TestExportGolden exports every library preset to every format; each
// output and its notes are kept in testdata/golden/export.
func TestExportGolden(t *testing.T) {
	for _, st := range presetStrategies(t) {
		for _, f := range ExportFormats {
			t.Run(st.Name+"/"+f, func(t *testing.T) {
				out, notes, err := Export(f, st)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				b.Write(out)
				b.WriteString("\n-- notes --\n")
				for _, n := range notes {
					b.WriteString(n.String() + "\n")
				}
				golden.Check(t, filepath.Join("testdata", "golden", "export", st.Name+"."+f+"."+exportExt[f]+".golden"), []byte(b.String()))
				if exportExt[f] == "go" {
					if fmted, err := format.Source(out); err != nil {
						t.Errorf("the Go code does not parse: %v\n%s", err, out)
					} else if !bytes.Equal(fmted, out) {
						t.Errorf("the Go code is not gofmt'ed; gofmt writes\n%s", fmted)
					}
				}
				if slices.Contains(ImportFormats, f) {
					im, err := Import(f, out)
					if err != nil {
						t.Fatalf("the export does not import: %v\n%s", err, out)
					}
					validateWith(t, im.Strategies, im.Backends)
				}
			})
		}
	}
}

// TestPresetsAsImported: what Import gives for AWS's standard mode and
// the standard resilience handler's defaults is exactly the preset the
// conformance suite compares with the libraries.
func TestPresetsAsImported(t *testing.T) {
	presets := map[string]engine.Policy{}
	for _, st := range presetStrategies(t) {
		presets[st.Name] = st.Policy
	}
	for _, tc := range []struct {
		format, doc, preset string
	}{
		{AWS, "[default]\nretry_mode = standard\n", "aws-standard-2026"},
		{AWS, "[default]\nretry_mode = adaptive\n", "aws-adaptive"},
		{Polly, `{"Retry": {}}`, "ms-standard-resilience"},
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`, "grpc-retry-throttling"},
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`, "grpc-retry"},
	} {
		im, err := Import(tc.format, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		got, want := im.Strategies[0].Policy, presets[tc.preset]
		got.BasedOn = tc.preset
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %q imports as\n%s\nnot as the preset %s\n%s", tc.format, tc.doc, indent(got), tc.preset, indent(want))
		}
	}
}

func ms(r *rand.Rand, lo, hi int) engine.Duration {
	return engine.Duration(int64(lo+r.IntN(hi-lo+1)) * 1e6)
}

// randomGRPC returns a strategy gRPC's service config expresses exactly.
func randomGRPC(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: "shop.Cart/Add"}
	if r.IntN(3) == 0 {
		st.Name = "shop.Cart"
	}
	st.MaxAttempts = 2 + r.IntN(4)
	ro := &engine.RetryOn{}
	for _, s := range []int{400, 401, 403, 404, 409, 429, 499, 500, 501, 503, 504} {
		if r.IntN(3) == 0 {
			ro.Statuses = append(ro.Statuses, s)
			ro.Connection = ro.Connection || s == 503
		}
	}
	if r.IntN(2) == 0 {
		st.Deadline = ms(r, 1, 60000)
	}
	if r.IntN(2) == 0 {
		st.Budget = &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: float64(1 + r.IntN(1000)), TokenRatio: float64(1+r.IntN(1000)) / 1000}
	}
	if r.IntN(4) == 0 {
		st.Hedging = &engine.Hedging{Delay: ms(r, 0, 2000)}
		st.RetryOn = ro
		return st
	}
	if len(ro.Statuses) == 0 {
		ro.Statuses, ro.Connection = []int{503}, true
	}
	st.RetryOn = ro
	base := ms(r, 1, 5000)
	st.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: base, Multiplier: []float64{1, 1.5, 2, 3}[r.IntN(4)], Max: base + ms(r, 0, 60000)}
	st.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.2}
	st.HonorRetryAfter, st.RetryAfter = true, &engine.RetryAfterUse{Mode: engine.RetryAfterReplaceAndReset}
	st.BasedOn = "grpc-retry" // as Import labels a retryPolicy
	if st.Budget != nil {
		st.BasedOn = "grpc-retry-throttling"
	}
	return st
}

// randomAWS returns a strategy the AWS shared config file expresses.
func randomAWS(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: []string{"default", "batch", "prod-eu"}[r.IntN(3)], Policy: awsStandard(1 + r.IntN(engine.MaxAttempts))}
	if r.IntN(2) == 0 {
		st.BasedOn = "aws-adaptive"
		st.RateLimit = &engine.RateLimit{Kind: engine.RateLimitAWSAdaptive}
	}
	return st
}

// randomPolly returns a strategy HttpStandardResilienceOptions express.
func randomPolly(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: "standard resilience", Policy: msStandard()}
	st.MaxAttempts = 2 + r.IntN(engine.MaxAttempts-1)
	if r.IntN(10) == 0 {
		st.MaxAttempts = 0
	}
	kind := []engine.BackoffKind{engine.BackoffConstant, engine.BackoffLinear, engine.BackoffExponential, engine.BackoffNone}[r.IntN(4)]
	st.Backoff, st.Jitter = engine.Backoff{Kind: kind}, engine.Jitter{}
	if kind != engine.BackoffNone {
		st.Backoff.Base = ms(r, 1, 10000)
		if kind == engine.BackoffExponential {
			st.Backoff.Multiplier = 2
		}
		if r.IntN(2) == 0 {
			st.Backoff.Max = st.Backoff.Base + ms(r, 0, 60000)
		}
		if r.IntN(2) == 0 {
			st.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: pollyJitterFlat}
			if kind == engine.BackoffExponential {
				st.Jitter.Fraction = pollyJitterExp
			}
		}
	}
	st.HonorRetryAfter = r.IntN(2) == 0
	st.AttemptTimeout = ms(r, 10, 30000)
	st.Deadline = st.AttemptTimeout + ms(r, 0, 60000)
	st.Breaker.Ratio = float64(1+r.IntN(100)) / 100
	st.Breaker.MinThroughput = 2 + r.IntN(1000)
	st.Breaker.Window = max(2*st.AttemptTimeout, ms(r, 500, 120000))
	st.Breaker.Break = ms(r, 500, 60000)
	return st
}

// TestRoundTrip: for random policies each format expresses exactly,
// Export writes no warning and Import(Export(p)) is p.
func TestRoundTrip(t *testing.T) {
	fs := slices.Sorted(maps.Keys(roundTrips))
	for _, format := range fs {
		tc := struct {
			format string
			gen    func(*rand.Rand) engine.Strategy
		}{format, roundTrips[format]}
		r := rand.New(rand.NewPCG(1, 17))
		for i := range 500 {
			st := tc.gen(r)
			out, notes, err := Export(tc.format, st)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range notes {
				// Hedging warns both ways: grpc-go does not implement it.
				if n.Level == Warning && n.Path != "hedging" {
					t.Fatalf("%s %d: exporting\n%s\nwarned: %s", tc.format, i, indent(st), n)
				}
			}
			im, err := Import(tc.format, out)
			if err != nil {
				t.Fatalf("%s %d: %v\n%s", tc.format, i, err, out)
			}
			if len(im.Strategies) != 1 {
				t.Fatalf("%s %d: %d strategies", tc.format, i, len(im.Strategies))
			}
			if got := im.Strategies[0]; !reflect.DeepEqual(got, st) {
				t.Fatalf("%s %d: Import(Export(p)) differs:\np %s\ngot %s\nexport:\n%s", tc.format, i, indent(st), indent(got), out)
			}
		}
	}
}

// TestSamplesWithoutLoss: the documents written from the projects' docs
// import, their strategies export again without a warning, and the
// export imports to the same strategies.
func TestSamplesWithoutLoss(t *testing.T) {
	for _, name := range lossless {
		data, err := os.ReadFile(filepath.Join("testdata", "import", name))
		if err != nil {
			t.Fatal(err)
		}
		f := formatOf(name)
		im, err := Import(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range im.Strategies {
			out, notes, err := Export(f, st)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range notes {
				// gRPC's hedging and Polly's exponential jitter warn both
				// ways: what the real library does differs from the model.
				if n.Level == Warning && n.Path != "hedging" {
					t.Errorf("%s, %s: the export warns: %s", name, st.Name, n)
				}
			}
			again, err := Import(f, out)
			if err != nil {
				t.Fatalf("%s, %s: %v\n%s", name, st.Name, err, out)
			}
			got := again.Strategies[0]
			got.Name = st.Name
			if !reflect.DeepEqual(got, st) {
				t.Errorf("%s, %s: re-imported as\n%s\nnot\n%s", name, st.Name, indent(got), indent(st))
			}
		}
	}
}

// FuzzImport: any document either fails with errors or imports into
// strategies the engine accepts, each of which exports and imports again.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob("testdata/import/*")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for i, format := range ImportFormats {
			if format == formatOf(path) {
				f.Add(uint8(i), data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		checkImport(t, ImportFormats[int(k)%len(ImportFormats)], data)
	})
}

// checkImport imports data as format: strategies that validate and whose
// export imports again, or an engine.Errors.
func checkImport(t *testing.T, format string, data []byte) {
	im, err := Import(format, data)
	if err != nil {
		if len(engine.AsErrors(err)) == 0 {
			t.Fatalf("the error is not an engine.Errors: %v", err)
		}
		return
	}
	validateWith(t, im.Strategies, im.Backends)
	for _, st := range im.Strategies {
		out, _, err := Export(format, st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Import(format, out); err != nil {
			t.Fatalf("the export of %s does not import: %v\n%s", st.Name, err, out)
		}
	}
}

func TestTimeSpan(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want engine.Duration
	}{
		{"00:00:02", 2e9}, {"00:00:00.5", 5e8}, {"0.02:03:04.0000001", ((2*60+3)*60+4)*1e9 + 100}, {"1.00:00:00", 86400e9},
		{"00:01", 60e9}, {"1", 86400e9},
	} {
		var n notes
		got, ok := parseTimeSpan(&n, "x", tc.in)
		if !ok || got != tc.want {
			t.Errorf("parseTimeSpan(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
		if back, _ := parseTimeSpan(&n, "x", timeSpan(got)); back != got {
			t.Errorf("timeSpan(%v) = %q reads back as %v", got, timeSpan(got), back)
		}
	}
}

func TestGRPCDuration(t *testing.T) {
	for _, d := range []engine.Duration{1, 1e6, 1e9, 1500e6, 3600e9 + 1} {
		var n notes
		if back, ok := parseGRPCDuration(&n, "x", grpcDuration(d)); !ok || back != d {
			t.Errorf("grpcDuration(%v) = %q reads back as %v", d, grpcDuration(d), back)
		}
	}
}

// randomStrategy returns a valid strategy with features of every kind,
// most of which some format cannot express.
func randomStrategy(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: "random"}
	st.MaxAttempts = r.IntN(8)
	kind := engine.BackoffKinds[r.IntN(len(engine.BackoffKinds))]
	st.Backoff = engine.Backoff{Kind: kind}
	if kind != engine.BackoffNone {
		st.Backoff.Base = ms(r, 1, 5000)
		if r.IntN(2) == 0 {
			st.Backoff.Max = st.Backoff.Base + ms(r, 0, 90000)
		}
		if kind == engine.BackoffExponential {
			st.Backoff.Multiplier = []float64{0, 1, 1.5, 2, 3}[r.IntN(5)]
		}
		if r.IntN(4) == 0 {
			st.Backoff.ThrottleBase = ms(r, 1, 2000)
		}
		st.Jitter = engine.Jitter{Kind: engine.JitterKinds[r.IntN(len(engine.JitterKinds))]}
		switch st.Jitter.Kind {
		case engine.JitterProportional:
			st.Jitter.Fraction = float64(r.IntN(100)) / 100
		case engine.JitterAdditive:
			st.Jitter.Amount = ms(r, 1, 1000)
		}
	}
	if r.IntN(3) > 0 {
		st.RetryOn = &engine.RetryOn{Timeout: r.IntN(2) == 0, Connection: r.IntN(2) == 0}
		for _, s := range []int{408, 409, 429, 500, 502, 503, 504} {
			if r.IntN(2) == 0 {
				st.RetryOn.Statuses = append(st.RetryOn.Statuses, s)
			}
		}
		if r.IntN(2) == 0 {
			st.RetryOn.StatusRanges, st.RetryOn.Except = []string{"500-599"}, []int{501}
		}
	}
	if r.IntN(2) == 0 {
		st.HonorRetryAfter = true
		if m := r.IntN(4); m > 0 {
			st.RetryAfter = &engine.RetryAfterUse{Mode: engine.RetryAfterModes[m-1]}
			if r.IntN(2) == 0 {
				st.RetryAfter.Statuses = []int{429, 503}
			}
		}
	}
	for _, d := range []*engine.Duration{&st.AttemptTimeout, &st.Deadline, &st.MaxElapsed} {
		if r.IntN(2) == 0 {
			*d = ms(r, 10, 60000)
		}
	}
	switch r.IntN(4) {
	case 1:
		st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, Ratio: 0.2, MinConcurrency: r.IntN(5)}
	case 2:
		st.Budget = &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: float64(r.IntN(2000) + 1), TokenRatio: float64(r.IntN(2000)) / 1000}
	case 3:
		st.Budget = &engine.Budget{Kind: engine.BudgetRatio, Ratio: 0.1}
	}
	br := &engine.Breaker{Break: ms(r, 500, 60000), HalfOpenCalls: r.IntN(4)}
	if br.HalfOpenCalls > 1 {
		br.HalfOpenFailures = 1 + r.IntN(br.HalfOpenCalls)
	}
	if r.IntN(2) == 0 {
		br.Placement = engine.PlaceOutside
	}
	switch r.IntN(5) {
	case 1:
		br.Kind, br.Failures = engine.BreakerConsecutive, 1+r.IntN(10)
		st.Breaker = br
	case 2:
		br.Kind, br.WindowCalls, br.MinThroughput, br.Failures = engine.BreakerRatio, 10, 1, 1+r.IntN(10)
		st.Breaker = br
	case 3:
		br.Kind, br.Ratio, br.MinThroughput, br.Window = engine.BreakerRatio, 0.5, 1+r.IntN(100), ms(r, 1000, 60000)
		st.Breaker = br
	case 4:
		br.Kind, br.Ratio, br.MinThroughput, br.WindowCalls = engine.BreakerRatio, 0.5, 1+r.IntN(10), 10
		st.Breaker = br
	}
	if r.IntN(8) == 0 {
		st.Layers = []engine.Policy{{MaxAttempts: 2}}
	}
	if r.IntN(8) == 0 {
		st.Pool = &engine.Pool{Slots: 10}
	}
	if r.IntN(8) == 0 && st.Breaker == nil && st.Budget == nil && st.MaxAttempts > 1 {
		st.Backoff, st.Jitter, st.HonorRetryAfter, st.RetryAfter, st.MaxElapsed = engine.Backoff{}, engine.Jitter{}, false, nil, 0
		st.Hedging = &engine.Hedging{Delay: ms(r, 0, 1000)}
	}
	return st
}

// TestExportAnyStrategy: every format exports any valid strategy, with
// a warning for each feature of it the format cannot express; the
// documents import again, and the Go code is gofmt'ed.
func TestExportAnyStrategy(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 17))
	for i := range 300 {
		st := randomStrategy(r)
		validate(t, []engine.Strategy{st})
		for _, f := range ExportFormats {
			out, notes, err := Export(f, st)
			if err != nil {
				t.Fatal(err)
			}
			warned := map[string]bool{}
			for _, n := range notes {
				if n.Level == Warning {
					field, _, _ := strings.Cut(n.Path, ".")
					warned[field] = true
				}
			}
			for _, feature := range []struct {
				field string
				set   bool
			}{{"layers", len(st.Layers) > 0}, {"pool", st.Pool != nil}} {
				if feature.set && !warned[feature.field] {
					t.Errorf("%d, %s: %s is not exported and not warned about", i, f, feature.field)
				}
			}
			if st.Breaker != nil && f != Polly && f != PollyCSharp && f != FailsafeGo && !warned["breaker"] {
				t.Errorf("%d, %s: the breaker is not warned about", i, f)
			}
			switch {
			case exportExt[f] == "go":
				if fmted, err := format.Source(out); err != nil || !bytes.Equal(fmted, out) {
					t.Fatalf("%d, %s: the Go code is not gofmt'ed (%v):\n%s\ngofmt:\n%s", i, f, err, out, fmted)
				}
			case slices.Contains(ImportFormats, f):
				if _, err := Import(f, out); err != nil {
					t.Fatalf("%d, %s: the export does not import: %v\n%s", i, f, err, out)
				}
			}
		}
	}
}

// TestImportTooManyPolicies: a configuration with more policies than a
// scenario compares is refused with the configuration's path, not with
// the path of a scenario the user has not seen.
func TestImportTooManyPolicies(t *testing.T) {
	var mc []string
	for i := range engine.MaxStrategies + 1 {
		// Different policies: identical ones would be one strategy.
		mc = append(mc, fmt.Sprintf(`{"name": [{"service": "s%d"}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "0.%02ds", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}`, i, i+1))
	}
	im, err := Import(GRPC, []byte(`{"methodConfig": [`+strings.Join(mc[:engine.MaxStrategies], ",")+`]}`))
	if err != nil || len(im.Strategies) != engine.MaxStrategies {
		t.Fatalf("%d policies: %v; want as many strategies", engine.MaxStrategies, err)
	}
	_, err = Import(GRPC, []byte(`{"methodConfig": [`+strings.Join(mc, ",")+`]}`))
	es := engine.AsErrors(err)
	if len(es) != 1 || es[0].Path != "methodConfig" || !strings.Contains(es[0].Error(), "at most 20 strategies") {
		t.Fatalf("error %v, want one about methodConfig's 21 policies", err)
	}
}

// TestIdenticalRoutesMerged: a generated ServiceProfile or VirtualService
// repeats one policy on more routes than a scenario compares; identical
// policies import as one strategy that lists them, not as a refusal,
// while more than 20 different ones are still refused.
func TestIdenticalRoutesMerged(t *testing.T) {
	var linkerd, istio, mixed strings.Builder
	linkerd.WriteString("apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: api.shop.svc.cluster.local\nspec:\n  routes:\n")
	istio.WriteString("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: api\nspec:\n  hosts: [api]\n  http:\n")
	mixed.WriteString(istio.String())
	for i := range 25 {
		fmt.Fprintf(&linkerd, "  - name: GET /v1/r%d\n    condition:\n      method: GET\n      pathRegex: /v1/r%d\n    isRetryable: true\n    timeout: 1s\n", i, i)
		fmt.Fprintf(&istio, "  - name: r%d\n    route:\n    - destination:\n        host: api\n    retries:\n      attempts: 2\n      retryOn: 5xx\n", i)
		fmt.Fprintf(&mixed, "  - name: r%d\n    route:\n    - destination:\n        host: api\n    retries:\n      attempts: %d\n      retryOn: 5xx\n", i, i%22+1)
	}
	linkerd.WriteString("  - name: POST /v1/orders\n    condition:\n      method: POST\n      pathRegex: /v1/orders\n    isRetryable: true\n    timeout: 3s\n")
	for _, tc := range []struct {
		format, doc string
		want        int
	}{{Linkerd, linkerd.String(), 2}, {Istio, istio.String(), 1}} {
		im, err := Import(tc.format, []byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if len(im.Strategies) != tc.want {
			t.Fatalf("%s: %d strategies; want %d", tc.format, len(im.Strategies), tc.want)
		}
		if name := im.Strategies[0].Name; !strings.HasSuffix(name, "(+24 identical)") {
			t.Errorf("%s: named %q", tc.format, name)
		}
		listed := false
		for _, n := range im.Notes {
			listed = listed || strings.Contains(n.Message, "25 policies are identical") && strings.Contains(n.Message, "r24")
		}
		if !listed {
			t.Errorf("%s: no note listing the routes", tc.format)
		}
	}
	// As many as a scenario compares are kept apart, identical or not.
	var twenty strings.Builder
	twenty.WriteString("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: api\nspec:\n  hosts: [api]\n  http:\n")
	for i := range engine.MaxStrategies {
		fmt.Fprintf(&twenty, "  - name: r%d\n    route:\n    - destination:\n        host: api\n    retries:\n      attempts: 2\n      retryOn: 5xx\n", i)
	}
	if im, err := Import(Istio, []byte(twenty.String())); err != nil || len(im.Strategies) != engine.MaxStrategies {
		t.Errorf("%d identical routes: %v; want as many strategies", engine.MaxStrategies, err)
	}
	if _, err := Import(Istio, []byte(mixed.String())); err == nil || !strings.Contains(err.Error(), "at most 20 strategies") {
		t.Errorf("22 different policies: %v", err)
	}
}
