package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	smithymiddle "github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// awsStatusError is what a deserialiser leaves for an unmodeled HTTP error
// answer: the retryer reads its HTTPStatusCode.
func awsStatusError(status int) error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}},
		Err:      fmt.Errorf("answered %d", status),
	}
}

// awsCall is what the real retry.Attempt middleware did with one call.
type awsCall struct {
	attempts int
	denied   bool // a retry refused by the retry quota
	err      error
}

// awsDriver drives aws-sdk-go-v2's own retry loop (retry.Attempt, the
// middleware every client's stack runs) with the standard retryer and its
// default retry quota; only the backoff is replaced, by one that records
// the default backoff's delay and sleeps 0, so that nothing waits for the
// wall clock. The quota decisions are the SDK's own.
type awsDriver struct {
	retryer *retry.Standard
	m       *retry.Attempt
	delays  []time.Duration
}

func newAWSDriver() *awsDriver { return newAWSDriverQuota(true) }

// newAWSDriverQuota is newAWSDriver with the default retry quota, or with
// none (ratelimit.None) when quota is false.
func newAWSDriverQuota(quota bool) *awsDriver {
	d := &awsDriver{}
	real := retry.NewStandard()
	d.retryer = retry.NewStandard(func(o *retry.StandardOptions) {
		if !quota {
			o.RateLimiter = ratelimit.None
		}
		o.Backoff = retry.BackoffDelayerFunc(func(attempt int, err error) (time.Duration, error) {
			w, e := real.RetryDelay(attempt, err)
			d.delays = append(d.delays, w)
			return 0, e
		})
	})
	d.m = retry.NewAttemptMiddleware(d.retryer, func(r interface{}) interface{} { return r })
	return d
}

// awsTimeoutError is what an attempt that timed out returns: a net.Error
// style Timeout() (RetryableConnectionError retries it).
type awsTimeoutError struct{}

func (awsTimeoutError) Error() string   { return "scripted timeout" }
func (awsTimeoutError) Timeout() bool   { return true }
func (awsTimeoutError) Temporary() bool { return false }

// awsConnectionError is a connection reset (RetryableConnectionError
// retries it).
type awsConnectionError struct{}

func (awsConnectionError) Error() string         { return "scripted connection error" }
func (awsConnectionError) ConnectionError() bool { return true }

// callScript runs one operation whose k-th attempt gets script[k] (past
// the end, the last answer repeats): a success, a timeout, a connection
// error or an unmodeled status error.
func (d *awsDriver) callScript(script CallScript) awsCall {
	var c awsCall
	next := smithymiddle.FinalizeHandlerFunc(func(ctx context.Context, in smithymiddle.FinalizeInput) (smithymiddle.FinalizeOutput, smithymiddle.Metadata, error) {
		a := script[min(c.attempts, len(script)-1)]
		c.attempts++
		switch {
		case a.IsTimeout():
			return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, awsTimeoutError{}
		case a.Status == ConnectionError:
			return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, awsConnectionError{}
		case a.Status == 200:
			return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, nil
		}
		return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, awsStatusError(a.Status)
	})
	_, _, c.err = d.m.HandleFinalize(context.Background(), smithymiddle.FinalizeInput{Request: struct{}{}}, next)
	c.denied = errors.As(c.err, new(ratelimit.QuotaExceededError))
	return c
}

// call runs one operation whose k-th attempt gets answers[k] (0 is a
// success; past the end, the last answer repeats).
func (d *awsDriver) call(answers []int) awsCall {
	var c awsCall
	next := smithymiddle.FinalizeHandlerFunc(func(ctx context.Context, in smithymiddle.FinalizeInput) (smithymiddle.FinalizeOutput, smithymiddle.Metadata, error) {
		a := answers[min(c.attempts, len(answers)-1)]
		c.attempts++
		if a == 0 {
			return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, nil
		}
		return smithymiddle.FinalizeOutput{}, smithymiddle.Metadata{}, awsStatusError(a)
	})
	_, _, c.err = d.m.HandleFinalize(context.Background(), smithymiddle.FinalizeInput{Request: struct{}{}}, next)
	c.denied = errors.As(c.err, new(ratelimit.QuotaExceededError))
	return c
}

// awsScript turns an engine script into per-attempt answers.
func awsAnswers(c Call, status int) []int {
	switch c {
	case FailOnce:
		return []int{status, 0}
	case FailAll:
		return []int{status}
	}
	return []int{0}
}

// TestAWSBackoff2026: the standard retryer's delay before retry i is
// U[0,1) × min(50 ms × 2^(i-1), 20 s) for ordinary errors (jitter_backoff.go,
// backoffDelay2026). The SDK draws from crypto/rand, so the comparison is
// of distributions: every draw within the envelope, the mean of 10,000
// draws within 3% of the formula's mean; then the engine's
// aws-standard-2026 preset, measured over 1,000 seeds, the same way.
func TestAWSBackoff2026(t *testing.T) {
	t.Parallel()
	s := retry.NewStandard()
	const draws = 10000
	for i := 1; i <= 4; i++ {
		hi := min(50*time.Millisecond<<(i-1), 20*time.Second)
		var sum float64
		for range draws {
			w, err := s.RetryDelay(i, awsStatusError(503))
			if err != nil {
				t.Fatal(err)
			}
			if w < 0 || w >= hi {
				t.Fatalf("retry %d: the SDK waited %v, outside [0, %v)", i, w, hi)
			}
			sum += float64(w)
		}
		checkMean(t, fmt.Sprintf("aws-sdk-go-v2 retry %d", i), sum/draws, float64(hi)/2, 0.03)
	}

	p, err := Policy("aws-standard-2026", map[string]any{"max_attempts": 5, "budget": nil})
	if err != nil {
		t.Fatal(err)
	}
	sums, n := make([]float64, 4), 0
	for seed := int64(1); seed <= 1000; seed++ {
		ws, err := EngineWaits(p, 4, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ws {
			hi := min(50*time.Millisecond<<i, 20*time.Second)
			if w < 0 || w > hi+time.Microsecond { // measured to ±1 µs
				t.Fatalf("retry %d, seed %d: the engine waited %v, outside [0, %v)", i+1, seed, w, hi)
			}
			sums[i] += float64(w)
		}
		n++
	}
	for i, sum := range sums {
		hi := min(50*time.Millisecond<<i, 20*time.Second)
		// 1,000 draws of U[0, hi): the mean's standard deviation is
		// hi/sqrt(12·1000) = 0.9% of hi, 1.8% of the mean: 6% is over 3σ,
		// and the seeds are fixed, so the result never changes.
		checkMean(t, fmt.Sprintf("engine aws-standard-2026 retry %d", i+1), sum/float64(n), float64(hi)/2, 0.06)
	}
}

// TestAWSThrottleBackoff2026: after a throttling error (an unmodeled 429)
// the delay before retry i is U[0,1) × min(1 s × 2^(i-1), 20 s)
// (jitter_backoff.go, backoffDelay2026: x = 1 s when IsErrorThrottle),
// where other errors wait from the 50 ms base. Compared as the ordinary
// errors' delays are: the SDK's draws against the envelope and the
// formula's mean, then the engine's aws-standard-2026 (its
// backoff.throttle_base) over 1,000 seeds, the dependency answering 429.
func TestAWSThrottleBackoff2026(t *testing.T) {
	t.Parallel()
	s := retry.NewStandard()
	const draws = 10000
	for i := 1; i <= 4; i++ {
		hi := min(time.Second<<(i-1), 20*time.Second)
		var sum float64
		for range draws {
			w, err := s.RetryDelay(i, awsStatusError(429))
			if err != nil {
				t.Fatal(err)
			}
			if w < 0 || w >= hi {
				t.Fatalf("retry %d: the SDK waited %v after a 429, outside [0, %v)", i, w, hi)
			}
			sum += float64(w)
		}
		checkMean(t, fmt.Sprintf("aws-sdk-go-v2 retry %d after 429", i), sum/draws, float64(hi)/2, 0.03)
	}

	p, err := Policy("aws-standard-2026", map[string]any{"max_attempts": 5, "budget": nil})
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]float64, 4)
	const seeds = 1000
	for seed := int64(1); seed <= seeds; seed++ {
		ws, err := EngineWaitsStatus(p, 4, seed, 429, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ws {
			hi := min(time.Second<<i, 20*time.Second)
			if w < 0 || w > hi+time.Microsecond { // measured to ±1 µs
				t.Fatalf("retry %d, seed %d: the engine waited %v after a 429, outside [0, %v)", i+1, seed, w, hi)
			}
			sums[i] += float64(w)
		}
	}
	for i, sum := range sums {
		hi := min(time.Second<<i, 20*time.Second)
		// As in TestAWSBackoff2026: 6% is over 3σ of the mean of 1,000
		// uniform draws, on fixed seeds.
		checkMean(t, fmt.Sprintf("engine aws-standard-2026 retry %d after 429", i+1), sum/seeds, float64(hi)/2, 0.06)
	}
}

// TestAWSQuota drives the SDK's retry loop and the engine's
// aws-standard-2026 preset over the same scripts of sequential calls
// (every call's attempts all answered 503, or only its first one, or
// none; and the mixed script with 429, a throttling error, in place of
// 503), and compares the attempts of every call.
//
// The SDK's quota (standard.go, GetRetryToken; middleware.go,
// handleAttempt): 500 tokens; a retry takes 14 (5 after a throttling
// error) when it is made, after the max-attempts check; a retry that
// succeeds gives its cost back; a first attempt that succeeds gives 1; a
// retry is refused when fewer tokens than its cost are left.
func TestAWSQuota(t *testing.T) {
	t.Parallel()
	p, err := Policy("aws-standard-2026", nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed := make([]Call, 0, 300)
	for k := range 300 {
		// A repeating pattern with runs of failures: 5 calls in 12 fail
		// throughout, 1 fails once.
		switch k % 12 {
		case 0, 1, 2, 3, 9:
			mixed = append(mixed, FailAll)
		case 6:
			mixed = append(mixed, FailOnce)
		default:
			mixed = append(mixed, Success)
		}
	}
	scripts := []struct {
		name   string
		script []Call
		status int
	}{
		{"always 503, 40 calls", repeat(FailAll, 40), 503},
		{"fail once then succeed, 100 calls", repeat(FailOnce, 100), 503},
		{"mixed, 300 calls", mixed, 503},
		{"mixed 429, 300 calls", mixed, 429},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			d := newAWSDriver()
			lib := make([]int, len(sc.script))
			var libTotal, denied int
			for k, c := range sc.script {
				r := d.call(awsAnswers(c, sc.status))
				lib[k] = r.attempts
				libTotal += r.attempts
				if r.denied {
					denied++
				}
			}
			eng, _, err := EngineScript(p, sc.status, sc.script)
			if err != nil {
				t.Fatal(err)
			}
			engTotal := sum(eng)
			t.Logf("aws-sdk-go-v2: %d attempts, %d retries refused by the quota; engine: %d attempts", libTotal, denied, engTotal)
			// What the SDK does, exactly, from its own run.
			switch sc.name {
			case "always 503, 40 calls":
				// 28 tokens per call: 17 calls make 3 attempts (476
				// tokens), the 18th gets one retry (10 left), then none.
				want := append(append(repeatInt(3, 17), 2), repeatInt(1, 22)...)
				if !equalInts(lib, want) {
					t.Errorf("the SDK made %v attempts per call, the quota's rules give %v", lib, want)
				}
			case "fail once then succeed, 100 calls":
				if denied != 0 || libTotal != 200 {
					t.Errorf("a successful retry refunds its cost: the SDK should never run dry, but made %d attempts with %d refusals", libTotal, denied)
				}
			}
			if first := firstDiff(lib, eng); first >= 0 {
				t.Errorf("the engine's aws-standard-2026 quota differs from the SDK's: first different call %d (SDK %d attempts, engine %d); in all the SDK made %d attempts, the engine %d",
					first, lib[first], eng[first], libTotal, engTotal)
			}
		})
	}
}

func repeat(c Call, n int) []Call {
	s := make([]Call, n)
	for i := range s {
		s[i] = c
	}
	return s
}

func repeatInt(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func sum(xs []int) int {
	var s int
	for _, x := range xs {
		s += x
	}
	return s
}

func equalInts(a, b []int) bool { return firstDiff(a, b) < 0 && len(a) == len(b) }

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []int) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

// checkMean fails unless got is within rel of want.
func checkMean(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if d := (got - want) / want; d > rel || d < -rel {
		t.Errorf("%s: mean %v, formula %v (%.2f%% off, allowed %.0f%%)", what, time.Duration(got), time.Duration(want), 100*d, 100*rel)
	} else {
		t.Logf("%s: mean %v, formula %v (%+.2f%%)", what, time.Duration(got), time.Duration(want), 100*d)
	}
}

// TestAWSQuotaCostPerOutcome: in v1.48 a retry after a throttling error
// (an unmodeled 429) costs 5 tokens, after any other retryable error 14
// (standard.go, GetRetryToken: ThrottlingRetryCost, RetryCost; timeouts
// are not charged apart). Counted on always-failing calls until
// the quota refuses: 500 tokens give 35 retries at 14 and 100 at 5. The
// engine's aws-standard-2026 preset charges failure_cost 14 and
// throttle_cost 5 when a retry is made.
func TestAWSQuotaCostPerOutcome(t *testing.T) {
	p, err := Policy("aws-standard-2026", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{503: 35, 429: 100}
	var diffs []string
	for _, status := range []int{503, 429} {
		d := newAWSDriver()
		retries := 0
		for range 120 {
			r := d.call([]int{status})
			retries += r.attempts - 1
		}
		if retries != want[status] {
			t.Errorf("%d: the SDK made %d retries from a full quota; its costs give %d", status, retries, want[status])
		}
		eng, _, err := EngineScript(p, status, repeat(FailAll, 120))
		if err != nil {
			t.Fatal(err)
		}
		engRetries := sum(eng) - len(eng)
		t.Logf("%d: SDK %d retries, engine %d", status, retries, engRetries)
		if engRetries != retries {
			diffs = append(diffs, fmt.Sprintf("%d: SDK %d retries, engine %d", status, retries, engRetries))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("per-outcome costs differ over 120 always-failing calls from a full quota: %v", diffs)
	}
}

// awsMixedAttempts is a script of 300 calls with per-attempt outcomes: in
// every 12 calls, 3 fail throughout (503), 1 fails twice then succeeds,
// 1 times out once then succeeds, 1 times out throughout, 1 loses its
// connection once then gets a 502 and then succeeds, 1 gets a 429 then
// succeeds, and 4 succeed at once.
func awsMixedAttempts() []CallScript {
	ok := Answer{Status: 200}
	var s []CallScript
	for k := range 300 {
		switch k % 12 {
		case 0, 1, 9:
			s = append(s, CallScript{{Status: 503}})
		case 2:
			s = append(s, CallScript{{Status: 503}, {Status: 503}, ok})
		case 4:
			s = append(s, CallScript{TimedOut, ok})
		case 5:
			s = append(s, CallScript{TimedOut})
		case 7:
			s = append(s, CallScript{{Status: ConnectionError}, {Status: 502}, ok})
		case 10:
			s = append(s, CallScript{{Status: 429}, ok})
		default:
			s = append(s, CallScript{ok})
		}
	}
	return s
}

// TestAWSAttemptsPerOutcome drives the SDK's retry loop and the engine's
// aws-standard-2026 preset (with an attempt timeout of AttemptTimeout)
// over scripts with per-attempt outcomes: statuses, timeouts and
// connection errors. Without a retry quota on either side (the SDK's
// ratelimit.None, the preset's budget removed) the attempts of every call
// must be the same: which outcomes are retried, and how many attempts a
// call gets, with the quota and without, call by call: any difference
// fails.
func TestAWSAttemptsPerOutcome(t *testing.T) {
	t.Parallel()
	script := awsMixedAttempts()
	run := func(quota bool) (lib []int, denied int) {
		d := newAWSDriverQuota(quota)
		for _, cs := range script {
			r := d.callScript(cs)
			lib = append(lib, r.attempts)
			if r.denied {
				denied++
			}
		}
		return lib, denied
	}
	override := map[string]any{"attempt_timeout": AttemptTimeout.String()}
	noQuota, err := Policy("aws-standard-2026", map[string]any{"attempt_timeout": AttemptTimeout.String(), "budget": nil})
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := run(false)
	// The SDK's own rules: 3 attempts at most; 503, 502, 429, timeouts and
	// connection errors are retried.
	want := []int{3, 3, 3, 1, 2, 3, 1, 3, 1, 3, 2, 1}
	for k := range lib {
		if lib[k] != want[k%12] {
			t.Fatalf("without a quota the SDK made %d attempts on call %d (%v), its rules give %d", lib[k], k, script[k], want[k%12])
		}
	}
	eng, _, err := EngineCalls(noQuota, script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if first := firstDiff(lib, eng); first >= 0 {
		t.Fatalf("without a quota: call %d (%v) made %d attempts in the SDK, %d in the engine", first, script[first], lib[first], eng[first])
	}
	t.Logf("without a quota: %d attempts on both sides, call by call", sum(lib))

	p, err := Policy("aws-standard-2026", override)
	if err != nil {
		t.Fatal(err)
	}
	libQ, denied := run(true)
	engQ, _, err := EngineCalls(p, script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with the quota: aws-sdk-go-v2 %d attempts, %d retries refused; engine %d attempts", sum(libQ), denied, sum(engQ))
	if first := firstDiff(libQ, engQ); first >= 0 {
		t.Errorf("with the quota, per-attempt outcomes, timeouts and connection errors: call %d (%v) made %d attempts in the SDK, %d in the engine; in all the SDK made %d attempts, the engine %d\nSDK    %v\nengine %v",
			first, script[first], libQ[first], engQ[first], sum(libQ), sum(engQ), libQ, engQ)
	}
}
