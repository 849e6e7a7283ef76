package conformance

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// grpcServer is a real grpc-go server on loopback whose Health.Check
// answers the current call's script, attempt by attempt (the last answer
// repeating): 200 is OK, 503 UNAVAILABLE, 500 INTERNAL. pushback, when set, goes with every UNAVAILABLE as
// the grpc-retry-pushback-ms trailer.
type grpcServer struct {
	healthpb.UnimplementedHealthServer
	mu       sync.Mutex
	script   CallScript
	attempts int
	pushback string
}

func (s *grpcServer) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	s.mu.Lock()
	a := s.script[min(s.attempts, len(s.script)-1)]
	s.attempts++
	pushback := s.pushback
	s.mu.Unlock()
	switch a.Status {
	case 200:
	case 503:
		if pushback != "" {
			_ = grpc.SetTrailer(ctx, metadata.Pairs("grpc-retry-pushback-ms", pushback))
		}
		return nil, status.Error(codes.Unavailable, "scripted")
	case 500:
		return nil, status.Error(codes.Internal, "scripted")
	default:
		return nil, status.Errorf(codes.Unknown, "no gRPC code for %d in the script", a.Status)
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// grpcServiceConfig is the gRFC A6 example the grpc-retry-throttling
// preset follows (maxAttempts 4, UNAVAILABLE, maxTokens 10, tokenRatio
// 0.1), with backoffs of 1 ms so that the test barely waits: throttling
// decisions do not depend on the waits.
const grpcServiceConfig = `{
  "methodConfig": [{
    "name": [{"service": "grpc.health.v1.Health"}],
    "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.001s", "maxBackoff": "0.001s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}
  }],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}`

// grpcRun starts a server and a client (one channel, so one throttler)
// and makes the script's calls one after another, returning the attempts
// the server saw for each.
func grpcRun(t *testing.T, script []CallScript, pushback string) []int {
	t.Helper()
	return grpcRunConfig(t, script, pushback, grpcServiceConfig, 30*time.Second)
}

// grpcRunConfig is grpcRun with a service config and a deadline for each
// call; a call ending with DEADLINE_EXCEEDED is counted as the others.
func grpcRunConfig(t *testing.T, script []CallScript, pushback, config string, deadline time.Duration) []int {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	s := &grpcServer{pushback: pushback}
	healthpb.RegisterHealthServer(srv, s)
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(config))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)
	attempts := make([]int, len(script))
	for k, c := range script {
		s.mu.Lock()
		s.script, s.attempts = c, 0
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if code := status.Code(err); code != codes.OK && code != codes.Unavailable && code != codes.Internal && code != codes.DeadlineExceeded {
			t.Fatalf("call %d: %v", k, err)
		}
		s.mu.Lock()
		attempts[k] = s.attempts
		s.mu.Unlock()
	}
	return attempts
}

// TestGRPCRetryThrottling compares, call by call, the attempts of a real
// grpc-go client (retryThrottler in clientconn.go; shouldRetry in
// stream.go: every retryable failure takes a token, the last attempt's
// included, and a retry is refused once tokens <= maxTokens/2; a success
// adds tokenRatio) with the engine's grpc-retry-throttling preset, over
// four scripts of sequential calls.
func TestGRPCRetryThrottling(t *testing.T) {
	p, err := Policy("grpc-retry-throttling", nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed := make([]Call, 300)
	sparse := make([]Call, 300)
	sparseOnce := make([]Call, 300)
	for k := range mixed {
		switch k % 12 {
		case 0, 1, 2, 3, 9:
			mixed[k] = FailAll
		case 6:
			mixed[k] = FailOnce
		}
		// Failures rare enough for successes (0.1 token each) to refill
		// the bucket around its threshold.
		if k%25 == 24 {
			sparse[k] = FailAll
		}
		if k%10 == 9 {
			sparseOnce[k] = FailOnce
		}
	}
	for _, sc := range []struct {
		name   string
		script []Call
	}{
		{"always UNAVAILABLE, 300 calls", repeat(FailAll, 300)},
		{"fail once then succeed, 100 calls", repeat(FailOnce, 100)},
		{"mixed, 300 calls", mixed},
		{"one call in 25 failing throughout, 300 calls", sparse},
		{"one call in 10 failing once, 300 calls", sparseOnce},
	} {
		t.Run(sc.name, func(t *testing.T) {
			lib := grpcRun(t, Scripts(sc.script, 503), "")
			eng, _, err := EngineScript(p, 503, sc.script)
			if err != nil {
				t.Fatal(err)
			}
			if k := firstDiff(lib, eng); k >= 0 {
				t.Errorf("call %d: grpc-go made %d attempts, the engine %d\ngrpc-go %v\nengine  %v", k, lib[k], eng[k], lib, eng)
			}
			t.Logf("grpc-go %d attempts, engine %d, identical call by call: %v", sum(lib), sum(eng), firstDiff(lib, eng) < 0)
		})
	}
}

// TestGRPCThrottlingPerAttempt is TestGRPCRetryThrottling with outcomes
// per attempt: calls failing two or three times before succeeding, and
// INTERNAL, which the service config does not retry and which takes no
// token (stream.go, shouldRetry: the code is checked before the
// throttler), against 500 in the engine, which the preset does not retry.
func TestGRPCThrottlingPerAttempt(t *testing.T) {
	p, err := Policy("grpc-retry-throttling", nil)
	if err != nil {
		t.Fatal(err)
	}
	ok, unavailable, internal := Answer{Status: 200}, Answer{Status: 503}, Answer{Status: 500}
	script := make([]CallScript, 300)
	for k := range script {
		switch k % 10 {
		case 0:
			script[k] = CallScript{unavailable, unavailable, ok}
		case 3:
			script[k] = CallScript{unavailable, unavailable, unavailable, ok}
		case 5:
			script[k] = CallScript{unavailable, internal}
		case 7:
			script[k] = CallScript{internal}
		case 8:
			script[k] = CallScript{unavailable}
		default:
			script[k] = CallScript{ok}
		}
	}
	lib := grpcRun(t, script, "")
	eng, _, err := EngineCalls(p, script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstDiff(lib, eng); k >= 0 {
		t.Errorf("call %d (%v): grpc-go made %d attempts, the engine %d\ngrpc-go %v\nengine  %v", k, script[k], lib[k], eng[k], lib, eng)
	}
	t.Logf("grpc-go %d attempts, engine %d, identical call by call: %v", sum(lib), sum(eng), firstDiff(lib, eng) < 0)
}

// TestGRPCBackoffFormula: grpc-go draws its waits from math/rand/v2 inside
// the retry loop (stream.go, shouldRetry: min(initialBackoff ×
// multiplier^n, maxBackoff) × U(0.8, 1.2)) with no injection point, and
// the waits cannot be observed without timing them, which this suite does
// not do. The engine's preset is checked against that formula: every wait
// within [0.8, 1.2] × the interval, the mean of 1,000 seeds within 3%.
func TestGRPCBackoffFormula(t *testing.T) {
	t.Parallel()
	p, err := Policy("grpc-retry-throttling", map[string]any{"max_attempts": 7, "budget": nil})
	if err != nil {
		t.Fatal(err)
	}
	const retries, seeds = 6, 1000
	interval := func(n int) float64 {
		return math.Min(float64(100*time.Millisecond)*math.Pow(2, float64(n-1)), float64(time.Second))
	}
	sums := make([]float64, retries)
	for seed := int64(1); seed <= seeds; seed++ {
		ws, err := EngineWaits(p, retries, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ws {
			d := interval(i + 1)
			if float64(w) < 0.8*d-1e3 || float64(w) > 1.2*d+1e3 { // measured to ±1 µs
				t.Fatalf("retry %d, seed %d: the engine waited %v, outside [%v, %v]", i+1, seed, w, time.Duration(0.8*d), time.Duration(1.2*d))
			}
			sums[i] += float64(w)
		}
	}
	for i, s := range sums {
		checkMean(t, fmt.Sprintf("engine grpc-retry-throttling retry %d", i+1), s/seeds, interval(i+1), 0.03)
	}
}

// TestGRPCPushback: a server's grpc-retry-pushback-ms trailer that is
// negative stops the retries (and counts as a failure for throttling),
// and a valid one replaces the backoff and resets the exponent
// (stream.go l. 833-856, 879-889, shouldRetry). The engine's preset
// honours the dependency's retry_after as a pushback ("replace_and_reset":
// a negative one stops the retries); every 503 carries -1 ms here.
func TestGRPCPushback(t *testing.T) {
	lib := grpcRun(t, Scripts(repeat(FailAll, 3), 503), "-1")
	if !equalInts(lib, []int{1, 1, 1}) {
		t.Fatalf("with pushback -1 grpc-go made %v attempts per call; its source says 1 each", lib)
	}
	p, err := Policy("grpc-retry-throttling", nil)
	if err != nil {
		t.Fatal(err)
	}
	eng, _, err := EngineScriptRetryAfter(p, 503, repeat(FailAll, 3), -time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(lib, eng) {
		t.Errorf("with pushback -1 grpc-go made %v attempts per call; the engine %v", lib, eng)
	}
}

// TestGRPCPushbackNotNegative: a grpc-retry-pushback-ms of 0 or more
// replaces the backoff (stream.go, shouldRetry: a pushback that parses
// as an integer ≥ 0 sets the wait to that many milliseconds and resets
// numRetriesSincePushback; only a negative or unparsable one stops the
// retries), so a pushback of 0 retries at once. The backoff here is 10 s
// and each call has a deadline of 1 s: a call makes all its 4 attempts
// only if its waits are shorter than the backoff, so the attempts per
// call show the wait without timing it. The engine runs the same policy
// with retry_after "replace_and_reset" (the preset's) against a
// dependency whose 503s carry the pushback, call by call.
func TestGRPCPushbackNotNegative(t *testing.T) {
	const config = `{"methodConfig": [{
    "name": [{"service": "grpc.health.v1.Health"}],
    "retryPolicy": {"maxAttempts": 4, "initialBackoff": "10s", "maxBackoff": "10s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}
  }]}`
	p, err := Policy("grpc-retry-throttling", map[string]any{"budget": nil, "deadline": "1s",
		"backoff": map[string]any{"kind": "exponential", "base": "10s", "multiplier": 1, "max": "10s"}})
	if err != nil {
		t.Fatal(err)
	}
	script := []Call{FailAll, FailOnce, FailAll, Success}
	for _, tc := range []struct {
		pushback string
		after    time.Duration // the engine's retry_after.after; none when nil
		none     bool
		want     []int // what stream.go says
	}{
		{"", 0, true, []int{1, 1, 1, 1}},   // the backoff, 10 s, passes the deadline
		{"0", 0, false, []int{4, 2, 4, 1}}, // at once
		{"1", time.Millisecond, false, []int{4, 2, 4, 1}},
		{"5000", 5 * time.Second, false, []int{1, 1, 1, 1}}, // longer than the deadline
	} {
		t.Run("pushback "+cmp.Or(tc.pushback, "none"), func(t *testing.T) {
			lib := grpcRunConfig(t, Scripts(script, 503), tc.pushback, config, time.Second)
			if !equalInts(lib, tc.want) {
				t.Errorf("grpc-go made %v attempts per call; its source says %v", lib, tc.want)
			}
			var ra map[string]any
			if !tc.none {
				ra = map[string]any{"statuses": []int{503}, "after": tc.after.String()}
			}
			eng, _, err := engineCalls(p, Scripts(script, 503), Spacing, ra)
			if err != nil {
				t.Fatal(err)
			}
			if k := firstDiff(lib, eng); k >= 0 {
				t.Errorf("call %d: grpc-go made %d attempts, the engine %d\ngrpc-go %v\nengine  %v", k, lib[k], eng[k], lib, eng)
			}
		})
	}
}

// deadlineServer answers Health.Check with DEADLINE_EXCEEDED, as a server
// whose own deadline passed does, until its last attempt, which answers
// OK; with sleep set it instead sleeps past the client's deadline.
type deadlineServer struct {
	healthpb.UnimplementedHealthServer
	mu       sync.Mutex
	attempts int
	fail     int
	sleep    time.Duration
}

func (s *deadlineServer) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	s.mu.Lock()
	s.attempts++
	k := s.attempts
	s.mu.Unlock()
	if s.sleep > 0 {
		select {
		case <-time.After(s.sleep):
		case <-ctx.Done():
		}
		return nil, status.Error(codes.Unavailable, "too late")
	}
	if k <= s.fail {
		return nil, status.Error(codes.DeadlineExceeded, "the server's own deadline passed")
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// TestGRPCDeadlineExceeded: what the gRPC export's note on
// retry_on.timeout says, checked on a real grpc-go client given the
// export of a strategy retrying 504 and timeouts (E03-B's C): a
// DEADLINE_EXCEEDED a server answers is retried, since the export lists
// it, while a call whose own deadline passes is not retried at all.
func TestGRPCDeadlineExceeded(t *testing.T) {
	st := engine.Strategy{Name: "grpc.health.v1.Health", Policy: engine.Policy{MaxAttempts: 4,
		AttemptTimeout: engine.Duration(50 * time.Millisecond),
		Backoff:        engine.Backoff{Kind: engine.BackoffExponential, Base: engine.Duration(time.Millisecond), Multiplier: 2, Max: engine.Duration(time.Millisecond)},
		RetryOn:        &engine.RetryOn{Statuses: []int{429, 503, 504}, Timeout: true, Connection: true}}}
	config, notes, err := convert.Export(convert.GRPC, st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(config), `"DEADLINE_EXCEEDED"`) {
		t.Fatalf("the export does not list DEADLINE_EXCEEDED:\n%s", config)
	}
	if !slices.ContainsFunc(notes, func(n convert.Note) bool {
		return n.Path == "retry_on.timeout" && strings.Contains(n.Message, "DEADLINE_EXCEEDED")
	}) {
		t.Errorf("no note on retry_on.timeout says what DEADLINE_EXCEEDED does: %v", notes)
	}
	for _, tc := range []struct {
		desc     string
		srv      *deadlineServer
		deadline time.Duration
		attempts int
		code     codes.Code
	}{
		{"a server's DEADLINE_EXCEEDED is retried", &deadlineServer{fail: 2}, 30 * time.Second, 3, codes.OK},
		{"the call's own deadline is not", &deadlineServer{sleep: 10 * time.Second}, 200 * time.Millisecond, 1, codes.DeadlineExceeded},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := grpc.NewServer()
			healthpb.RegisterHealthServer(srv, tc.srv)
			go func() { _ = srv.Serve(lis) }()
			defer srv.Stop()
			conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultServiceConfig(string(config)))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()
			_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
			tc.srv.mu.Lock()
			attempts := tc.srv.attempts
			tc.srv.mu.Unlock()
			if status.Code(err) != tc.code || attempts != tc.attempts {
				t.Errorf("grpc-go: %v after %d attempts; want %v after %d", err, attempts, tc.code, tc.attempts)
			}
		})
	}
}
