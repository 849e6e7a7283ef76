package convert_test

import (
	"fmt"

	"github.com/retrylab/retrylab/shared/convert"
)

// Example imports gRFC A6's example service config into a strategy with
// the engine's token bucket, then exports it, with six attempts, as the
// options of .NET's standard resilience handler, with a note on each
// thing the handler cannot say.
func Example() {
	config := `{
  "methodConfig": [{
    "name": [{"service": "EchoService", "method": "Echo"}],
    "timeout": "2s",
    "retryPolicy": {
      "maxAttempts": 4,
      "initialBackoff": "0.1s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}`
	im, err := convert.Import("grpc", []byte(config))
	if err != nil {
		fmt.Println(err)
		return
	}
	st := im.Strategies[0]
	fmt.Println(st.Name, st.MaxAttempts, st.Deadline, st.Backoff.Base, st.Backoff.Max, st.RetryOn.Statuses, st.Budget.MaxTokens)

	st.MaxAttempts = 6
	out, notes, _ := convert.Export("polly", st)
	fmt.Print(string(out))
	for _, n := range notes {
		fmt.Println(n)
	}
	// Output:
	// EchoService/Echo 4 2s 100ms 1s [503] 10
	// {
	//   "Retry": {
	//     "MaxRetryAttempts": 5,
	//     "BackoffType": "Exponential",
	//     "UseJitter": true,
	//     "Delay": "00:00:00.1",
	//     "MaxDelay": "00:00:01",
	//     "ShouldRetryAfterHeader": true
	//   },
	//   "AttemptTimeout": {
	//     "Timeout": "00:00:02"
	//   },
	//   "TotalRequestTimeout": {
	//     "Timeout": "00:00:02"
	//   }
	// }
	// warning: budget: HttpStandardResilienceOptions cannot express a retry budget; not exported
	// warning: jitter: Polly's only jitter for Exponential backoff is DecorrelatedJitterBackoffV2; this jitter is written as UseJitter
	// warning: retry_after: ShouldRetryAfterHeader waits the Retry-After of any retried answer; this mode is not exported
	// warning: retry_on: the standard handler's retried outcomes are code (HttpClientResiliencePredicates.IsTransient: 408, 429, 5xx, timeouts and connection errors), not configuration; these are not exported
	// warning: attempt_timeout: is not set: the standard handler always has one, and its default (10s) may not outlast the total request timeout; written as the total request timeout, 2s, which ends no attempt earlier than the total one does
	// warning: breaker: is not set: the standard handler always has a circuit breaker; its defaults (10% failures of at least 100 calls over 30 s, a 5 s break) apply
	// info: bind it to the handler with AddStandardResilienceHandler().Configure(configuration.GetSection("...")); nest it under the section's name in appsettings.json
}
