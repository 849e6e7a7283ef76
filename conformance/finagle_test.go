package conformance

import (
	"fmt"
	"testing"
	"time"
)

// Finagle is a Scala library: it cannot run here, so its retry budget is
// encoded from its source as table tests, and the engine's finagle-budget
// preset is run on the same scripts. Sources:
//
//   - twitter/finagle finagle-core/src/main/scala/com/twitter/finagle/
//     service/RetryBudget.scala at 0e26b57: RetryBudget() is
//     apply(DefaultTtl 10 s, minRetriesPerSec 10, percentCanRetry 0.2);
//     TokenRetryBudget deposits 1000 (ScaleFactor) per deposit() and
//     withdraws (1000 / 0.2).toInt = 5000 per retry, over
//     TokenBucket.newLeakyBucket(ttl, reserve) with reserve =
//     minRetriesPerSec × ttl.inSeconds × withdrawal = 10 × 10 × 5000 =
//     500,000.
//   - twitter/finagle .../service/RetryFilter.scala at 0e26b57: apply
//     deposits once per request, then dispatch asks the policy and, for a
//     retry, tryWithdraw(); a refused withdrawal ends the request with its
//     failure (budget_exhausted).
//   - twitter/util util-core/src/main/scala/com/twitter/util/
//     TokenBucket.scala newLeakyBucket: count = window sum + reserve;
//     tryGet(n) succeeds when count >= n (inclusive) and adds −n to the
//     window; WindowedAdder.scala: the window is ttl in 10 slices, so a
//     deposit or a withdrawal counts for about ttl (10 s) and then
//     expires.
//
// The comparison is a RetryFilter with RetryPolicy.tries(10) (up to 9
// retries, no delay) and the default budget: the preset's 10 attempts. In
// the first two cases every call is within one ttl, so nothing expires
// and Finagle's balance is 500,000 + 1000 × requests − 5000 × retries:
// a retry is granted while that is at least 5000.
const finagleSpacing = 80 * time.Millisecond

func TestFinagleRetryBudget(t *testing.T) {
	p, err := Policy("finagle-budget", nil)
	if err != nil {
		t.Fatal(err)
	}
	ten := func(n int) []int { return repeatInt(10, n) }
	cat := func(parts ...[]int) []int {
		var out []int
		for _, x := range parts {
			out = append(out, x...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		script []Call
		want   []int // Finagle's attempts per call, from the source
	}{
		{
			// Calls 1-11 retry 9 times each: before call k's retries the
			// balance is 500,000 − 44,000 (k−1) + 1000. Call 12 finds
			// 17,000 (3 retries, 2000 left), calls 13 and 14 find 3000
			// and 4000 (none), call 15 finds exactly 5000 (one retry:
			// count >= n is inclusive), and so every fifth call after.
			name:   "20 failing calls within one ttl",
			script: calls(20, FailAll),
			want:   cat(ten(11), []int{4, 1, 1, 2, 1, 1, 1, 1, 2}),
		},
		{
			// 50 deposits first: call 13 of the failing ones finds
			// 23,000 (4 retries, 3000 left), then as above.
			name:   "50 successes, then 20 failing calls",
			script: calls(50, Success, 20, FailAll),
			want:   cat(repeatInt(1, 50), ten(12), []int{5, 1, 2, 1, 1, 1, 1, 2}),
		},
		{
			// The 20 failing calls leave the balance at 0 (reserve
			// included); 130 successes follow over 10.4 s. The failing
			// calls' withdrawals (by 1.52 s) have expired when the last 3
			// calls come (12.0 s on), and the successes' deposits have
			// not all: each of them gets its 9 retries. Were nothing to
			// expire, 131,000 would give 10, 10 and 9 attempts.
			name:   "withdrawals expire after the ttl",
			script: calls(20, FailAll, 130, Success, 3, FailAll),
			want:   cat(ten(11), []int{4, 1, 1, 2, 1, 1, 1, 1, 2}, repeatInt(1, 130), ten(3)),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := EngineCalls(p, Scripts(c.script, 503), finagleSpacing)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("Finagle (from its source): %v\nthe engine: %v", c.want, got)
			}
		})
	}
}
