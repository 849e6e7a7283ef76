package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// convertStrategies returns the strategies the converters are checked
// on: every preset of presets.json, and the real-world samples of
// shared/convert/testdata/import as imported.
func convertStrategies(t *testing.T) []engine.Strategy {
	t.Helper()
	var sts []engine.Strategy
	for _, p := range scenarios.Presets() {
		st := engine.Strategy{Name: p.Name}
		if err := json.Unmarshal(p.Policy, &st.Policy); err != nil {
			t.Fatal(err)
		}
		sts = append(sts, st)
	}
	files, err := filepath.Glob("../shared/convert/testdata/import/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		format, _, _ := strings.Cut(name, "-")
		if strings.Contains(name, "-bad") || !slices.Contains(convert.ImportFormats, format) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		im, err := convert.Import(format, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, st := range im.Strategies {
			st.Name = name + ": " + st.Name
			// Each strategy is checked alone, without the document's
			// backends, which its retry host predicate needs: that is
			// checked with them (TestConvertEnvoyBackendsExportParses).
			st.RetryHostPredicate, st.HostSelectionRetryMaxAttempts = "", 0
			sts = append(sts, st)
		}
	}
	return sts
}

// grpcParse has grpc-go parse a service config through its public API:
// a channel whose manual resolver hands it the config, parsed by
// resolver.ClientConn.ParseServiceConfig (the same parseServiceConfig
// that grpc.WithDefaultServiceConfig uses).
func grpcParse(t *testing.T, config string) (*grpc.ServiceConfig, error) {
	t.Helper()
	ccs := make(chan resolver.ClientConn, 1)
	r := manual.NewBuilderWithScheme("convert")
	r.BuildCallback = func(_ resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) { ccs <- cc }
	conn, err := grpc.NewClient("convert:///service", grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Connect()
	var cc resolver.ClientConn
	select {
	case cc = <-ccs:
	case <-time.After(10 * time.Second):
		t.Fatal("grpc-go did not build the resolver")
	}
	pr := cc.ParseServiceConfig(config)
	if pr.Err != nil {
		return nil, pr.Err
	}
	sc, ok := pr.Config.(*grpc.ServiceConfig)
	if !ok {
		t.Fatalf("grpc-go parsed the config into a %T", pr.Config)
	}
	return sc, nil
}

// grpcStatusCode maps a status code name to grpc-go's code.
func grpcStatusCode(t *testing.T, name string) codes.Code {
	var c codes.Code
	if err := c.UnmarshalJSON([]byte(`"` + name + `"`)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConvertGRPCExportParses: every export to a gRPC service config,
// of every preset and imported sample, is accepted by grpc-go's own
// parser (grpc.NewClient with grpc.WithDefaultServiceConfig fails on an
// invalid one), and grpc-go reads from it the values exported: the
// attempts (capped at 5 by grpc-go), backoffs, multiplier, retryable
// codes and timeout.
func TestConvertGRPCExportParses(t *testing.T) {
	for _, st := range convertStrategies(t) {
		out, _, err := convert.Export(convert.GRPC, st)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := grpc.NewClient("localhost:1", grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultServiceConfig(string(out)))
		if err != nil {
			t.Errorf("%s: grpc-go refuses the export: %v\n%s", st.Name, err, out)
			continue
		}
		conn.Close()
		sc, err := grpcParse(t, string(out))
		if err != nil {
			t.Errorf("%s: grpc-go refuses the export: %v\n%s", st.Name, err, out)
			continue
		}
		var doc struct {
			MethodConfig []struct {
				Name        []struct{ Service, Method string }
				Timeout     string
				RetryPolicy *struct {
					MaxAttempts          int
					InitialBackoff       string
					MaxBackoff           string
					BackoffMultiplier    float64
					RetryableStatusCodes []string
				}
			}
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		mcJSON := doc.MethodConfig[0]
		path := ""
		if n := mcJSON.Name[0]; n.Service != "" {
			path = "/" + n.Service + "/" + n.Method
		}
		mc, ok := sc.Methods[path]
		if !ok {
			t.Errorf("%s: grpc-go has no method config for %q", st.Name, path)
			continue
		}
		if st.Deadline > 0 && (mc.Timeout == nil || *mc.Timeout != st.Deadline.D()) {
			t.Errorf("%s: grpc-go reads the timeout as %v, not the deadline %v", st.Name, mc.Timeout, st.Deadline)
		}
		rp := mc.RetryPolicy
		if mcJSON.RetryPolicy == nil {
			if rp != nil {
				t.Errorf("%s: no retryPolicy was exported but grpc-go has one", st.Name)
			}
			continue
		}
		if rp == nil {
			t.Errorf("%s: grpc-go has no retry policy", st.Name)
			continue
		}
		want := min(mcJSON.RetryPolicy.MaxAttempts, 5)
		if st.MaxAttempts > 0 && min(st.MaxAttempts, 5) != want || rp.MaxAttempts != want {
			t.Errorf("%s: grpc-go makes %d attempts; the policy %d (capped at 5)", st.Name, rp.MaxAttempts, st.MaxAttempts)
		}
		if st.Backoff.Kind == engine.BackoffExponential {
			if rp.InitialBackoff != st.Backoff.Base.D() || st.Backoff.Max > 0 && rp.MaxBackoff != st.Backoff.Max.D() ||
				rp.BackoffMultiplier != cmpOrF(st.Backoff.Multiplier, engine.DefaultMultiplier) {
				t.Errorf("%s: grpc-go reads the backoff as %v, %v, x%v; the policy's is %+v", st.Name, rp.InitialBackoff, rp.MaxBackoff, rp.BackoffMultiplier, st.Backoff)
			}
		}
		var got []string
		for c := range rp.RetryableStatusCodes {
			got = append(got, c.String())
		}
		var wantCodes []string
		for _, name := range mcJSON.RetryPolicy.RetryableStatusCodes {
			wantCodes = append(wantCodes, grpcStatusCode(t, name).String())
		}
		slices.Sort(got)
		slices.Sort(wantCodes)
		if !slices.Equal(got, wantCodes) {
			t.Errorf("%s: grpc-go retries %v, the export lists %v", st.Name, got, wantCodes)
		}
	}
}

// TestConvertGRPCInvalidRefused: the parser really refuses what
// isValidRetryPolicy and the throttling checks refuse, so the test above
// would catch an invalid export.
func TestConvertGRPCInvalidRefused(t *testing.T) {
	for _, bad := range []string{
		`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 1, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
		`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": []}}]}`,
		`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "100ms", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
		`{"methodConfig": [], "retryThrottling": {"maxTokens": 5000, "tokenRatio": 0.1}}`,
	} {
		if _, err := grpc.NewClient("localhost:1", grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultServiceConfig(bad)); err == nil {
			t.Errorf("grpc-go accepts %s", bad)
		}
	}
}

func cmpOrF(f, def float64) float64 {
	if f == 0 {
		return def
	}
	return f
}

// policyMap returns the strategy's policy as the map the engine helpers take.
func policyMap(t *testing.T, p engine.Policy) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(mustJSON(p), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// importOne imports a document that holds one strategy.
func importOne(t *testing.T, format, doc string) engine.Policy {
	t.Helper()
	im, err := convert.Import(format, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Strategies) != 1 {
		t.Fatalf("%d strategies imported from %s", len(im.Strategies), doc)
	}
	return im.Strategies[0].Policy
}

// TestConvertGRPCImportBehaves: the very service config a real grpc-go
// client runs in TestGRPCRetryThrottling, imported, gives a policy whose
// attempts match the client's call by call, over scripts of whole calls
// and of per-attempt outcomes.
func TestConvertGRPCImportBehaves(t *testing.T) {
	p := policyMap(t, importOne(t, convert.GRPC, grpcServiceConfig))
	mixed := make([]Call, 300)
	for k := range mixed {
		switch k % 12 {
		case 0, 1, 2, 3, 9:
			mixed[k] = FailAll
		case 6:
			mixed[k] = FailOnce
		}
	}
	lib := grpcRun(t, Scripts(mixed, 503), "")
	eng, _, err := EngineScript(p, 503, mixed)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstDiff(lib, eng); k >= 0 {
		t.Errorf("call %d: grpc-go made %d attempts, the imported policy %d", k, lib[k], eng[k])
	}
	t.Logf("mixed: grpc-go %d attempts, the imported policy %d", sum(lib), sum(eng))

	ok, unavailable, internal := Answer{Status: 200}, Answer{Status: 503}, Answer{Status: 500}
	script := make([]CallScript, 200)
	for k := range script {
		script[k] = [][]Answer{{unavailable, unavailable, ok}, {unavailable, internal}, {internal}, {unavailable}, {ok}}[k%5]
	}
	lib = grpcRun(t, script, "")
	eng, _, err = EngineCalls(p, script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstDiff(lib, eng); k >= 0 {
		t.Errorf("per attempt, call %d (%v): grpc-go made %d attempts, the imported policy %d", k, script[k], lib[k], eng[k])
	}
	t.Logf("per attempt: grpc-go %d attempts, the imported policy %d", sum(lib), sum(eng))
}

// newAWSDriverAttempts is newAWSDriver with max_attempts attempts, as the
// SDK's shared config file's max_attempts sets (StandardOptions.MaxAttempts).
func newAWSDriverAttempts(attempts int) *awsDriver {
	d := &awsDriver{}
	real := retry.NewStandard()
	d.retryer = retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = attempts
		o.Backoff = retry.BackoffDelayerFunc(func(attempt int, err error) (time.Duration, error) {
			w, e := real.RetryDelay(attempt, err)
			d.delays = append(d.delays, w)
			return 0, e
		})
	})
	d.m = retry.NewAttemptMiddleware(d.retryer, func(r interface{}) interface{} { return r })
	return d
}

// TestConvertAWSImportBehaves: shared config files with retry_mode
// standard and max_attempts 3 and 5, imported, give policies whose
// attempts, quota included, match aws-sdk-go-v2's retry middleware with
// that max_attempts, call by call.
func TestConvertAWSImportBehaves(t *testing.T) {
	t.Parallel()
	mixed := make([]Call, 300)
	for k := range mixed {
		switch k % 12 {
		case 0, 1, 2, 3, 9:
			mixed[k] = FailAll
		case 6:
			mixed[k] = FailOnce
		}
	}
	for _, attempts := range []int{3, 5} {
		for _, status := range []int{503, 429} {
			doc := fmt.Sprintf("[default]\nretry_mode = standard\nmax_attempts = %d\n", attempts)
			p := policyMap(t, importOne(t, convert.AWS, doc))
			d := newAWSDriverAttempts(attempts)
			lib := make([]int, len(mixed))
			for k, c := range mixed {
				lib[k] = d.call(awsAnswers(c, status)).attempts
			}
			eng, _, err := EngineScript(p, status, mixed)
			if err != nil {
				t.Fatal(err)
			}
			if k := firstDiff(lib, eng); k >= 0 {
				t.Errorf("max_attempts %d, %d: call %d: aws-sdk-go-v2 made %d attempts, the imported policy %d", attempts, status, k, lib[k], eng[k])
			}
			t.Logf("max_attempts %d, status %d: aws-sdk-go-v2 %d attempts, the imported policy %d", attempts, status, sum(lib), sum(eng))
		}
	}
}

// randomStrategy returns a strategy with random features, valid for the
// engine, for the code exports: backoffs, jitters, retried outcomes,
// Retry-After modes, budgets and breakers of every kind.
func randomStrategy(r *rand.Rand, i int) engine.Strategy {
	d := func(lo, hi int) engine.Duration { return engine.Duration(int64(lo+r.IntN(hi-lo+1)) * 1e6) }
	st := engine.Strategy{Name: fmt.Sprintf("random %d", i)}
	st.MaxAttempts = r.IntN(8)
	kind := engine.BackoffKinds[r.IntN(len(engine.BackoffKinds))]
	st.Backoff = engine.Backoff{Kind: kind}
	if kind != engine.BackoffNone {
		st.Backoff.Base = d(1, 5000)
		if r.IntN(2) == 0 {
			st.Backoff.Max = st.Backoff.Base + d(0, 60000)
		}
		if kind == engine.BackoffExponential {
			st.Backoff.Multiplier = []float64{0, 1.5, 2, 3}[r.IntN(4)]
		}
		jk := engine.JitterKinds[r.IntN(len(engine.JitterKinds))]
		st.Jitter = engine.Jitter{Kind: jk}
		switch jk {
		case engine.JitterProportional:
			st.Jitter.Fraction = float64(r.IntN(100)) / 100
		case engine.JitterAdditive:
			st.Jitter.Amount = d(1, 1000)
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
			st.RetryOn.StatusRanges = []string{"500-599"}
			st.RetryOn.Except = []int{501}
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
	if r.IntN(2) == 0 {
		st.AttemptTimeout = d(10, 10000)
	}
	if r.IntN(2) == 0 {
		st.Deadline = d(1000, 60000)
	}
	if r.IntN(2) == 0 {
		st.MaxElapsed = d(1000, 600000)
	}
	switch r.IntN(4) {
	case 1:
		st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, Ratio: 0.2, MinConcurrency: r.IntN(5)}
	case 2:
		st.Budget = &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.1}
	}
	br := &engine.Breaker{Break: d(500, 60000), HalfOpenCalls: r.IntN(4)}
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
		br.Kind, br.WindowCalls, br.MinThroughput = engine.BreakerRatio, 10, 1
		br.Failures = 1 + r.IntN(10)
		st.Breaker = br
	case 3:
		br.Kind, br.Ratio, br.MinThroughput, br.Window = engine.BreakerRatio, 0.5, 1+r.IntN(100), d(1000, 60000)
		st.Breaker = br
	case 4:
		br.Kind, br.Ratio, br.MinThroughput, br.WindowCalls = engine.BreakerRatio, 0.5, 1+r.IntN(10), 10
		st.Breaker = br
	}
	return st
}

// goModule writes a Go module in a temporary directory that requires the
// versions of this module's go.mod (its go.sum copied), for the exported
// snippets, each in a package of its own.
func goModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(mod), "\n") {
		switch {
		case strings.HasPrefix(l, "module "):
			l = "module snippets"
		case strings.HasPrefix(l, "replace "), strings.Contains(l, "github.com/retrylab/retrylab"):
			continue
		}
		lines = append(lines, l)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// TestConvertGoSnippetsBuild writes the failsafe-go and cenkalti/backoff
// exports of every preset, every imported sample and 40 random
// strategies into a module requiring this module's versions of the
// libraries (failsafe-go v0.9.8, cenkalti/backoff v5.0.3), and has go vet
// (which type-checks and builds them) accept them all.
func TestConvertGoSnippetsBuild(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command on PATH, and CI=true: the exported Go code must be compiled in CI")
		}
		t.Skip("no go command on PATH: the exported Go code cannot be compiled here (CI=true makes this a failure)")
	}
	dir := goModule(t)
	sts := convertStrategies(t)
	r := rand.New(rand.NewPCG(17, 1))
	for i := range 40 {
		sts = append(sts, randomStrategy(r, i))
	}
	for i, st := range sts {
		if err := (&engine.Scenario{Version: 1, Name: "x", Workload: engine.Workload{Clients: 1, Rate: 1, Duration: engine.Duration(1e9)},
			Dependency: engine.Dependency{Workers: 1, QueueCapacity: 1, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant}},
			Strategies: []engine.Strategy{st}}).Validate(); err != nil {
			t.Fatalf("%s is not a valid strategy: %v", st.Name, err)
		}
		for _, f := range []string{convert.FailsafeGo, convert.Cenkalti} {
			out, _, err := convert.Export(f, st)
			if err != nil {
				t.Fatal(err)
			}
			pkg := filepath.Join(dir, fmt.Sprintf("s%03d_%s_%s", i, unsafeName.ReplaceAllString(strings.ToLower(st.Name), "_"), unsafeName.ReplaceAllString(f, "")))
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(pkg, "policy.go"), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the exported Go code fails: %v\n%s", err, out)
	}
	t.Logf("go vet accepts the failsafe-go and cenkalti/backoff code of %d strategies", len(sts))
}

// TestConvertAWSExportParses: aws-sdk-go-v2's shared config loader
// (config.LoadSharedConfigProfile) reads every AWS export, each under the
// profile the export names (a strategy imported from a profile exports to
// it), with its retry_mode and max_attempts; the exports of one config
// file's profiles, put together, load as that file's profiles.
func TestConvertAWSExportParses(t *testing.T) {
	dir := t.TempDir()
	load := func(t *testing.T, file, profile string) (awsconfig.SharedConfig, error) {
		t.Helper()
		return awsconfig.LoadSharedConfigProfile(context.Background(), profile, func(o *awsconfig.LoadSharedConfigOptions) {
			o.ConfigFiles, o.CredentialsFiles = []string{file}, []string{filepath.Join(dir, "no-credentials")}
		})
	}
	for i, st := range convertStrategies(t) {
		out, _, err := convert.Export(convert.AWS, st)
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(string(out), "\n")
		profile := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(header, "[profile "), "["), "]")
		if header != "[default]" && header != "[profile "+profile+"]" {
			t.Errorf("%s: the export starts with %q, not a profile", st.Name, header)
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("config%d", i))
		if err := os.WriteFile(file, out, 0o600); err != nil {
			t.Fatal(err)
		}
		sc, err := load(t, file, profile)
		if err != nil {
			t.Errorf("%s: aws-sdk-go-v2 does not load profile %q: %v\n%s", st.Name, profile, err, out)
			continue
		}
		if want := strings.Contains(string(out), "retry_mode = adaptive"); (sc.RetryMode == aws.RetryModeAdaptive) != want || sc.RetryMode == "" {
			t.Errorf("%s: aws-sdk-go-v2 reads retry_mode %q from\n%s", st.Name, sc.RetryMode, out)
		}
		if st.MaxAttempts > 0 && sc.RetryMaxAttempts != st.MaxAttempts {
			t.Errorf("%s: aws-sdk-go-v2 reads max_attempts %d, the policy has %d", st.Name, sc.RetryMaxAttempts, st.MaxAttempts)
		}
	}
	// A real config file's profiles, exported one by one and put together.
	data, err := os.ReadFile("../shared/convert/testdata/import/aws-sdkref.ini")
	if err != nil {
		t.Fatal(err)
	}
	im, err := convert.Import(convert.AWS, data)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, st := range im.Strategies {
		out, _, err := convert.Export(convert.AWS, st)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, out...), '\n')
	}
	file := filepath.Join(dir, "together")
	if err := os.WriteFile(file, all, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, st := range im.Strategies {
		sc, err := load(t, file, st.Name)
		if err != nil || sc.RetryMaxAttempts != st.MaxAttempts {
			t.Errorf("profile %s: aws-sdk-go-v2 reads max_attempts %d (%v), imported %d, from\n%s", st.Name, sc.RetryMaxAttempts, err, st.MaxAttempts, all)
		}
	}
}
