package convert

import (
	"bytes"
	"regexp"
	"strings"
)

// detectors recognise each import format by the keys its documents are
// made of, in order: the first that matches names the format. Istio and
// Linkerd come before Envoy (a mesh's resources may name Envoy's terms in
// comments), gRPC before Polly (both are JSON objects).
var detectors = []struct {
	format string
	re     *regexp.Regexp
}{
	{Istio, regexp.MustCompile(`(?m)^\s*"?apiVersion"?\s*:\s*"?networking\.istio\.io/`)},
	{Linkerd, regexp.MustCompile(`(?m)(^\s*"?apiVersion"?\s*:\s*"?linkerd\.io/|^\s*"?(retry|timeout)\.linkerd\.io/)`)},
	{Resilience4j, regexp.MustCompile(`(?m)^"?resilience4j(\.[a-z]+)?"?\s*[:.=]`)},
	{GRPC, regexp.MustCompile(`"(methodConfig|retryThrottling)"\s*:`)},
	{Polly, regexp.MustCompile(`"(MaxRetryAttempts|BackoffType|UseJitter|Resilience|MaxHedgedAttempts|DefaultRateLimiterOptions)"\s*:`)},
	// Envoy's keys may begin an item of a top-level list of resources
	// ("- virtual_hosts:", "- circuit_breakers:"), as Envoy Gateway
	// prints them.
	{Envoy, regexp.MustCompile(`(?m)(^[\s-]*"?(virtual_hosts|retry_policy|static_resources|route_config|dynamic_route_configs|dynamic_active_clusters|circuit_breakers)"?\s*:|type\.googleapis\.com/envoy\.)`)},
	{AWS, regexp.MustCompile(`(?m)^\s*\[(default|profile [^\]]+)\]\s*$`)},
}

// Detect returns the import format a document looks like (one of
// ImportFormats), from the keys it is made of, or "" when it looks like
// none: a RetryLab scenario, for one. It reads no further than it must
// and never fails; Import still decides whether the document is valid.
func Detect(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for _, d := range detectors {
		if d.re.Match(data) {
			return d.format
		}
	}
	return ""
}

// ImportHint says where a retry configuration given where a scenario was
// expected goes: the format it looks like (Detect) and how to import it;
// "" when it looks like none, for the document to be judged as a scenario
// by its own errors.
func ImportHint(data []byte) string {
	format := Detect(data)
	if format == "" {
		return ""
	}
	return "This looks like " + Described(format) + ", not a RetryLab scenario: import it instead, with Import a policy in the playground, " +
		"retrylab import --from " + format + " FILE, or POST /api/import?format=" + format + "; the import puts its policies on a built-in scenario to edit."
}

// Described names a format for a sentence, with its article: "a gRPC
// service config (JSON)", "an Envoy route and cluster (YAML)".
func Described(format string) string {
	label := Label(format)
	if label != "" && strings.ContainsRune("AEIOaeio", rune(label[0])) {
		return "an " + label
	}
	return "a " + label
}
