// Package convert reads the retry configuration users already have into
// RetryLab strategies, and writes a strategy back in their format: the
// bridge from a production config to a simulation and back.
//
// Import(format, document) returns the strategies the document
// configures, each ready to put in a scenario's strategies, with Notes;
// Export(format, strategy) returns the document and its Notes;
// ExportAll(format, strategies) writes several strategies as one
// configuration in the formats of Joined: Istio's and Linkerd's
// Kubernetes documents joined with "---", and one resilience4j tree with
// an instance of each module per strategy (a module's aspect order is one
// for all its instances: a strategy that needs another is warned), which
// Import reads back as those strategies. Envoy's and Istio's documents
// also say what stands behind the dependency: Imported.Backends (its
// hosts, balancer and outlier detection, with a note when the count is
// assumed), which Imported.Scenario puts on the scenario's dependency and
// ExportFrom and ExportAllFrom write back. Nothing is
// dropped silently. A value RetryLab cannot read or simulate at all is an
// error (an engine.Errors naming the path in the document, the value and
// what is allowed, as the engine's validation errors do); a field read but
// not simulated, an unknown field and a policy feature the target format
// cannot express are each a Warning naming its path or the feature; a
// choice that keeps the meaning (a default filled in, a label) is an Info.
// Durations longer than a day, the longest the engine simulates, and
// attempts beyond its 100 are errors. A configuration of more policies
// than a scenario compares (20) has its identical policies (all but the
// name) imported as one strategy, "FIRST (+N identical)", with an info
// listing them; more than 20 different ones are refused.
// docs/formats.md says per format what is read and simulated, read and
// warned, and refused: coverage.go's table renders it, and TestFormatsPage
// imports every row's document to check the row (go test ./shared/convert
// -run TestFormatsPage -update rewrites the page).
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
// Each methodConfig is one strategy, named after its names, separated by
// ", " ("package.Service/Method", "package.Service", "Service/*" for a
// service without a package, or "all methods" for {}).
//
//	service config                          strategy (import and export)
//	methodConfig[].name                     name; several names: all of them, ", " between,
//	                                        an info; exported as those names when the name
//	                                        is gRPC names as Import writes them:
//	                                        package.Service, Service/* (a service without a
//	                                        package), Service/Method (A6's
//	                                        "EchoService/Echo"), "all methods" ([{}]); any
//	                                        other name is a label ("C", "C (search 1)"):
//	                                        [{}], every method, with an info saying how to
//	                                        name a service
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
//	                                        500, ...); names or numbers 1..16;
//	                                        DEADLINE_EXCEEDED is 504, a server's answer, which
//	                                        gRPC retries when listed (gRFC A6), not
//	                                        retry_on.timeout
//	(always)                                jitter proportional 0.2: U(0.8, 1.2), gRFC A6's
//	                                        2024 revision and grpc-go's stream.go
//	(always)                                honor_retry_after with retry_after
//	                                        replace_and_reset: grpc-retry-pushback-ms
//	(a retryPolicy)                         based_on grpc-retry-throttling with
//	                                        retryThrottling, grpc-retry without, a label:
//	                                        the default search keeps it to gRPC's limits
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
// Warnings on export: a per-attempt timeout, retry_on.timeout (gRPC has no
// per-attempt timeout to retry, and never retries once the call's deadline
// passed; the warning says whether DEADLINE_EXCEEDED, a server's 504, is
// listed, which gRPC does retry), statuses with no gRPC code (502, 408, ...),
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
//	retry_mode = adaptive        the aws-adaptive preset: the same plus client_rate_limit
//	                             aws-adaptive (the SDK's client-side rate limiter); based_on
//	                             aws-adaptive
//	retry_mode = legacy, or none standard mode, with a warning: legacy is specific to each SDK
//	max_attempts = N             max_attempts (1..100; no setting: 3)
//
// Other settings of a profile (region, credentials, ...) are not read,
// and their values never appear in notes; an unknown setting is a warning;
// other sections are an info. A profile with an invalid retry setting (an
// unknown retry_mode, max_attempts out of range, a setting given twice) is
// left out with a warning naming it and why, as the SDKs load the others
// and fail only when it is used; the file is refused when no valid profile
// is left, or for an error of the file itself (a setting before any
// section, a section given twice). Export writes one profile section with
// retry_mode (adaptive when based_on is aws-adaptive) and max_attempts,
// and a warning for every field of the policy that differs from standard
// mode's, which the file cannot change. The section is the profile the
// strategy was imported from: a strategy based on standard or adaptive
// mode (aws-standard-2026, aws-adaptive, as Import makes them) is written
// as [default] when named "default" and as [profile NAME] when its name
// can name a profile (no spaces, brackets, #, ; or =), so that the
// exports of a file's profiles, put together, are that file again. Any
// other strategy is written as [default], with an info saying to rename
// the section [profile NAME] for another profile.
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
// or an xDS file's resources, in any mix, or a top-level list of such
// resources (as Envoy Gateway's translator and egctl print them), or the
// admin endpoint's /config_dump output (ConfigDump's configs: the
// RoutesConfigDump's static_route_configs and dynamic_route_configs
// route_config, the ClustersConfigDump's clusters, the listeners' and
// bootstrap's; config_dump.proto); an HttpConnectionManager's rds is
// warned only when the document has no RouteConfiguration of its
// route_config_name. Every route that has a
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
//	  cancelled, deadline-exceeded, internal,    nothing: Envoy tests them on the grpc-status
//	  resource-exhausted, unavailable (import)   header only, which RetryLab's HTTP dependency
//	                                             never sends; a warning says which status to add
//	                                             for a gRPC service (499, 504, 500, 429, 503)
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
//	thresholds[].max_connections,                connection_limits max_connections, max_pending,
//	  max_pending_requests, max_requests         max_requests, per client instance, counting the
//	                                             route's attempts (a field not set: Envoy's 1024,
//	                                             an info; none set: Envoy's defaults not
//	                                             simulated, an info; above 1,000,000: no limit;
//	                                             an HTTP/2 cluster, http2_protocol_options:
//	                                             max_requests only). Overflow answers a local 503
//	                                             that Envoy's router never retries
//	                                             (RetryStateImpl::wouldRetryFromReset); the
//	                                             connection pool's order (conn_pool_base.cc) and
//	                                             the per-try timeout from onPoolReady are
//	                                             docs/scenario-format.md's "A proxy's connection
//	                                             limits". Exported back, no limit as 4294967295
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
// (x-envoy-retry-grpc-on), which Envoy tests on the answer's grpc-status
// header only (the router filter's docs,
// https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter#x-envoy-retry-grpc-on,
// and retry_state_impl.cc), never on its HTTP status: RetryLab's
// dependency answers HTTP statuses without it, so they retry nothing, in
// Envoy's import and Istio's alike, and the warning says how to get the
// gRPC reading (add the status google.rpc.Code maps the code to, 503 for
// UNAVAILABLE, to the strategy's retry_on.statuses); rate-limited back-off (Envoy waits from the
// Retry-After to 1.5 times it, JitteredLowerBoundBackOffStrategy, and
// ignores one above max_interval; other reset headers are not
// simulated); retry_host_predicate, host_selection_retry_max_attempts,
// retry_priority, retriable_headers, retriable_request_headers,
// retry_options_predicates, per_try_idle_timeout, hedge_policy,
// idle_timeout, max_stream_duration; a route's cluster not in the
// document (Envoy's default max_retries 3 is then not simulated), chosen
// per request or weighted; per_host_thresholds, max_connection_pools,
// a max_connections or max_requests of 0 (Envoy lets nothing through; read
// as no limit); and outlier_detection, never read as
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
// Sources: the VirtualService reference, HTTPRetry and HTTPRoute
// (https://istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRetry),
// the DestinationRule reference
// (https://istio.io/latest/docs/reference/config/networking/destination-rule/),
// istio.io/api v1.32.0's networking/v1alpha3 protos (the field comments),
// Istio's translation to Envoy (istio/istio
// pilot/pkg/networking/core/route/retry/retry.go: DefaultPolicy,
// ConvertPolicy, parseRetryOn) and Envoy's router
// (https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter#x-envoy-retry-on).
// A stream of Kubernetes documents (---), kinds VirtualService and
// DestinationRule of networking.istio.io v1, v1beta1 or v1alpha3; other
// kinds are an info. Each VirtualService http route is one strategy, named
// "VIRTUALSERVICE/ROUTE" (the route's name, or its index); a route that
// redirects, answers directly or delegates is an info. Istio programs
// Envoy, so a route's back-off is Envoy's, exponential from 25 ms
// doubling to 250 ms, fully jittered (conformance/envoy_test.go
// TestEnvoyBackoff). A route's policy is based on the istio-retry preset
// (based_on istio-retry, Istio's defaults: 2 retries on connection
// errors with that back-off, no route timeout), a label: the default
// search of an imported route keeps to Istio's limits (engine.Libraries'
// "istio"), which are Envoy's but for the retry_budget Istio does not
// expose: attempts, the back-off's base and no limit or a DestinationRule's
// maxRetries, every candidate of which this format writes exactly.
//
//	Istio                                    strategy (import and export)
//	http[].retries absent                    Istio's default: 2 retries (max_attempts 3) on
//	                                         connect-failure, refused-stream, unavailable,
//	                                         cancelled and retriable-status-codes (503 only
//	                                         before 1.24's EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY),
//	                                         read for an HTTP service, whose answers carry no
//	                                         grpc-status: retry_on connection errors; info
//	http[].retries.attempts                  max_attempts − 1 (0 or absent: retries disabled,
//	                                         max_attempts 1); unlimited exported as 99
//	http[].retries.perTryTimeout             attempt_timeout
//	http[].retries.retryOn                   retry_on: 5xx 500-599, resets and per-try timeouts;
//	                                         gateway-error 502-504, resets, timeouts; reset:
//	                                         connection errors and timeouts; connect-failure,
//	                                         refused-stream, reset-before-request: connection
//	                                         errors; retriable-4xx 409; integers: those statuses
//	                                         when Go's net/http names them (Istio's parseRetryOn
//	                                         passes other numbers to Envoy as names: an error);
//	                                         gRPC cancelled, deadline-exceeded, internal,
//	                                         resource-exhausted, unavailable: nothing, as
//	                                         Envoy reads them (grpc-status only), with a
//	                                         warning. Absent: the default above. Exported
//	                                         from the statuses retried: 5xx, gateway-error,
//	                                         reset or connect-failure, then the other codes
//	                                         (499, which net/http does not name, is lost)
//	http[].retries.backoff                   backoff.base, max 10 × base (Envoy's max_interval);
//	                                         absent: 25 ms; written only when not 25 ms
//	http[].timeout                           deadline; absent: none (Istio turns off Envoy's
//	                                         15 s route timeout)
//	DestinationRule connectionPool           budget concurrency, ratio 0, min_concurrency N,
//	  .http.maxRetries N (0: not set)        share_of attempts: at most N retries outstanding,
//	                                         Envoy's max_retries circuit breaker (Istio's
//	                                         default 2^32−1: none). Applies to the routes whose
//	                                         destination (or VirtualService) host is the rule's
//	                                         host or its short name; a rule no VirtualService
//	                                         routes is a strategy of Istio's default retries
//	connectionPool.tcp.maxConnections,       connection_limits max_connections, max_pending,
//	  .http.http1MaxPendingRequests,         max_requests, as Istio's cluster builder
//	  .http.http2MaxRequests (0: not set)    (cluster_traffic_policy.go, applyConnectionPool)
//	                                         writes them into Envoy's threshold: only values
//	                                         above 0, the others 2^32-1 (no limit), and
//	                                         cluster-wide although the API's comment says per
//	                                         host; h2UpgradePolicy UPGRADE: http2MaxRequests
//	                                         only. Exported back; max_pending 0 (none waits),
//	                                         which Istio cannot say, as 1 with a warning
//
// Three readings of Istio's defaults, checked against its sources: a
// DestinationRule without loadBalancer is LEAST_REQUEST (the API leaves
// UNSPECIFIED to Istio; cluster_traffic_policy.go's defaultLBAlgorithm
// returns LEAST_REQUEST, ROUND_ROBIN only under the legacy-default
// feature flag), which is Envoy's least request with two hosts drawn,
// power_of_two_choices; a route's retries reselect a host up to 5 times
// (route/retry/retry.go's DefaultPolicy: HostSelectionRetryMaxAttempts 5
// beside previous_hosts); the deprecated outlierDetection
// consecutiveErrors counts 502, 503 and 504 (destination_rule.proto's
// comment), gateway errors.
//
// Export writes a VirtualService for host "dependency" with one http
// route, durations in whole milliseconds as Istio requires, and a
// DestinationRule only when the budget is such a maxRetries budget, or
// the strategy has connection limits or backends. Both
// are named after the strategy, so that the exports of a scenario's
// strategies do not replace one another: a name "VIRTUALSERVICE/ROUTE",
// as Import writes them, is split back into the two; any other name is
// the route's, and the VirtualService's (and DestinationRule's) as a
// Kubernetes name must be written, a DNS-1123 subdomain: lowercase, each
// run of characters other than a-z, 0-9 and . a dash ("C (search 1)" is
// c-search-1), "dependency" for a name with no ASCII letter or digit.
//
// Warnings on import: outlierDetection (ejecting hosts from the
// load-balancing pool is not a client circuit breaker, and the dependency
// is one server: no breaker is imported), the other connectionPool
// settings, loadBalancer, tls, subsets, retryRemoteLocalities,
// retryIgnorePreviousHosts, fault and mirrors, the retryOn conditions
// envoy-ratelimited, retriable-headers and http3-post-connect-failure,
// durations finer than a millisecond. A mesh-wide
// meshConfig.defaultHttpRetryPolicy is not seen: the info on a route
// without retries says so. Errors: unknown retryOn conditions, status
// codes outside 100-599, attempts outside 0-99, durations that do not
// parse or are below 1 ms, a DestinationRule without a host. The gRPC
// conditions are read as statuses (a gRPC service); the default is read
// for an HTTP service, and its info says how to simulate a gRPC one.
//
// Warnings on export: an unlimited max_attempts (99 retries), a backoff
// other than exponential doubling to 10 × base (written as its base) or
// none, a jitter other than full, throttle_base, retried statuses Envoy
// cannot name without more (5xx also retries resets and timeouts; a
// retried timeout without connection errors; codes net/http does not
// name), an empty retry_on, a budget
// other than maxRetries (Istio does not expose Envoy's retry_budget), a
// breaker (outlierDetection is not one), and the features Istio has none
// of: Retry-After, max_elapsed, min_attempt_time, adaptive, instances,
// hedging, idempotency, dead letters, layers, pool, bulkheads, fallbacks.
//
// # linkerd: Linkerd ServiceProfile (YAML)
//
// Sources: the ServiceProfile reference
// (https://linkerd.io/2/reference/service-profiles/), "Configuring
// Retries" (https://linkerd.io/2/tasks/configuring-retries/) and
// "Retries and Timeouts" (https://linkerd.io/2/features/retries-and-timeouts/),
// the CRD (linkerd/linkerd2
// charts/linkerd-crds/templates/serviceprofile.yaml), the destination
// controller (controller/api/destination/profile_translator.go: the
// default budget, no default timeout; pkg/profiles/profiles.go Validate:
// Go durations), the proxy's retries (linkerd/linkerd2-proxy
// linkerd/app/outbound/src/http/retry.rs: only answers classed as
// failures are retried, never errors; the budget gets a deposit for each
// answer not retried; bodies over 64 KiB are not retried; and
// .../http/logical/policy/route/retry.rs for 2.16's: the listed statuses,
// the retry timeout, REFUSED_STREAM), its budget (tower
// src/retry/budget/tps_budget.rs TpsBudget), and for Linkerd 2.16's
// annotations https://linkerd.io/2/reference/retries/ and
// https://linkerd.io/2/reference/timeouts/. Documents of kind
// ServiceProfile (linkerd.io/v1alpha2); each retryable route is one
// strategy named after the route; routes that are not retryable are an
// info and left out, unless none is retryable: then each is one attempt
// per call. Linkerd retries a failed answer at once, without a limit on
// attempts, while the budget allows, until the route's timeout.
//
//	ServiceProfile                            strategy (import and export)
//	routes[].name                             name
//	routes[].isRetryable                      true: max_attempts 0 (no limit), backoff none;
//	                                          false or absent: max_attempts 1
//	routes[].timeout                          deadline (covers the retries); absent: none (the
//	                                          destination controller sends none; older docs
//	                                          said 10 s)
//	routes[].responseClasses[]                retry_on: the statuses classed as failures, 5xx
//	  .condition.status {min,max}, isFailure  unless a class says otherwise, the first class
//	                                          matching a status deciding; connection errors and
//	                                          timeouts are not retried. Exported as the classes
//	                                          that differ from 5xx
//	retryBudget.retryRatio                    budget ratio (0 < ratio ≤ 100)
//	retryBudget.minRetriesPerSecond           budget.min_per_second (whole numbers)
//	retryBudget.ttl                           budget.window (1 s to 60 s), slices 10: the
//	                                          finagle-budget preset's budget; absent: Linkerd's
//	                                          default, 0.2, 10 per second, 10 s; outside 1 s
//	                                          to 60 s (the CRD takes it, the proxy drops the
//	                                          budget and never retries): max_attempts 1, a
//	                                          warning
//
// Linkerd 2.16's counted retries, annotations of a Service, HTTPRoute or
// GRPCRoute, are one strategy each, named "KIND/NAME" (import only):
// retry.linkerd.io/limit is max_attempts − 1 (default 1 retry),
// retry.linkerd.io/http (codes, ranges, gateway-error, 5xx) and
// retry.linkerd.io/grpc (the gRPC names, as Istio's) the retried
// statuses, retry.linkerd.io/timeout a retried attempt_timeout,
// timeout.linkerd.io/request (or the first rule's timeouts.request) the
// deadline; no backoff and no budget.
//
// Export writes a ServiceProfile for dependency.default.svc.cluster.local
// with one route matching every path (pathRegex /.*), durations as Go
// writes them ("300ms", "1.5s"), and the retry budget when the strategy's
// budget is a ratio over a window.
//
// Warnings on import: the budget, which the engine runs as Finagle's
// (deposit 1000 per request, withdraw ⌊1000/ratio⌋, the current slice and
// the 9 before it) while the proxy's TpsBudget deposits 1 per answer it
// does not retry, withdraws ⌊1/ratio⌋ (more retries when 1/ratio is not a
// whole number) and sums the current slice and the 10 before it; a ttl
// that is not whole seconds; response classes by anything but a status
// range; dstOverrides and opaquePorts; timeout.linkerd.io/response and
// idle; annotations without retry conditions. Requests whose bodies
// exceed 64 KiB are not retried by Linkerd, which the engine does not
// model; 2.16's retries also retry REFUSED_STREAM and fail-fast errors,
// which the engine has no counterpart of. Errors: what the CRD and Validate refuse (missing name,
// condition, budget fields; durations that do not parse), a retryRatio
// of 0 or above 100, a ttl outside 1-60 s, status ranges outside 100-599.
//
// Warnings on export: an attempt limit (Linkerd has none), a backoff or a
// jitter (Linkerd retries at once), retried connection errors and
// timeouts, a budget that is not a ratio over a window (Linkerd's default
// then applies), no budget, a ttl outside 1-60 s, a fractional
// min_per_second, slices other than 10, a budget per client, and the
// features a ServiceProfile has none of: attempt timeouts, Retry-After,
// breakers, max_elapsed, adaptive, instances, hedging, layers, pool,
// bulkheads, fallbacks.
//
// # resilience4j: resilience4j Spring Boot configuration (YAML)
//
// Sources: resilience4j's Spring Boot 3 guide
// (https://resilience4j.readme.io/docs/getting-started-3), its Retry and
// CircuitBreaker pages (https://resilience4j.readme.io/docs/retry,
// https://resilience4j.readme.io/docs/circuitbreaker), and resilience4j's
// source at af9e7c9 (v2.4.0-16): resilience4j-framework-common's
// Common{Retry,CircuitBreaker,TimeLimiter}ConfigurationProperties.java and
// ConfigUtils.java (the properties, their setters' checks, configs and
// baseConfig), resilience4j-spring6's *ConfigurationProperties.java (the
// aspect orders), resilience4j-core's IntervalFunction.java (the waits);
// Spring Boot's relaxed binding and DurationStyle
// (https://docs.spring.io/spring-boot/reference/features/external-config.html).
// Every document of the YAML stream is read, a later one's values
// replacing an earlier one's (a warning: as if every profile were
// active), and dotted keys ("resilience4j.retry.instances.a.maxAttempts")
// are the mappings they stand for. Keys match in Spring's relaxed forms
// (maxAttempts, max-attempts, max_attempts); values may be strings.
// Durations are Spring's: "500ms", "10s", "2m", a bare number of
// milliseconds, or ISO-8601 ("PT0.5S"); "0.5s" is an error, as in Spring.
// The retry, circuitbreaker and timelimiter instances of one name are
// one strategy, named after it, in name order; without any instance, the
// default configs are one strategy named "default". Each instance is
// built as resilience4j builds it: retry and timelimiter entries start
// from configs[baseConfig], else from configs.default (a base config
// too), and a retry entry without a waitDuration keeps its base's waits,
// one with a waitDuration rebuilds them from its own settings and the
// flags merged from its base (not randomizedWaitFactor); circuitbreaker
// entries start from configs[baseConfig], else a config of their own
// name, else configs.default, each base built from resilience4j's
// defaults. Settings left out keep those defaults: the resilience4j
// preset (based_on resilience4j), which conformance/resilience4j_test.go
// compares with resilience4j's source.
//
//	Spring Boot property                          strategy (import and export)
//	retry maxAttempts                             max_attempts (Integer.MAX_VALUE: unlimited; default 3)
//	retry waitDuration                            backoff.base (kind constant; 0: none; default 500 ms)
//	retry enableExponentialBackoff,               backoff kind exponential, multiplier (default 1.5),
//	  exponentialBackoffMultiplier,               max; the cap and the factor only where Spring reads
//	  exponentialMaxWaitDuration                  them (a warning where it does not)
//	retry enableRandomizedWait,                   jitter proportional, fraction the factor (default 0.5):
//	  randomizedWaitFactor                        IntervalFunction's wait·(1 ± factor), exact
//	retry retryExceptions, ignoreExceptions       retry_on: the statuses of Spring's web client
//	                                              exceptions (HttpClientErrorException 4xx,
//	                                              HttpServerErrorException 5xx, their subclasses per
//	                                              status, WebClient's, Feign's), timeouts and
//	                                              connection errors (ResourceAccessException,
//	                                              java.io.IOException both, java.net's and the
//	                                              TimeLimiter's TimeoutException); none: every 4xx and
//	                                              5xx, timeouts and connection errors (the preset);
//	                                              only classes RetryLab does not know: nothing
//	                                              (resilience4j retries only those), a warning
//	circuitbreaker failureRateThreshold           breaker.ratio (percent / 100; kind ratio)
//	circuitbreaker slidingWindowType COUNT_BASED  breaker.window_calls slidingWindowSize, min_throughput
//	                                              min(minimumNumberOfCalls, size)
//	circuitbreaker slidingWindowType TIME_BASED   breaker.window slidingWindowSize seconds,
//	                                              min_throughput minimumNumberOfCalls
//	circuitbreaker waitDurationInOpenState        breaker.break (break_end strict)
//	circuitbreaker enableExponentialBackoff,      breaker.open_multiplier (default 1.5), max_open: the
//	  exponentialBackoffMultiplier,               cap only with the multiplier, both only with a
//	  exponentialMaxWaitDurationInOpenState       waitDurationInOpenState (a warning where Spring
//	                                              ignores them); a cap not above the wait is break
//	circuitbreaker                                breaker.auto_half_open
//	  automaticTransitionFromOpenToHalfOpenEnabled
//	circuitbreaker                                breaker.half_open_calls; half_open_failures
//	  permittedNumberOfCallsInHalfOpenState       ⌈rate·calls⌉, half_open_decision all_trials
//	circuitbreaker slowCallRateThreshold,         breaker.slow_ratio, breaker.slow_call (always set:
//	  slowCallDurationThreshold                   100%, 60 s by default; exported when not those)
//	timelimiter timeoutDuration                   attempt_timeout (default 1 s)
//	retryAspectOrder, circuitBreakerAspectOrder,  breaker.placement and attempt_timeout or deadline:
//	  timeLimiterAspectOrder                      by default Retry(CircuitBreaker(TimeLimiter(call))),
//	                                              the lowest order outermost: a breaker ordered before
//	                                              the retry is outside it, a time limiter before the
//	                                              retry is a deadline
//	bulkhead maxConcurrentCalls, maxWaitDuration  bulkheads[0] max_concurrent (default 25), max_wait
//	                                              with max_waiting unbounded (no wait: max_waiting 0)
//	thread-pool-bulkhead maxThreadPoolSize,       bulkheads[0] max_concurrent, max_waiting (a bulkhead
//	  queueCapacity                               of the same name wins; defaults assume 4 processors)
//	ratelimiter limitForPeriod,                   client_rate_limit fixed-window limit_for_period
//	  limitRefreshPeriod, timeoutDuration         (default 50), refresh_period (default 500 ns, a
//	                                              warning), timeout (default 5 s): a permit per attempt
//
// Export writes bulkheads[0] back: a semaphore bulkhead when calls wait a
// bounded time or not at all, else a thread pool bulkhead whose core and
// maximum sizes are max_concurrent; bulkheadAspectOrder 0 puts it
// outermost, held for the whole call as the engine holds it.
//
// Export writes a fixed-window client_rate_limit back as a RateLimiter
// in its default place, inside the Retry.
//
// Warnings on import: a ratelimiter beside a Retry without
// retryExceptions (which retries RequestNotPermitted; the engine never
// retries a refusal), outside the retry (a permit per call, not per
// attempt), or beside a circuitbreaker (which decides before the limiter
// and records its refusals), and one without limitRefreshPeriod (500 ns:
// no limit); a bulkhead inside the retry
// (bulkheadAspectOrder's default: each attempt takes a permit, where the
// engine holds it for the whole call); a coreThreadPoolSize below
// maxThreadPoolSize (ThreadPoolExecutor queues before it adds threads);
// retryExceptionPredicate, resultPredicate and
// consumeResultBeforeRetryAttempt are code; exception classes RetryLab
// does not know; exponentialMaxWaitDuration with randomized waits
// (resilience4j caps the randomized wait, the engine randomizes the
// capped one); settings Spring ignores (a wait flag without a
// waitDuration, a cap without a multiplier); every breaker's failures
// (resilience4j records every exception, so every 4xx an HTTP client
// throws on, where the engine counts timeouts, connection errors, 408, 429
// and 5xx), and its recordExceptions, ignoreExceptions and predicates;
// maxWaitDurationInHalfOpenState, transitionToStateAfterWaitDuration,
// initialState, the open state's randomized waits, an exponential one
// Spring ignores or whose multiplier is outside 1..100, and
// slow-call thresholds whose half-open count differs from the failures'
// (the engine reopens on as many slow trials as failed ones); unknown
// keys. Infos: the retry_on of a retry without retryExceptions (every
// 4xx and 5xx, timeouts and connection errors), settings without effect on calls (health indicators,
// event buffers, stack traces, cancelRunningFuture, tags), a time window's
// one-second buckets, a TimeLimiter's need of an asynchronous method,
// failAfterMaxAttempts. Errors: what resilience4j's setters and builders
// refuse at startup (maxAttempts below 1, negative durations, a factor
// outside [0, 1), rates outside 1..100, windows, minimums and trials below
// 1, a wait in the open state under 1 ms, an exponential or randomized wait
// under 1 ms, both wait growths in the open state, a missing or circular
// baseConfig), values Spring cannot convert, a timeoutDuration of 0, and
// what RetryLab does not simulate (over 100 attempts, multipliers outside
// 1..100, durations over a day, windows over 100000 calls or a day).
//
// Export writes one instance of retry, circuitbreaker and timelimiter
// (camelCase keys, Spring's simple durations), named after the strategy
// as Spring Boot keeps a map key written without brackets: letters,
// digits and -, each run of other characters a dash ("C (search 1)" is
// C-search-1; "dependency" for a name with no ASCII letter or digit), so that
// a strategy imported from an instance so named exports to it and the
// exports of a scenario's strategies do not collide; with
// retryExceptions of Spring's RestTemplate and RestClient when retry_on is
// not everything (HttpServerErrorException with ignoreExceptions for the
// statuses left out, subclasses per status, ResourceAccessException, and
// the TimeLimiter's TimeoutException when timeouts are retried with an
// attempt timeout), and the aspect orders when the breaker is outside the
// retry or the deadline is the time limiter. Warnings on export: statuses
// no Spring exception names (408, 3xx), linear backoff (a fixed wait),
// throttle_base, jitters other than proportional below 1, a cap with
// jitter (see above), Retry-After, a deadline beside an attempt timeout
// (one TimeLimiter per name), durations finer than a millisecond,
// breakers resilience4j cannot express exactly (k of n, half-open counts
// other than ⌈rate·calls⌉, deciding early, an inclusive break end, rates
// under 1%, time windows not in whole seconds), and the features
// resilience4j's configuration has none of: budget, adaptive, max_elapsed,
// min_attempt_time, hedging, instances, idempotency, dead letters, layers,
// pool, bulkheads, fallbacks. A consecutive breaker is written exactly as
// a count window of its failures at 100%.
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
// of one standard resilience handler (one with a Hedging or Endpoint field
// is the standard hedging handler's, below), named after its configuration
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
//	RateLimiter.DefaultRateLimiterOptions bulkheads[0] max_concurrent (PermitLimit, default 1000),
//	                                     max_waiting (QueueLimit, default 0): Polly's
//	                                     ConcurrencyLimiter, outermost, held for the whole request
//
//	HttpStandardHedgingResilienceOptions strategy (import and export; based_on ms-standard-hedging)
//	Hedging.MaxHedgedAttempts            max_attempts − 1 (default 1), with hedging
//	Hedging.Delay                        hedging.delay (default 2 s; -00:00:00.001, InfiniteTimeSpan:
//	                                     the engine's longest span, a copy only after a failure)
//	TotalRequestTimeout.Timeout          deadline (default 30 s)
//	Endpoint.Timeout.Timeout             attempt_timeout (default 10 s)
//	Endpoint.CircuitBreaker              breaker, as above, around each copy
//	Endpoint.RateLimiter                 bulkheads[0], with a warning (Polly's is per copy)
//
// Warnings on import: QueueProcessingOrder NewestFirst; an endpoint's
// RateLimiter (each hedged copy takes a permit); a bare number as a
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
// Sources: Polly 8's pipelines and strategies
// (https://www.pollydocs.org/pipelines/, https://www.pollydocs.org/strategies/retry.html,
// https://www.pollydocs.org/strategies/circuit-breaker.html,
// https://www.pollydocs.org/strategies/timeout.html; Polly.Core's
// RetryResilienceStrategy.cs: a DelayGenerator's delay replaces the
// backoff's) and resilience4j 2's builders
// (https://resilience4j.readme.io/docs/retry, .../circuitbreaker,
// .../timeout; RetryConfig.java, CircuitBreakerConfig.java,
// TimeLimiterConfig.java, IntervalFunction.java).
//
// polly-csharp is a C# class (namespace RetryLab) whose Build() returns a
// ResiliencePipelineBuilder<HttpResponseMessage> pipeline, outermost
// first: AddTimeout (deadline), AddCircuitBreaker when the breaker is
// outside, AddRetry(new RetryStrategyOptions<HttpResponseMessage>),
// AddCircuitBreaker(new CircuitBreakerStrategyOptions<HttpResponseMessage>)
// when inside, AddTimeout (attempt_timeout). The retry is decided as the
// polly export decides it (MaxRetryAttempts max_attempts − 1, int.MaxValue
// for unlimited; BackoffType, Delay, MaxDelay, UseJitter with the same
// warnings), with what code can say and JSON cannot: ShouldHandle is the
// strategy's retry_on (TimeoutRejectedException for timeouts,
// HttpRequestException for connection errors, the statuses), the
// breaker's ShouldHandle the engine's failures, a Retry-After as a
// DelayGenerator replacing the delay (a warning for modes other than
// "replace"), no retry for max_attempts 1, and no timeout or breaker
// when the strategy has none. Warnings: the polly export's (multiplier,
// jitter, throttle_base, a breaker other than a ratio over a time window,
// slow calls, a strict break end, several trials, MinimumThroughput under
// 2, durations under Polly's minimums, finer than 100 ns) and the features
// Polly's pipeline is not given here (budget, adaptive, max_elapsed,
// min_attempt_time, hedging, instances, idempotency, dead letters,
// layers, pool, bulkheads, fallbacks).
//
// resilience4j-java is a Java class (package retrylab) with
// retryConfig(), circuitBreakerConfig() and timeLimiterConfig() built as
// the resilience4j export writes the YAML, with the same decisions and
// warnings: RetryConfig.custom().maxAttempts, waitDuration or
// intervalFunction(IntervalFunction.ofRandomized, ofExponentialBackoff,
// ofExponentialRandomBackoff), retryExceptions and ignoreExceptions;
// CircuitBreakerConfig.custom().slidingWindow(size, minimum, type),
// failureRateThreshold, waitDurationInOpenState,
// permittedNumberOfCallsInHalfOpenState and the slow-call thresholds;
// TimeLimiterConfig.custom().timeoutDuration; and decorate(), the
// retry around the breaker (or inside it, placement outside).
//
// Neither Maven Central nor NuGet is reachable where RetryLab is tested,
// so neither is compiled against its library: the conformance module
// parses every Java export with the JDK's parser (javac's
// JavacTask.parse) and reads its builder calls back against the YAML
// export's values, and checks the YAML exports strictly against the keys
// and types of resilience4j's property classes (sigs.k8s.io/yaml). No C#
// parser is available: the C# is checked by its goldens only.
package convert
