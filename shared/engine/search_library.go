package engine

import (
	"encoding/json"
	"slices"
)

// A Library is what a retry library's configuration can express, for the
// default search of a strategy based on one of its presets: the knobs
// DefaultSearchFor gives such a strategy instead of DefaultSearch's, each
// value one the library's exporter (package convert, format Format)
// writes exactly, without a warning, so that the search's recommendation
// can be shipped in that format as it is. The fields the knobs do not set
// are the strategy's own (as imported, or as its preset gives them).
//
// Name is the name Search.Within takes, Label the library for people
// ("gRPC"), Presets the presets (a strategy's based_on) it applies to and
// Limits says in words what the knobs keep to.
//
// Preset, where the library has several presets, names the one a
// strategy with its settings is based on, by what the strategy has (gRPC's
// retryThrottling, Envoy's retry_budget): the importer labels what it
// reads with it, and a search's candidate is labelled with it, so that
// "based on" stays true of a candidate whose budget a knob changed.
type Library struct {
	Name    string
	Label   string
	Format  string
	Presets []string
	Limits  string
	Knobs   []Knob
	Preset  func(st *Strategy) string
}

// grpcPreset: gRFC A6's retryPolicy, with retryThrottling's token bucket
// or without.
func grpcPreset(st *Strategy) string {
	if st.Budget != nil {
		return "grpc-retry-throttling"
	}
	return "grpc-retry"
}

// envoyPreset: Envoy's retry policy, with a retry_budget (a share of the
// active requests) or without (none, or the max_retries threshold).
func envoyPreset(st *Strategy) string {
	if st.Budget != nil && st.Budget.Ratio > 0 {
		return "envoy-retry-budget"
	}
	return "envoy-retry"
}

// Relabel sets st's based_on to the preset of its library that its
// settings match (Library.Preset), when it is based on a preset of a
// library that has several.
func Relabel(st *Strategy) {
	if lib := libraryOf(st); lib != nil && lib.Preset != nil {
		st.BasedOn = lib.Preset(st)
	}
}

// Sentence says which limits a search was kept within: "searched within
// gRPC's limits (every candidate exports as grpc exactly): 2..5
// attempts, ...".
func (l *Library) Sentence() string {
	return "searched within " + l.Label + "'s limits (every candidate exports as " + l.Format + " exactly): " + l.Limits
}

func rawValues(vs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		out[i] = json.RawMessage(v)
	}
	return out
}

// The four exponential backoffs of DefaultSearch with their doubling
// written out: a format that always doubles reads its backoff back with
// multiplier 2, not 0 (DefaultMultiplier, the same waits).
var doublingBackoffs = rawValues(
	`{"kind":"exponential","base":"100ms","multiplier":2,"max":"2s"}`,
	`{"kind":"exponential","base":"200ms","multiplier":2,"max":"2s"}`,
	`{"kind":"exponential","base":"500ms","multiplier":2,"max":"5s"}`,
	`{"kind":"exponential","base":"1s","multiplier":2,"max":"10s"}`)

// Envoy's doubling back-offs from DefaultSearch's four bases, each capped at
// 10 times its base (Envoy's default max_interval, which Istio keeps to).
var envoyBackoffs = rawValues(
	`{"kind":"exponential","base":"100ms","multiplier":2,"max":"1s"}`,
	`{"kind":"exponential","base":"200ms","multiplier":2,"max":"2s"}`,
	`{"kind":"exponential","base":"500ms","multiplier":2,"max":"5s"}`,
	`{"kind":"exponential","base":"1s","multiplier":2,"max":"10s"}`)

// Libraries are the libraries whose limits DefaultSearchFor keeps a
// strategy based on their presets to. Each entry's values are checked
// against its exporter by package convert's TestLibrarySearchExports,
// which exports every candidate of the default search of a strategy
// based on each preset and reads it back.
var Libraries = []Library{
	{
		Name: "grpc", Label: "gRPC", Format: "grpc",
		Presets: []string{"grpc-retry", "grpc-retry-throttling"}, Preset: grpcPreset,
		Limits: "2..5 attempts (grpc-go makes at most 5), exponential backoff (initialBackoff, maxBackoff, " +
			"backoffMultiplier 2), its own ±20% jitter, and no budget or retryThrottling's token bucket " +
			"(maxTokens 10, tokenRatio 0.1) (32 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `5`)},
			{Path: "backoff", Values: doublingBackoffs},
			{Path: "jitter", Values: rawValues(`{"kind":"proportional","fraction":0.2}`)},
			{Path: "budget", Values: rawValues(`null`, `{"kind":"token_bucket","max_tokens":10,"token_ratio":0.1}`)},
		},
	},
	{
		Name: "envoy", Label: "Envoy", Format: "envoy",
		Presets: []string{"envoy-retry", "envoy-retry-budget"}, Preset: envoyPreset,
		Limits: "2, 3, 4 or 6 attempts (num_retries + 1), its doubling back-off from 100 ms, 200 ms, 500 ms " +
			"or 1 s capped at 10 times the base (its default max_interval, which Istio's retries keep to), " +
			"its own full jitter, and no limit, max_retries 3 (its default circuit breaker) or a retry_budget " +
			"of 20% of the active requests, at least 3 (48 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: envoyBackoffs},
			{Path: "jitter", Values: rawValues(`{"kind":"full"}`)},
			{Path: "budget", Values: rawValues(`null`,
				`{"kind":"concurrency","min_concurrency":3,"share_of":"attempts"}`,
				`{"kind":"concurrency","ratio":0.2,"min_concurrency":3,"share_of":"attempts"}`)},
		},
	},
	{
		// Istio programs Envoy but exposes less of it: a VirtualService's
		// retries (attempts, perTryTimeout, retryOn, backoff: Envoy's
		// base, capped at 10 × base, fully jittered) and its route
		// timeout, and a DestinationRule's connectionPool.http.maxRetries
		// (Envoy's max_retries circuit breaker); no retry_budget.
		Name: "istio", Label: "Istio", Format: "istio",
		Presets: []string{"istio-retry"},
		Limits: "2, 3, 4 or 6 attempts (attempts + 1), Envoy's doubling back-off from 100 ms, 200 ms, 500 ms " +
			"or 1 s (retries.backoff) capped at 10 times the base, its full jitter, and no limit or a " +
			"DestinationRule's maxRetries 3 (Istio exposes no retry_budget) (32 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: envoyBackoffs},
			{Path: "jitter", Values: rawValues(`{"kind":"full"}`)},
			{Path: "budget", Values: rawValues(`null`,
				`{"kind":"concurrency","min_concurrency":3,"share_of":"attempts"}`)},
		},
	},
	{
		Name: "resilience4j", Label: "resilience4j", Format: "resilience4j",
		Presets: []string{"resilience4j"},
		Limits: "2, 3, 4 or 6 attempts, a fixed waitDuration (500 ms, 1 s) or an exponential one doubling " +
			"from 100 ms or 500 ms (no exponentialMaxWaitDuration, which its randomized wait would cross), " +
			"no jitter or its randomizedWaitFactor 0.5, and no budget, which it has not (32 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: rawValues(
				`{"kind":"constant","base":"500ms"}`,
				`{"kind":"constant","base":"1s"}`,
				`{"kind":"exponential","base":"100ms","multiplier":2}`,
				`{"kind":"exponential","base":"500ms","multiplier":2}`)},
			{Path: "jitter", Values: rawValues(`null`, `{"kind":"proportional","fraction":0.5}`)},
			{Path: "budget", Values: rawValues(`null`)},
		},
	},
	{
		Name: "polly", Label: "the .NET standard resilience handler (Polly)", Format: "polly",
		Presets: []string{"ms-standard-resilience"},
		Limits: "2, 3, 4 or 6 attempts (MaxRetryAttempts + 1), its exponential backoff doubling from " +
			"100 ms, 200 ms, 500 ms or 1 s (Delay, MaxDelay), no jitter or UseJitter (±50%, RetryLab's " +
			"stand-in for its exponential jitter), and no budget, which it has not (32 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: doublingBackoffs},
			{Path: "jitter", Values: rawValues(`null`, `{"kind":"proportional","fraction":0.5}`)},
			{Path: "budget", Values: rawValues(`null`)},
		},
	},
	{
		Name: "failsafe-go", Label: "failsafe-go", Format: "failsafe-go",
		Presets: []string{"failsafe-go"},
		Limits: "2, 3, 4 or 6 attempts, WithBackoffFactor doubling from 100 ms, 200 ms, 500 ms or 1 s, " +
			"no jitter or WithJitterFactor(0.25), and no budget or its budget of 20% of executions, " +
			"at least 3 (64 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: doublingBackoffs},
			{Path: "jitter", Values: rawValues(`null`, `{"kind":"proportional","fraction":0.25}`)},
			{Path: "budget", Values: rawValues(`null`, `{"kind":"concurrency","ratio":0.2,"min_concurrency":3}`)},
		},
	},
	{
		Name: "aws", Label: "the AWS SDKs' shared config file", Format: "aws",
		Presets: []string{"aws-standard-2026", "aws-adaptive"},
		Limits: "max_attempts 2..6 only: retry_mode's backoff, jitter and retry quota are the SDK's, " +
			"which the file cannot change (5 candidates)",
		Knobs: []Knob{
			{Path: "max_attempts", Values: rawValues(`2`, `3`, `4`, `5`, `6`)},
		},
	},
}

// LibraryNamed returns the library of that Name, or nil.
func LibraryNamed(name string) *Library {
	i := slices.IndexFunc(Libraries, func(l Library) bool { return l.Name == name })
	if i < 0 {
		return nil
	}
	return &Libraries[i]
}

// libraryOf returns the library whose limits the default search of st
// keeps to: that of the preset st is based on, for a strategy of one
// level without hedging (no library format writes layers or, but gRPC's
// warned one, hedging); nil for any other.
func libraryOf(st *Strategy) *Library {
	if len(st.Layers) > 0 || st.Hedging != nil || st.BasedOn == "" {
		return nil
	}
	for i := range Libraries {
		if slices.Contains(Libraries[i].Presets, st.BasedOn) {
			return &Libraries[i]
		}
	}
	return nil
}
