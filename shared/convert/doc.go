// Package convert reads the retry configuration users already have into
// RetryLab strategies, and writes a strategy back in their format: the
// bridge from a production config to a simulation and back.
//
// Import(format, document) returns the strategies the document
// configures, each ready to put in a scenario's strategies, with Notes;
// Export(format, strategy) returns the document and its Notes. Nothing is
// dropped silently. A value RetryLab cannot read or simulate at all is an
// error (an engine.Errors naming the path in the document, the value and
// what is allowed, as the engine's validation errors do); a field read but
// not simulated, an unknown field and a policy feature the target format
// cannot express are each a Warning naming its path or the feature; a
// choice that keeps the meaning (a default filled in, a label) is an Info.
// Durations longer than a day, the longest the engine simulates, and
// attempts beyond its 100 are errors.
// The package does no I/O and depends on the engine only, so it runs in
// the command, the server and the WebAssembly playground alike.
//
// The mapping onto the engine follows the library presets of
// shared/scenarios/presets.json, which the conformance module compares
// with the real libraries: an imported AWS standard-mode profile is the
// aws-standard-2026 preset with its max_attempts, the standard resilience
// handler's defaults are the ms-standard-resilience preset, and a gRPC
// retryPolicy is read as the grpc-retry-throttling preset is built. The
// conformance module (conformance/convert_test.go) checks that grpc-go's
// parser accepts every gRPC export and reads back its values, that the
// Go code exports compile against failsafe-go and cenkalti/backoff, and
// that imported gRPC and AWS configurations make the same attempts, call
// by call, as grpc-go and aws-sdk-go-v2 given the same configuration.
//
// # grpc: gRPC service config (JSON)
//
// Sources: gRFC A6 "gRPC Retry Design"
// (https://github.com/grpc/proposal/blob/master/A6-client-retries.md),
// the service config documentation
// (https://github.com/grpc/grpc/blob/master/doc/service_config.md) and
// its schema (https://github.com/grpc/grpc-proto/blob/master/grpc/service_config/service_config.proto),
// and google.rpc.Code's HTTP mapping
// (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto).
// Field names match in any case, as grpc-go's encoding/json reads them.
// Each methodConfig is one strategy, named after its first name
// ("service/method", "service", or "all methods" for {}).
//
//	service config                          strategy (import and export)
//	methodConfig[].name                     name; more names: info; exported as [{}] unless the
//	                                        name is a service or service/method
//	methodConfig[].timeout                  deadline (the whole call, every attempt)
//	retryPolicy.maxAttempts                 max_attempts; above 5 imported as 5 with a warning
//	                                        (grpc-go's limit: "values greater than 5 are
//	                                        treated as 5"); exported as written, with a warning
//	retryPolicy.initialBackoff              backoff.base (kind exponential)
//	retryPolicy.maxBackoff                  backoff.max (no max: exported as the longest wait
//	                                        the attempts reach, which changes nothing)
//	retryPolicy.backoffMultiplier           backoff.multiplier (RetryLab allows 1 to 100)
//	retryPolicy.retryableStatusCodes        retry_on.statuses: each code's HTTP status
//	                                        (UNAVAILABLE 503 and connection errors,
//	                                        RESOURCE_EXHAUSTED 429, INTERNAL/UNKNOWN/DATA_LOSS
//	                                        500, ...); names or numbers 1..16
//	(always)                                jitter proportional 0.2: U(0.8, 1.2), gRFC A6's
//	                                        2024 revision and grpc-go's stream.go
//	(always)                                honor_retry_after with retry_after
//	                                        replace_and_reset: grpc-retry-pushback-ms
//	hedgingPolicy.maxAttempts               max_attempts with hedging
//	hedgingPolicy.hedgingDelay              hedging.delay
//	hedgingPolicy.nonFatalStatusCodes       retry_on
//	retryThrottling.maxTokens               budget token_bucket max_tokens (0, 1000]
//	retryThrottling.tokenRatio              budget.token_ratio (3 decimals on export)
//
// Warnings on import: waitForReady, maxRequestMessageBytes,
// maxResponseMessageBytes, loadBalancingPolicy, loadBalancingConfig and
// healthCheckConfig are not simulated; hedgingPolicy is simulated as gRFC
// A6 (and grpc-java, gRPC C++) specify it, but grpc-go ignores it; codes
// sharing an HTTP status (UNKNOWN, INTERNAL and DATA_LOSS are all 500;
// ALREADY_EXISTS and ABORTED 409; INVALID_ARGUMENT, FAILED_PRECONDITION
// and OUT_OF_RANGE 400) are retried together; one token bucket per
// channel becomes one per strategy. Errors: what grpc-go refuses
// (maxAttempts below 2, backoffs not above 0, no retryable codes,
// maxTokens outside (0, 1000], tokenRatio not above 0, both retryPolicy
// and hedgingPolicy) and a multiplier below 1.
//
// Warnings on export: a per-attempt timeout, retrying timeouts (gRPC never
// retries a passed deadline), statuses with no gRPC code (502, 408, ...),
// connection errors without 503 or 503 without connection errors (both
// are UNAVAILABLE), a jitter other than U(0.8, 1.2), a Retry-After mode
// other than replace_and_reset, linear backoff (written as doubling) and
// none (1 ns), throttle_base, a budget other than a token bucket charging
// 1 per failure with the threshold at half, a hedging delay percentile,
// and the features gRPC has none of: breaker, adaptive, max_elapsed,
// min_attempt_time, instances, idempotency, dead letters, layers, pool,
// bulkheads, fallbacks.
//
// # aws: AWS SDKs' shared config file (INI)
//
// Source: "Retry behavior" in the AWS SDKs and Tools Reference Guide
// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html)
// and the file's format
// (https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html).
// Each [default] or [profile NAME] section that sets retry_mode or
// max_attempts is one strategy named after the profile.
//
//	config file                  strategy (import and export)
//	retry_mode = standard        the aws-standard-2026 preset (aws-sdk-go-v2 v1.48): exponential
//	                             backoff from 50 ms (1 s after throttling) to 20 s, full jitter,
//	                             429 and 5xx but 501, timeouts, connection errors, Retry-After,
//	                             the 500-token retry quota (14 per retry, 5 after throttling,
//	                             refunded on success); based_on aws-standard-2026
//	retry_mode = adaptive        the same, based_on aws-adaptive; warning: the client-side rate
//	                             limiter is not simulated
//	retry_mode = legacy, or none standard mode, with a warning: legacy is specific to each SDK
//	max_attempts = N             max_attempts (1..100; no setting: 3)
//
// Other settings of a profile (region, credentials, ...) are not read,
// and their values never appear in notes; an unknown setting is a warning;
// other sections are an info. Export writes [default] with retry_mode
// (adaptive when based_on is aws-adaptive) and max_attempts, and a warning
// for every field of the policy that differs from standard mode's, which
// the file cannot change.
//
// # envoy: Envoy route and cluster (YAML or JSON)
//
// Sources: the route API (RetryPolicy, RouteAction.timeout, RetryBackOff,
// RateLimitedRetryBackOff:
// https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto),
// the router filter's retry conditions (x-envoy-retry-on,
// x-envoy-retry-grpc-on, and the back-off algorithm:
// https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter),
// circuit breaking and retry budgets
// (https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/circuit_breaking,
// https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/circuit_breaker.proto),
// and, for what the docs leave out, Envoy's source as the envoy-retry and
// envoy-retry-budget presets cite it (conformance/envoy_test.go). A
// document may be a stream of YAML documents (or one JSON document), each
// a bootstrap (static_resources, listeners, HttpConnectionManager
// route_config), a RouteConfiguration, a VirtualHost, a Route, a Cluster
// or an xDS file's resources, in any mix. Every route that has a
// retry_policy, its own or else its virtual host's (the route's replaces
// the host's whole, as Envoy's docs say), is one strategy named after the
// route's name or its match (prefix, path, regex), starting from the
// envoy-retry preset (based_on envoy-retry; envoy-retry-budget with a
// retry_budget). Its cluster (route.cluster, found by name in the
// document) gives the budget. Fields outside routes, virtual hosts,
// retry policies and circuit breakers (listeners, filters, matching,
// header rewrites, endpoints) do not change retries and are not read.
//
//	Envoy                                        strategy (import and export)
//	RouteAction.timeout                          deadline (the whole call, retries included); not set:
//	                                             15s, Envoy's default (info); 0s: none
//	retry_policy.num_retries                     max_attempts − 1 (default 1: 2 attempts; 0..99)
//	retry_policy.per_try_timeout                 attempt_timeout
//	retry_policy.retry_on 5xx                    retry_on 500-599, timeouts, connection errors
//	  gateway-error                              502, 503, 504, timeouts, connection errors
//	  reset                                      timeouts (a per-try timeout is a local reset) and
//	                                             connection errors
//	  connect-failure                            connection errors
//	  retriable-4xx                              409
//	  retriable-status-codes                     retriable_status_codes
//	  reset-before-request (import)              connection errors, with a warning
//	  cancelled, deadline-exceeded, internal,    499, 504, 500, 429, 503 (google.rpc.Code's HTTP
//	  resource-exhausted, unavailable (import)   mapping), with a warning
//	retry_back_off.base_interval, max_interval   backoff exponential, multiplier 2, base and max in
//	                                             whole ms (default 25 ms and 10 × base); jitter full:
//	                                             Envoy waits random() % interval ms, the interval
//	                                             doubling to max (backoff_strategy.cc)
//	rate_limited_retry_back_off with             honor_retry_after, retry_after replace (exported
//	  reset_headers Retry-After SECONDS          with max_interval 86400s)
//	circuit_breakers.thresholds[priority of the  budget concurrency, share_of attempts:
//	  route].retry_budget budget_percent.value,  ratio = budget_percent / 100 (default 20%),
//	  min_retry_concurrency                      min_concurrency (default 3)
//	thresholds[].max_retries (no retry_budget)   budget concurrency, min_concurrency max_retries,
//	                                             ratio 0; a cluster without a threshold: Envoy's
//	                                             default 3 (info); 4294967295 (above 1,000,000):
//	                                             no budget, as exported for none (Envoy's FAQ
//	                                             "disable circuit breaking")
//
// Export writes a static bootstrap in the shape of Envoy's quick start:
// a listener on 0.0.0.0:10000 whose HttpConnectionManager routes "/" to
// the cluster "dependency" (STRICT_DNS dependency:80, a placeholder:
// info) with the retry policy, and the cluster with one DEFAULT threshold.
// conformance/envoy_convert_test.go has go-control-plane read every
// export (protojson without unknown fields, then its validation rules,
// typed_config included) and checks the values it reads; it reads the
// import samples the same way, and runs routes imported with each
// simulated retry_on condition against the router's retry decisions.
//
// Warnings on import: retry_on conditions RetryLab has no outcome for
// (refused-stream, envoy-ratelimited, http3-post-connect-failure,
// retriable-headers) and unknown ones (Envoy ignores them);
// retriable_status_codes without retriable-status-codes; gRPC conditions
// read as HTTP statuses; rate-limited back-off (Envoy waits from the
// Retry-After to 1.5 times it, JitteredLowerBoundBackOffStrategy, and
// ignores one above max_interval; other reset headers are not
// simulated); retry_host_predicate, host_selection_retry_max_attempts,
// retry_priority, retriable_headers, retriable_request_headers,
// retry_options_predicates, per_try_idle_timeout, hedge_policy,
// idle_timeout, max_stream_duration; a route's cluster not in the
// document (Envoy's default max_retries 3 is then not simulated), chosen
// per request or weighted; max_connections, max_pending_requests,
// max_requests, per_host_thresholds; and outlier_detection, never read as
// a breaker: it ejects hosts from load balancing, and an only host still
// gets traffic below the healthy panic threshold. Infos: defaults filled
// in, whole milliseconds, a cluster shared by several routes (one budget
// each here). Errors: what Envoy's validation refuses (durations not
// written as protobuf durations, intervals not above 0, max_interval
// below base_interval, budget_percent outside 0..100, a priority other
// than DEFAULT or HIGH, reset_headers empty) and num_retries above 99.
//
// Warnings on export: a breaker (Envoy's circuit_breakers are
// concurrency limits and outlier_detection is no breaker of the kinds
// RetryLab has), a budget other than concurrency (written as no limit),
// share_of executions, scope client, a multiplier other than 2, linear
// backoff (written as doubling), none (1 ms), intervals not in whole
// milliseconds, throttle_base, a jitter other than full, timeouts without
// connection errors (written as reset), Retry-After modes other than
// replace and its statuses, honouring Retry-After at all (Envoy's
// 1-1.5× wait), unlimited attempts (99 retries) and the features Envoy
// has none of (max_elapsed, min_attempt_time, adaptive, hedging,
// instances, idempotency, dead letters, layers, pool, bulkheads,
// fallbacks).
//
// # istio: Istio VirtualService and DestinationRule (YAML)
//
// (mesh helper: replace this paragraph, keep the heading and the blank line under it.)
//
// # linkerd: Linkerd ServiceProfile (YAML)
//
// (mesh helper: replace this paragraph, keep the heading and the blank line under it.)
//
// # resilience4j: resilience4j Spring Boot configuration (YAML)
//
// (resilience4j helper: replace this paragraph, keep the heading and the blank line under it.)
//
// # polly: Microsoft.Extensions.Http.Resilience (appsettings JSON)
//
// Sources: "Build resilient HTTP apps"
// (https://learn.microsoft.com/dotnet/core/resilience/http-resilience),
// HttpStandardResilienceOptions
// (https://learn.microsoft.com/dotnet/api/microsoft.extensions.http.resilience.httpstandardresilienceoptions),
// Polly's retry and circuit breaker strategies
// (https://www.pollydocs.org/strategies/retry.html,
// https://www.pollydocs.org/strategies/circuit-breaker.html) and .NET's
// TimeSpan format (https://learn.microsoft.com/dotnet/api/system.timespan.parse).
// Every object of the document with a Retry, CircuitBreaker,
// AttemptTimeout, TotalRequestTimeout or RateLimiter field is the options
// of one standard resilience handler, named after its configuration
// section ("Resilience:Inventory"). Keys match in any case and values may
// be strings, as .NET's configuration binder reads them. Fields left out
// keep the handler's defaults: the ms-standard-resilience preset.
//
//	HttpStandardResilienceOptions        strategy (import and export)
//	Retry.MaxRetryAttempts               max_attempts − 1 (int.MaxValue: unlimited)
//	Retry.BackoffType                    backoff.kind constant, linear, exponential (×2)
//	Retry.Delay                          backoff.base (00:00:00: backoff none)
//	Retry.MaxDelay                       backoff.max
//	Retry.UseJitter                      Constant, Linear: jitter proportional 0.25 (Polly's
//	                                     d·(1 ± 0.25), exact); Exponential: proportional 0.5,
//	                                     with a warning (Polly's DecorrelatedJitterBackoffV2 is
//	                                     approximated)
//	Retry.ShouldRetryAfterHeader         honor_retry_after
//	CircuitBreaker.FailureRatio          breaker ratio (kind ratio, placement inside)
//	CircuitBreaker.MinimumThroughput     breaker.min_throughput
//	CircuitBreaker.SamplingDuration      breaker.window
//	CircuitBreaker.BreakDuration         breaker.break
//	AttemptTimeout.Timeout               attempt_timeout
//	TotalRequestTimeout.Timeout          deadline
//	(code: IsTransient)                  retry_on 408, 429, 500-599, timeouts, connection errors
//
// Warnings on import: RateLimiter is not simulated; a bare number as a
// TimeSpan is days, as .NET reads it; settings the handler's validation
// refuses at startup (an attempt timeout longer than the total timeout, a
// sampling duration under twice the attempt timeout, MaxRetryAttempts 0,
// timeouts outside 10 ms to 1 day). Errors: values of the wrong form or
// outside Polly's ranges. Warnings on export: retry_on other than the
// handler's (ShouldHandle is code), a multiplier other than 2, jitters
// Polly does not have, throttle_base, a Retry-After mode other than
// at_least, a missing timeout or breaker (the handler's default applies;
// a missing attempt timeout beside a total timeout under the default 10 s is
// written as the total timeout, since the handler refuses an attempt
// timeout longer than the total one and one equal to it ends no attempt
// sooner),
// a breaker other than a ratio over a time window, placed outside, with
// slow calls, a strict break end or several trial calls, durations finer
// than 100 ns, and the features Polly's standard handler has none of.
//
// # failsafe-go and cenkalti: Go code (export only)
//
// Sources: failsafe-go (https://failsafe-go.dev/retry/,
// https://failsafe-go.dev/circuit-breaker/,
// https://pkg.go.dev/github.com/failsafe-go/failsafe-go) and
// cenkalti/backoff v5 (https://pkg.go.dev/github.com/cenkalti/backoff/v5).
// Each is a gofmt'ed Go file of package retrylab.
//
//	strategy                failsafe-go v0.9 (NewRoundTripper)          cenkalti/backoff v5 (Do)
//	max_attempts            WithMaxAttempts (0: WithMaxRetries(-1))     WithMaxTries (0: none)
//	backoff constant        WithDelay                                   NewConstantBackOff
//	backoff exponential     WithBackoffFactor(base, max, multiplier)    ExponentialBackOff fields
//	backoff linear          WithDelayFunc: base × attempts              warning: constant at base
//	jitter proportional     WithJitterFactor                            RandomizationFactor
//	retry_on                HandleIf(retryable)                         retryable, Permanent
//	honor_retry_after       WithDelayFunc(failsafehttp.DelayFunc)       RetryAfter(seconds)
//	attempt_timeout         timeout.New inside the retry                http.Client.Timeout
//	deadline                timeout.New outside the retry               context.WithTimeout
//	max_elapsed             warning                                     WithMaxElapsedTime
//	budget concurrency      WithBudget(budget.NewBuilder()...)          warning
//	breaker                 circuitbreaker (consecutive, k of n,        warning
//	                        rate over a period; half-open thresholds),
//	                        inside or outside the retry
//
// Warnings: jitters, Retry-After modes and budget or breaker kinds the
// library has not (each named), throttle_base, and the features neither
// has: adaptive backoff, hedging, instances, idempotency, dead letters,
// layers, pool, bulkheads, fallbacks.
//
// # polly-csharp and resilience4j-java: C# and Java code (export only)
//
// (resilience4j helper: replace this paragraph, keep the heading and the blank line under it.)
package convert
