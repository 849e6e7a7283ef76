package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/retrylab/retrylab/shared/engine"
)

// awsStandard returns the AWS SDKs' standard retry mode as RetryLab
// simulates it: the aws-standard-2026 preset of shared/scenarios
// (aws-sdk-go-v2 v1.48 aws/retry), which the tests check field by field.
func awsStandard(attempts int) engine.Policy {
	return engine.Policy{
		BasedOn:     "aws-standard-2026",
		MaxAttempts: attempts,
		Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: engine.Duration(50e6), Multiplier: 2,
			Max: engine.Duration(20e9), ThrottleBase: engine.Duration(1e9)},
		Jitter:          engine.Jitter{Kind: engine.JitterFull},
		RetryOn:         &engine.RetryOn{Statuses: []int{429, 500, 502, 503, 504}, Timeout: true, Connection: true},
		HonorRetryAfter: true,
		Budget: &engine.Budget{Kind: engine.BudgetTokenBucket, MaxTokens: 500, Charge: engine.ChargeRetry,
			FailureCost: 14, ThrottleCost: 5, TokenRatio: 1, Refund: true},
	}
}

// awsDefaultAttempts is standard and adaptive modes' max_attempts.
const awsDefaultAttempts = 3

const awsRetryDocs = "https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html"

// awsSettings are the shared config file settings that are not about
// retries, read and left out without a warning.
var awsSettings = map[string]bool{
	"region": true, "output": true, "sso_session": true, "sso_account_id": true, "sso_role_name": true,
	"sso_start_url": true, "sso_region": true, "sso_registration_scopes": true, "role_arn": true,
	"source_profile": true, "credential_source": true, "credential_process": true, "external_id": true,
	"mfa_serial": true, "role_session_name": true, "duration_seconds": true, "web_identity_token_file": true,
	"aws_access_key_id": true, "aws_secret_access_key": true, "aws_session_token": true, "ca_bundle": true,
	"cli_pager": true, "cli_timestamp_format": true, "endpoint_url": true, "services": true,
	"use_fips_endpoint": true, "use_dualstack_endpoint": true, "defaults_mode": true,
	"sts_regional_endpoints": true, "parameter_validation": true, "s3": true,
}

// awsProfile is one profile section being read.
type awsProfile struct {
	name     string
	path     string
	mode     string
	modePath string
	attempts int
	attPath  string
	seen     map[string]int // the line each setting is given at
	// What makes the profile invalid: the SDK fails to load it when it
	// is used, and loads the others.
	bad notes
}

func importAWS(data []byte) (*Imported, error) {
	var n notes
	var profiles []*awsProfile
	var cur *awsProfile
	skipping := false            // inside a section that is not a profile
	sections := map[string]int{} // the line each profile's header is at
	lines := strings.Split(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n")
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		at := fmt.Sprintf("line %d", i+1)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				n.fail(at, line, "is not a section header; allowed [default] or [profile NAME]")
				continue
			}
			name := strings.TrimSpace(line[1 : len(line)-1])
			kind, rest, _ := strings.Cut(name, " ")
			cur, skipping = nil, false
			switch {
			case name == "default":
				cur = &awsProfile{name: "default", path: "[default]"}
			case kind == "profile" && strings.TrimSpace(rest) != "":
				cur = &awsProfile{name: strings.TrimSpace(rest), path: "[profile " + strings.TrimSpace(rest) + "]"}
			default:
				skipping = true
				n.info("["+name+"]", "is not a profile; not read")
			}
			if cur != nil {
				if first, ok := sections[cur.path]; ok {
					n.fail(at, line, "is given twice (first at line %d); allowed once, with all its settings", first)
					cur, skipping = nil, true
					continue
				}
				sections[cur.path] = i + 1
				cur.seen = map[string]int{}
				profiles = append(profiles, cur)
			}
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			// A nested setting (services, s3): not about retries.
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			n.fail(at, line, "is not a setting; allowed name = value")
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if k := strings.IndexAny(val, "#;"); k > 0 && (val[k-1] == ' ' || val[k-1] == '\t') {
			val = strings.TrimSpace(val[:k])
		}
		if skipping {
			continue
		}
		if cur == nil {
			n.fail(at, key, "comes before any section; settings belong to [default] or [profile NAME]")
			continue
		}
		p := cur.path + "." + key
		if first, ok := cur.seen[key]; ok {
			cur.bad.fail(p, val, "is given twice (first at line %d, again at line %d); allowed once", first, i+1)
			continue
		}
		cur.seen[key] = i + 1
		switch key {
		case "retry_mode":
			cur.mode, cur.modePath = strings.ToLower(val), p
			switch cur.mode {
			case "standard", "adaptive", "legacy":
			default:
				cur.bad.fail(p, val, "is not a retry mode; allowed standard, adaptive or legacy")
			}
		case "max_attempts":
			k, err := strconv.Atoi(val)
			if err != nil || k < 1 || k > engine.MaxAttempts {
				cur.bad.fail(p, val, "is out of range; allowed a whole number from 1 to %d (the SDKs take any number above 0; RetryLab simulates up to %d)", engine.MaxAttempts, engine.MaxAttempts)
				continue
			}
			cur.attempts, cur.attPath = k, p
		default:
			if !awsSettings[key] {
				n.warn(p, "is not a setting RetryLab reads; not read")
			}
		}
	}
	// An invalid profile is left out, with a warning naming it, when
	// another imports; when none would, the file is refused with every
	// error.
	good := 0
	for _, pr := range profiles {
		if len(pr.bad.errs) == 0 && (pr.mode != "" || pr.attempts != 0) {
			good++
		}
	}
	for _, pr := range profiles {
		if len(pr.bad.errs) > 0 && (good == 0 || len(n.errs) > 0) {
			n.errs = append(n.errs, pr.bad.errs...)
		}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	var sts []engine.Strategy
	for _, pr := range profiles {
		if len(pr.bad.errs) > 0 {
			var why []string
			for _, e := range pr.bad.errs {
				why = append(why, e.Error())
			}
			n.warn(pr.path, "is invalid and not imported (the SDK fails to load it when it is used, and loads the others): %s", strings.Join(why, "; "))
			continue
		}
		if pr.mode == "" && pr.attempts == 0 {
			continue
		}
		attempts := pr.attempts
		if attempts == 0 {
			attempts = awsDefaultAttempts
			n.info(pr.path, "sets no max_attempts: standard mode's default, %d attempts", awsDefaultAttempts)
		}
		pol := awsStandard(attempts)
		switch pr.mode {
		case "adaptive":
			pol.BasedOn = "aws-adaptive"
			pol.RateLimit = &engine.RateLimit{Kind: engine.RateLimitAWSAdaptive}
		case "legacy":
			n.warn(pr.modePath, "legacy mode is specific to each SDK (%s) and aws-sdk-go-v2 has none: imported as standard mode, whose waits, retried errors and quota may differ from your SDK's legacy mode", awsRetryDocs)
		case "":
			n.warn(pr.path, "sets no retry_mode: the documented default is legacy, specific to each SDK (%s), while aws-sdk-go-v2 and the newer SDKs default to standard: imported as standard mode", awsRetryDocs)
		}
		sts = append(sts, engine.Strategy{Name: pr.name, Policy: pol})
	}
	if len(sts) == 0 {
		return nil, engine.Errors{{Value: "the document", Message: "has no profile setting retry_mode or max_attempts; nothing to import (allowed [default] or [profile NAME] with retry_mode = standard|adaptive|legacy and max_attempts = N)"}}
	}
	return &Imported{Strategies: sts, Notes: n.list}, nil
}

func exportAWS(st *engine.Strategy, n *notes) []byte {
	unsupported(n, st, "The AWS shared config file", "max_attempts", "attempt_timeout", "deadline", "min_attempt_time",
		"backoff", "jitter", "retry_on", "honor_retry_after", "retry_after", "max_elapsed", "retry_non_idempotent",
		"idempotency_key", "dead_letter", "budget", "breaker", "adaptive", "instances", "hedging", "client_rate_limit")
	mode := "standard"
	if st.BasedOn == "aws-adaptive" || st.RateLimit != nil && st.RateLimit.Kind == engine.RateLimitAWSAdaptive {
		mode = "adaptive"
	}
	attempts := st.MaxAttempts
	if attempts == 0 {
		n.warn("max_attempts", "is unlimited; the SDKs need a number above 0: max_attempts is left out (%d attempts)", awsDefaultAttempts)
	}
	// Every other field is standard mode's, which the file cannot change.
	want := awsStandard(st.MaxAttempts)
	if mode == "adaptive" {
		want.RateLimit = &engine.RateLimit{Kind: engine.RateLimitAWSAdaptive}
	}
	got := st.Policy
	got.Preset, got.BasedOn, want.BasedOn = "", "", ""
	wf, gf := policyMap(want), policyMap(got)
	for _, f := range policyFeatures {
		if f.field == "max_attempts" {
			continue
		}
		w, g := wf[f.field], gf[f.field]
		if string(w) == string(g) || f.field == "retry_on" && sameRetried(got.RetryOn, want.RetryOn) {
			continue
		}
		switch {
		case g == nil:
			n.warn(f.field, "is not set here, but %s mode has %s (%s); the shared config file cannot turn it off", mode, f.what, w)
		case w == nil:
			n.warn(f.field, "%s is not part of the SDKs' %s mode and the shared config file cannot add it; not exported", f.what, mode)
		default:
			n.warn(f.field, "is %s here and %s in the SDKs' %s mode; the shared config file sets only retry_mode and max_attempts: not exported", g, w, mode)
		}
	}
	var b strings.Builder
	b.WriteString(awsSection(n, st))
	fmt.Fprintf(&b, "retry_mode = %s\n", mode)
	if attempts > 0 {
		fmt.Fprintf(&b, "max_attempts = %d\n", attempts)
	}
	return []byte(b.String())
}

// awsSection returns the section header a strategy exports under: the
// profile it came from when it is an AWS profile as Import makes them
// (based on standard or adaptive mode and named as a profile can be:
// [default], or [profile NAME]); else [default], with an info.
func awsSection(n *notes, st *engine.Strategy) string {
	fromProfile := st.BasedOn == "aws-standard-2026" || st.BasedOn == "aws-adaptive"
	switch {
	case fromProfile && st.Name == "default":
		return "[default]\n"
	case fromProfile && isProfileName(st.Name):
		return "[profile " + st.Name + "]\n"
	case fromProfile:
		n.info("", "%q cannot be a profile's name (a name without spaces, brackets, #, ; or =): written as the [default] profile; rename the section [profile NAME] for another profile", st.Name)
	default:
		n.info("", "the strategy is not an AWS profile (based on standard or adaptive mode, as imported): written as the [default] profile; rename the section [profile NAME] for another profile")
	}
	return "[default]\n"
}

// isProfileName reports whether s can name a profile in a [profile NAME]
// header, as Import reads one back: no spaces, brackets, comment
// characters or =.
func isProfileName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("[]#;=", r) || !unicode.IsPrint(r)
	})
}

// policyMap returns the policy's JSON fields.
func policyMap(p engine.Policy) map[string]json.RawMessage {
	b, err := json.Marshal(p)
	if err != nil {
		panic("convert: marshal policy: " + err.Error())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		panic("convert: unmarshal policy: " + err.Error())
	}
	return m
}
