package convert

import (
	"fmt"
	"strings"
)

// Coverage: what each import format's fields become, the one source of
// docs/formats.md. Every row carries a small document of its own that
// shows it; TestFormatsPage imports each one and checks that a simulated
// row imports without a warning, a warned row with one, and a refused row
// not at all, then renders the page (RenderFormatsPage) and compares it
// with docs/formats.md (go test ./shared/convert -run TestFormatsPage
// -update rewrites it). A row whose importer changes its reading fails
// there until the row says what the importer does.

// How an importer takes a field.
const (
	coverSimulated = "simulated" // read and simulated
	coverWarned    = "warned"    // read, and a warning says what is not simulated
	coverRefused   = "refused"   // an error: nothing is imported
)

// A coverageRow is one field or shape of a format and what RetryLab makes
// of it, with a document showing it.
type coverageRow struct {
	kind  string
	field string
	reads string
	doc   string
}

// coverBesides is, by a row's field, the path of a warning its document
// raises about what another row covers: a simulated row's document may
// need one (every resilience4j circuit breaker warns about the failures
// it records, a row of its own).
var coverBesides = map[string]string{
	r4jOpenRow: "resilience4j.circuitbreaker.instances.cart",
}

const r4jOpenRow = "circuitbreaker enableExponentialBackoff, exponentialBackoffMultiplier, exponentialMaxWaitDurationInOpenState, with waitDurationInOpenState"

// A formatCoverage is one format's rows, and the published documentation
// they follow.
type formatCoverage struct {
	format  string
	sources []string
	rows    []coverageRow
}

const (
	covGRPCBase = `{"methodConfig": [{"name": [{"service": "shop.Cart"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}%s}]%s}`
	covIstioVS  = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: cart\nspec:\n  hosts: [cart]\n  http:\n  - route:\n    - destination:\n        host: cart\n%s"
	covLinkerd  = "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: cart.shop.svc.cluster.local\nspec:\n  routes:\n  - name: GET /cart\n    condition:\n      method: GET\n      pathRegex: /cart\n    isRetryable: true\n%s"
	covR4j      = "resilience4j:\n  retry:\n    instances:\n      cart:\n        maxAttempts: 3\n        waitDuration: 100ms\n%s"
	covEnvoy    = "match:\n  prefix: /\nroute:\n  cluster: cart\n  retry_policy:\n    num_retries: 2\n%s---\n" + covCluster
	covCluster  = "name: cart\nconnect_timeout: 1s\ncircuit_breakers:\n  thresholds:\n  - max_retries: 5\n"
	covOutliers = "lb_policy: LEAST_REQUEST\nload_assignment:\n  endpoints:\n  - lb_endpoints:\n    - endpoint: {address: {socket_address: {address: cart-0, port_value: 80}}}\n    - endpoint: {address: {socket_address: {address: cart-1, port_value: 80}}}\n    - endpoint: {address: {socket_address: {address: cart-2, port_value: 80}}}\noutlier_detection:\n  consecutive_5xx: 3\n  interval: 5s\n  base_ejection_time: 30s\n  max_ejection_percent: 50\ncommon_lb_config:\n  healthy_panic_threshold: {value: 0}\n"
	covIstioDR  = "---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata:\n  name: cart\nspec:\n  host: cart\n  trafficPolicy:\n%s"
)

func covGRPC(policy, top string) string { return fmt.Sprintf(covGRPCBase, policy, top) }

// covIstioRoutes is a VirtualService of n routes with the same retries.
func covIstioRoutes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  - name: r%d\n    timeout: 3s\n    route:\n    - destination:\n        host: cart\n    retries:\n      attempts: 2\n      retryOn: 5xx\n", i)
	}
	return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: cart\nspec:\n  hosts: [cart]\n  http:\n" + b.String()
}

var coverage = []formatCoverage{
	{format: GRPC, sources: []string{
		"gRFC A6, gRPC Retry Design: https://github.com/grpc/proposal/blob/master/A6-client-retries.md",
		"gRPC service config: https://github.com/grpc/grpc/blob/master/doc/service_config.md",
	}, rows: []coverageRow{
		{coverSimulated, "methodConfig[].retryPolicy maxAttempts, initialBackoff, maxBackoff, backoffMultiplier", "max_attempts and an exponential backoff with full jitter, as grpc-go draws it", covGRPC("", "")},
		{coverSimulated, "retryableStatusCodes", "retry_on: each code's HTTP status (google.rpc.Code's mapping; UNAVAILABLE is 503 and connection errors)", covGRPC("", "")},
		{coverSimulated, "methodConfig[].timeout", "deadline", covGRPC(`, "timeout": "2s"`, "")},
		{coverSimulated, "retryThrottling maxTokens, tokenRatio", "a token-bucket budget (gRPC's retry throttling)", covGRPC("", `, "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}`)},
		{coverWarned, "retryPolicy.maxAttempts above 5", "5, grpc-go's limit", `{"methodConfig": [{"name": [{"service": "shop.Cart"}], "retryPolicy": {"maxAttempts": 7, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`},
		{coverWarned, "loadBalancingConfig and other service config fields", "not read", covGRPC("", `, "loadBalancingConfig": [{"round_robin": {}}]`)},
		{coverRefused, "a value grpc-go refuses (maxAttempts below 2, a duration not in protobuf's form such as 100ms, maxTokens above 1000) or an unknown status code", "an error naming the path", `{"methodConfig": [{"name": [{"service": "shop.Cart"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["SOMETIMES"]}}]}`},
	}},
	{format: Envoy, sources: []string{
		"RetryPolicy, route_components.proto: https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto",
		"router filter, x-envoy-retry-on and x-envoy-retry-grpc-on: https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter",
		"circuit breakers: https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/circuit_breaker.proto",
		"outlier detection: https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/outlier_detection.proto",
		"/config_dump: https://www.envoyproxy.io/docs/envoy/latest/api-v3/admin/v3/config_dump.proto",
	}, rows: []coverageRow{
		{coverSimulated, "retry_policy num_retries, per_try_timeout, retry_back_off", "max_attempts, attempt_timeout, exponential backoff with full jitter (Envoy's)", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n    per_try_timeout: 0.5s\n    retry_back_off:\n      base_interval: 0.05s\n  timeout: 3s\n")},
		{coverSimulated, "retry_on 5xx, gateway-error, reset, connect-failure, retriable-4xx, retriable-status-codes", "retry_on statuses, timeouts and connection errors", fmt.Sprintf(covEnvoy, "    retry_on: gateway-error,retriable-status-codes\n    retriable_status_codes: [429]\n  timeout: 3s\n")},
		{coverSimulated, "route.timeout", "deadline (absent: Envoy's 15 s, an info)", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n  timeout: 3s\n")},
		{coverSimulated, "a top-level list of RouteConfigurations and Clusters; /config_dump output", "read as resources", "- name: r\n  virtual_hosts:\n  - name: v\n    domains: [\"*\"]\n    routes:\n    - match: {prefix: /}\n      route:\n        cluster: cart\n        timeout: 3s\n        retry_policy: {retry_on: 5xx, num_retries: 2}\n- name: cart\n  connect_timeout: 1s\n  circuit_breakers:\n    thresholds:\n    - max_retries: 5\n"},
		{coverSimulated, "circuit_breakers thresholds max_retries, retry_budget", "a concurrency budget counting the retries in progress", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n  timeout: 3s\n")},
		{coverWarned, "a route whose Cluster is not in the document", "Envoy's default max_retries 3 is not simulated", "match:\n  prefix: /\nroute:\n  cluster: cart\n  timeout: 3s\n  retry_policy: {retry_on: 5xx, num_retries: 2}\n"},
		{coverWarned, "retry_on gRPC conditions (unavailable, cancelled, deadline-exceeded, internal, resource-exhausted)", "nothing: Envoy tests them on the grpc-status header only, which RetryLab's HTTP dependency never sends; the warning names the status to add for a gRPC service", fmt.Sprintf(covEnvoy, "    retry_on: connect-failure,unavailable\n  timeout: 3s\n")},
		{coverSimulated, "the Cluster's outlier_detection (consecutive_5xx, consecutive_gateway_failure with its enforcing_, enforcing_consecutive_5xx 0 or 100, interval, base_ejection_time, max_ejection_time, max_ejection_percent), common_lb_config.healthy_panic_threshold, lb_policy", "dependency.backends: the cluster's lb_endpoints (when it lists fewer than 2, 3 are assumed, an info) behind a round_robin, random or power_of_two_choices (LEAST_REQUEST) balancer, with outlier detection", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n  timeout: 3s\n") + covOutliers},
		{coverSimulated, "retry_host_predicate envoy.retry_host_predicates.previous_hosts, host_selection_retry_max_attempts", "retry_host_predicate previous_hosts, when the route's Cluster has backends (outlier_detection, or several lb_endpoints); else a warning, and not read", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n    retry_host_predicate:\n    - name: envoy.retry_host_predicates.previous_hosts\n    host_selection_retry_max_attempts: 3\n  timeout: 3s\n") + covOutliers},
		{coverSimulated, "circuit_breakers thresholds max_connections, max_pending_requests, max_requests", "connection_limits on the route's attempts, per client instance: one set makes the others Envoy's default, 1024 (an info); none set, Envoy's defaults are not simulated (an info); an HTTP/2 cluster's max_requests only", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n  timeout: 3s\n") + "    max_connections: 100\n    max_pending_requests: 10\n"},
		{coverWarned, "circuit_breakers per_host_thresholds, max_connection_pools", "not simulated: RetryLab's connection limits are the cluster's", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n  timeout: 3s\n") + "    max_connection_pools: 10\n"},
		{coverWarned, "retriable_headers, retry_priority, the other retry host predicates; outlier_detection's success-rate, failure-percentage and local-origin fields", "not simulated: RetryLab's answers have no headers, its backends one priority and no metadata", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n    retriable_headers:\n    - name: x-retry\n  timeout: 3s\n")},
		{coverRefused, "durations not in protobuf's form, budget_percent above 100, num_retries beyond 99", "an error naming the path", fmt.Sprintf(covEnvoy, "    retry_on: 5xx\n    per_try_timeout: 250ms\n")},
	}},
	{format: Istio, sources: []string{
		"VirtualService HTTPRetry: https://istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRetry",
		"DestinationRule: https://istio.io/latest/docs/reference/config/networking/destination-rule/ (outlierDetection: #OutlierDetection)",
	}, rows: []coverageRow{
		{coverSimulated, "http[].retries attempts, perTryTimeout, retryOn; http[].timeout", "max_attempts, attempt_timeout, retry_on, deadline; Envoy's backoff (25 ms base)", fmt.Sprintf(covIstioVS, "    timeout: 3s\n    retries:\n      attempts: 2\n      perTryTimeout: 1s\n      retryOn: 5xx\n")},
		{coverSimulated, "retries absent", "Istio's default, 2 retries on connection errors (an info)", fmt.Sprintf(covIstioVS, "    timeout: 3s\n")},
		{coverSimulated, "more routes than a scenario compares (20), with identical retries", "one strategy listing them (an info), as for every format", covIstioRoutes(21)},
		{coverWarned, "retryOn gRPC conditions (unavailable, cancelled, ...)", "nothing, as Envoy tests them (grpc-status only), with a warning naming the status to add for a gRPC service", fmt.Sprintf(covIstioVS, "    timeout: 3s\n    retries:\n      attempts: 2\n      retryOn: connect-failure,unavailable\n")},
		{coverWarned, "retryOn envoy-ratelimited, retriable-headers", "not simulated", fmt.Sprintf(covIstioVS, "    timeout: 3s\n    retries:\n      attempts: 2\n      retryOn: 5xx,retriable-headers\n")},
		{coverSimulated, "DestinationRule connectionPool.http.maxRetries", "a concurrency budget counting the retries in progress", fmt.Sprintf(covIstioVS, "    timeout: 3s\n") + fmt.Sprintf(covIstioDR, "    connectionPool:\n      http:\n        maxRetries: 3\n")},
		{coverSimulated, "DestinationRule outlierDetection consecutive5xxErrors, consecutiveGatewayErrors, interval, baseEjectionTime, maxEjectionPercent, minHealthPercent; loadBalancer.simple; retries.retryIgnorePreviousHosts", "dependency.backends (3 assumed, an info: a DestinationRule does not say how many pods serve the host) with outlier detection, behind a round_robin, random or power_of_two_choices balancer (LEAST_REQUEST, also Istio's default when loadBalancer is not set); the routes' retries avoid hosts tried already (Istio's default: previous_hosts, 5 reselections), unless retryIgnorePreviousHosts is false", fmt.Sprintf(covIstioVS, "    timeout: 3s\n") + fmt.Sprintf(covIstioDR, "    loadBalancer:\n      simple: LEAST_REQUEST\n    outlierDetection:\n      consecutive5xxErrors: 3\n      interval: 5s\n      baseEjectionTime: 30s\n      maxEjectionPercent: 50\n")},
		{coverSimulated, "DestinationRule connectionPool http1MaxPendingRequests, http2MaxRequests, tcp.maxConnections (h2UpgradePolicy UPGRADE: http2MaxRequests only)", "connection_limits max_pending, max_requests, max_connections on the routes' attempts, per client instance, as Istio writes them into Envoy's circuit_breakers (0 or absent: no limit)", fmt.Sprintf(covIstioVS, "    timeout: 3s\n") + fmt.Sprintf(covIstioDR, "    connectionPool:\n      tcp:\n        maxConnections: 100\n      http:\n        http1MaxPendingRequests: 10\n        http2MaxRequests: 100\n")},
		{coverRefused, "a retryOn condition Envoy does not know, a number net/http does not name", "an error naming the path", fmt.Sprintf(covIstioVS, "    retries:\n      attempts: 2\n      retryOn: 5xx,sometimes\n")},
	}},
	{format: Linkerd, sources: []string{
		"ServiceProfile: https://linkerd.io/2/reference/service-profiles/",
		"retries: https://linkerd.io/2/tasks/configuring-retries/ and https://linkerd.io/2/reference/retries/",
	}, rows: []coverageRow{
		{coverSimulated, "routes[].isRetryable, timeout", "unlimited attempts without backoff, bounded by the retry budget (absent: Linkerd's default) and the route's deadline", fmt.Sprintf(covLinkerd, "    timeout: 300ms\n")},
		{coverWarned, "retryBudget retryRatio, minRetriesPerSecond, ttl", "a ratio budget in 10 slices of ttl (Finagle's); the warning says how the proxy's budget differs (it deposits per answer it does not retry)", fmt.Sprintf(covLinkerd, "  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: 10\n    ttl: 10s\n")},
		{coverWarned, "retryBudget.ttl outside 1s to 60s", "no retries: the proxy drops such a budget and never retries (the CRD accepts it)", fmt.Sprintf(covLinkerd, "  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: 10\n    ttl: 2m\n")},
		{coverRefused, "a route without a name or a condition, a ratio of 0, a timeout without a unit", "an error naming the path", "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: cart.shop.svc.cluster.local\nspec:\n  routes:\n  - isRetryable: true\n    timeout: \"300\"\n"},
	}},
	{format: Resilience4j, sources: []string{
		"Retry: https://resilience4j.readme.io/docs/retry",
		"CircuitBreaker: https://resilience4j.readme.io/docs/circuitbreaker",
		"Spring Boot 3: https://resilience4j.readme.io/docs/getting-started-3",
		"Bulkhead: https://resilience4j.readme.io/docs/bulkhead",
		"RateLimiter: https://resilience4j.readme.io/docs/ratelimiter",
	}, rows: []coverageRow{
		{coverSimulated, "retry maxAttempts, waitDuration, enableExponentialBackoff, exponentialBackoffMultiplier, exponentialMaxWaitDuration", "max_attempts and the backoff", fmt.Sprintf(covR4j, "        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 2\n        retryExceptions:\n        - org.springframework.web.client.HttpServerErrorException\n")},
		{coverSimulated, "retryExceptions, ignoreExceptions naming Spring's web client, java.io and java.net, Feign exceptions", "retry_on: the statuses, timeouts and connection errors they stand for", fmt.Sprintf(covR4j, "        retryExceptions:\n        - org.springframework.web.client.HttpServerErrorException\n        - java.io.IOException\n")},
		{coverWarned, "retryExceptions naming only exceptions RetryLab does not know", "no retries (resilience4j retries only those), with a warning", fmt.Sprintf(covR4j, "        retryExceptions:\n        - com.example.CartUnavailable\n")},
		{coverSimulated, "bulkhead maxConcurrentCalls, maxWaitDuration, with bulkheadAspectOrder below retryAspectOrder", "a bulkhead held for the whole call (max_concurrent, max_wait, an unbounded line)", fmt.Sprintf(covR4j, "  bulkhead:\n    bulkheadAspectOrder: 1\n    instances:\n      cart:\n        maxConcurrentCalls: 10\n        maxWaitDuration: 50ms\n")},
		{coverSimulated, "thread-pool-bulkhead maxThreadPoolSize, queueCapacity, with coreThreadPoolSize equal to maxThreadPoolSize", "a bulkhead of maxThreadPoolSize slots over a line of queueCapacity", "resilience4j:\n  thread-pool-bulkhead:\n    instances:\n      cart:\n        maxThreadPoolSize: 8\n        coreThreadPoolSize: 8\n        queueCapacity: 20\n"},
		{coverWarned, "bulkhead inside the retry (bulkheadAspectOrder's default)", "a bulkhead held for the whole call, retries and waits included, where resilience4j takes a permit per attempt", fmt.Sprintf(covR4j, "  bulkhead:\n    instances:\n      cart:\n        maxConcurrentCalls: 10\n")},
		{coverWarned, "thread-pool-bulkhead coreThreadPoolSize below maxThreadPoolSize", "maxThreadPoolSize slots before any call waits, where Java's ThreadPoolExecutor queues once the core threads are busy", "resilience4j:\n  thread-pool-bulkhead:\n    instances:\n      cart:\n        maxThreadPoolSize: 8\n        coreThreadPoolSize: 2\n        queueCapacity: 20\n"},
		{coverSimulated, r4jOpenRow, "breaker.open_multiplier and max_open: each reopening after a failed half-open round stays open the multiplier times longer, up to the cap, and the first after the breaker closes waitDurationInOpenState again", "resilience4j:\n  circuitbreaker:\n    instances:\n      cart:\n        waitDurationInOpenState: 5s\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 2\n        exponentialMaxWaitDurationInOpenState: 1m\n"},
		{coverWarned, "circuitbreaker without recordExceptions (every exception a failure)", "the engine's breaker counts timeouts, connection errors, 408, 429 and 5xx as failures, not the other 4xx an HTTP client throws on", "resilience4j:\n  circuitbreaker:\n    instances:\n      cart:\n        waitDurationInOpenState: 5s\n"},
		{coverWarned, "circuitbreaker enableRandomizedWait, randomizedWaitFactor", "every open state lasts waitDurationInOpenState (the engine's open state is not randomized); the warning says how resilience4j draws it", "resilience4j:\n  circuitbreaker:\n    instances:\n      cart:\n        waitDurationInOpenState: 5s\n        enableRandomizedWait: true\n"},
		{coverSimulated, "ratelimiter limitForPeriod, limitRefreshPeriod, timeoutDuration (inside the retry, rateLimiterAspectOrder's default)", "client_rate_limit fixed-window (AtomicRateLimiter's cycles): each attempt takes a permit, or waits up to timeoutDuration for a later cycle's, else is refused, unretried", fmt.Sprintf(covR4j, "        retryExceptions:\n        - java.io.IOException\n  ratelimiter:\n    instances:\n      cart:\n        limitForPeriod: 50\n        limitRefreshPeriod: 1s\n        timeoutDuration: 100ms\n")},
		{coverWarned, "ratelimiter beside a retry without retryExceptions, outside the retry (rateLimiterAspectOrder below retryAspectOrder), or beside a circuitbreaker", "a permit per attempt, asked before the breaker, a refusal never retried: resilience4j's Retry retries RequestNotPermitted by default, outside the retry a call takes one permit, and its breaker decides first and records a refusal", fmt.Sprintf(covR4j, "  ratelimiter:\n    instances:\n      cart:\n        limitForPeriod: 50\n        limitRefreshPeriod: 1s\n")},
		{coverRefused, "a bulkhead of maxConcurrentCalls 0, a coreThreadPoolSize above maxThreadPoolSize", "an error naming the path", "resilience4j:\n  bulkhead:\n    instances:\n      cart:\n        maxConcurrentCalls: 0\n"},
		{coverRefused, "a property of the wrong type, a negative duration", "an error naming the path", fmt.Sprintf(covR4j, "        enableExponentialBackoff: sometimes\n")},
	}},
	{format: Polly, sources: []string{
		"HttpStandardResilienceOptions: https://learn.microsoft.com/dotnet/api/microsoft.extensions.http.resilience.httpstandardresilienceoptions",
		"HTTP resilience: https://learn.microsoft.com/dotnet/core/resilience/http-resilience",
		"rate limiter: https://www.pollydocs.org/strategies/rate-limiter.html",
		"hedging: https://www.pollydocs.org/strategies/hedging.html",
	}, rows: []coverageRow{
		{coverSimulated, "Retry MaxRetryAttempts, BackoffType, Delay", "max_attempts and the backoff, as Polly v8 computes it", `{"Retry": {"MaxRetryAttempts": 3, "BackoffType": "Exponential", "Delay": "00:00:00.2", "UseJitter": false}}`},
		{coverSimulated, "CircuitBreaker FailureRatio, MinimumThroughput, SamplingDuration, BreakDuration", "a ratio breaker", `{"Retry": {"MaxRetryAttempts": 3, "UseJitter": false}, "CircuitBreaker": {"FailureRatio": 0.2, "MinimumThroughput": 50, "SamplingDuration": "00:00:30", "BreakDuration": "00:00:05"}}`},
		{coverSimulated, "RateLimiter DefaultRateLimiterOptions PermitLimit, QueueLimit (a ConcurrencyLimiter, outermost in the handler)", "a bulkhead held for the whole request, retries included", `{"Retry": {"MaxRetryAttempts": 3, "UseJitter": false}, "RateLimiter": {"DefaultRateLimiterOptions": {"PermitLimit": 20, "QueueLimit": 5}}}`},
		{coverSimulated, "HttpStandardHedgingResilienceOptions Hedging MaxHedgedAttempts, Delay; TotalRequestTimeout; Endpoint Timeout, CircuitBreaker", "hedging: MaxHedgedAttempts + 1 copies, Delay apart or at once after a failure; deadline, attempt_timeout, a breaker around each copy", `{"Hedging": {"MaxHedgedAttempts": 2, "Delay": "00:00:00.3"}, "Endpoint": {"Timeout": {"Timeout": "00:00:05"}}}`},
		{coverWarned, "UseJitter with an exponential backoff (the standard handler's default)", "±50% around each delay, an approximation of Polly's decorrelated jitter", `{"Retry": {"MaxRetryAttempts": 3, "BackoffType": "Exponential", "UseJitter": true}}`},
		{coverWarned, "the hedging handler's Endpoint RateLimiter", "a bulkhead held by the whole hedged call, where Polly's takes a permit per copy", `{"Hedging": {"MaxHedgedAttempts": 2}, "Endpoint": {"RateLimiter": {"DefaultRateLimiterOptions": {"PermitLimit": 50}}}}`},
		{coverWarned, "RateLimiter QueueProcessingOrder NewestFirst", "the line is served oldest first", `{"Retry": {"MaxRetryAttempts": 3, "UseJitter": false}, "RateLimiter": {"DefaultRateLimiterOptions": {"PermitLimit": 20, "QueueLimit": 5, "QueueProcessingOrder": "NewestFirst"}}}`},
		{coverRefused, "a value out of Polly's range (MaxRetryAttempts -1, FailureRatio 1.5, PermitLimit 0, MaxHedgedAttempts 11)", "an error naming the path", `{"Retry": {"MaxRetryAttempts": -1}}`},
	}},
	{format: AWS, sources: []string{
		"retry behavior: https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html",
		"shared config file format: https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html",
	}, rows: []coverageRow{
		{coverSimulated, "retry_mode standard, max_attempts", "the aws-standard preset (its retry quota as a token bucket)", "[default]\nretry_mode = standard\nmax_attempts = 5\n"},
		{coverSimulated, "[profile NAME] sections", "one strategy per profile that sets retry_mode or max_attempts", "[default]\nretry_mode = standard\n\n[profile batch]\nretry_mode = standard\nmax_attempts = 10\n"},
		{coverSimulated, "retry_mode adaptive", "the aws-adaptive preset: standard mode plus the SDK's client-side rate limiter (client_rate_limit aws-adaptive: CUBIC, as aws-sdk-go-v2 computes it)", "[default]\nretry_mode = adaptive\n"},
		{coverRefused, "a file with no profile setting retry_mode or max_attempts", "nothing to import", "[default]\nregion = us-west-2\n"},
		{coverWarned, "an invalid profile (an unknown retry_mode, max_attempts 0) beside valid ones", "left out, with a warning naming it: the SDKs load the others", "[default]\nretry_mode = standard\n\n[profile broken]\nretry_mode = fast\n"},
		{coverRefused, "a file whose every retry profile is invalid", "an error naming the profile and the setting", "[default]\nretry_mode = fast\n"},
	}},
}

// RenderFormatsPage renders docs/formats.md from the coverage table.
func RenderFormatsPage() []byte {
	var b strings.Builder
	b.WriteString("# Configuration formats: what RetryLab reads\n\n")
	b.WriteString("[RetryLab](../README.md) manual: [all pages](../README.md#the-manual)\n\n")
	b.WriteString("<!-- Generated by go test ./shared/convert -run TestFormatsPage -update from shared/convert/coverage.go; do not edit. -->\n\n")
	b.WriteString("`retrylab import --from FORMAT FILE` (and the playground's Import, and `POST /api/import`) reads a retry configuration into strategies. ")
	b.WriteString("For each format, this page says what is **read and simulated**, what is **read and warned** (imported, with a warning saying what the simulation does not do as the library does), and what is **refused** (an error naming the path; nothing is imported). ")
	b.WriteString("Every row is checked by importing a small document written for it; the details of every field are in the package documentation of `shared/convert` (`go doc ./shared/convert`).\n")
	for _, f := range coverage {
		fmt.Fprintf(&b, "\n## %s (`%s`)\n\n", Label(f.format), f.format)
		b.WriteString("Follows the published documentation:\n\n")
		for _, s := range f.sources {
			fmt.Fprintf(&b, "- %s\n", s)
		}
		for _, kind := range []struct{ kind, title string }{{coverSimulated, "Read and simulated"}, {coverWarned, "Read and warned"}, {coverRefused, "Refused"}} {
			var rows []coverageRow
			for _, r := range f.rows {
				if r.kind == kind.kind {
					rows = append(rows, r)
				}
			}
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n### %s\n\n| field | read as |\n| --- | --- |\n", kind.title)
			for _, r := range rows {
				fmt.Fprintf(&b, "| %s | %s |\n", mdCell(r.field), mdCell(r.reads))
			}
		}
	}
	return []byte(b.String())
}

// mdCell escapes a table cell's pipes.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
