package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// valid is a minimal valid scenario; the cases below break one field each.
const valid = `{"version": 1, "name": "v",
	"workload": {"clients": 10, "arrival": "poisson", "rate": 10, "duration": "10s"},
	"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5},
	"strategies": [{"name": "a", "max_attempts": 3}]}`

func TestValidScenarioParses(t *testing.T) {
	if _, err := Parse([]byte(valid)); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsNameFieldValueAndRule(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		old     string
		new     string
		path    string
		message string // a fragment of what is allowed
	}{
		{"max attempts over the limit", `"max_attempts": 3`, `"max_attempts": 101`, "strategies[0].max_attempts", "101 is out of range 0..100"},
		{"unknown field", `"max_attempts": 3`, `"max_attempts": 3, "retries": 2`, "strategies[0].retries", "allowed: name,"},
		{"wrong type", `"clients": 10`, `"clients": "ten"`, "workload.clients", `"ten" is not a number`},
		{"fraction for a count", `"clients": 10`, `"clients": 1.5`, "workload.clients", "1.5 is not a whole number"},
		{"bad duration", `"mean": "10ms"`, `"mean": "10 parsecs"`, "dependency.service_time.mean", "is not a duration"},
		{"duration as number", `"mean": "10ms"`, `"mean": 10`, "dependency.service_time.mean", "is not a duration string"},
		{"unknown arrival", `"arrival": "poisson"`, `"arrival": "gaussian"`, "workload.arrival", `"gaussian" is not one of "poisson", "uniform", "closed", "burst"`},
		{"negative duration", `"duration": "10s"`, `"duration": "-1s"`, "workload.duration", "is negative"},
		{"threshold on a rate as a percentage", `"strategies"`, `"report": {"thresholds": [{"metric": "success_rate", "op": ">=", "value": 99.9}]}, "strategies"`, "report.thresholds[0].value", "99.9% is 0.999"},
		{"threshold on no metric", `"strategies"`, `"report": {"thresholds": [{"metric": "peak", "op": "<=", "value": 150}]}, "strategies"`, "report.thresholds[0].metric", "is not a metric name"},
		{"threshold with an unknown op", `"strategies"`, `"report": {"thresholds": [{"metric": "peak_per_10ms", "op": "<", "value": 150}]}, "strategies"`, "report.thresholds[0].op", `is not one of`},
		{"threshold on a misspelt metric", `"strategies"`, `"report": {"thresholds": [{"metric": "affected_sucess_rate", "op": ">=", "value": 0.95}]}, "strategies"`, "report.thresholds[0].metric", `"affected_sucess_rate" is not a metric name; did you mean "affected_success_rate"? (metrics: operations,`},
		{"threshold below a latency's range", `"strategies"`, `"report": {"thresholds": [{"metric": "latency_p99_ms", "op": "<=", "value": -5}]}, "strategies"`, "report.thresholds[0].value", "-5 is out of range: latency_p99_ms is at least 0"},
		{"threshold below a count's range", `"strategies"`, `"report": {"thresholds": [{"metric": "peak_per_100ms", "op": ">=", "value": -1}]}, "strategies"`, "report.thresholds[0].value", "-1 is out of range: peak_per_100ms is at least 0"},
		{"threshold below a rate's range", `"strategies"`, `"report": {"thresholds": [{"metric": "success_rate", "op": ">=", "value": -0.5}]}, "strategies"`, "report.thresholds[0].value", "is out of range: success_rate is a rate from 0 to 1"},
		{"focus on a misspelt metric", `"strategies"`, `"report": {"focus": ["peak_per_100"]}, "strategies"`, "report.focus[0]", `did you mean "peak_per_10ms" or "peak_per_100ms"`},
		{"misspelt field", `"max_attempts": 3`, `"max_attempts": 3, "backof": {"kind": "constant", "base": "10ms"}`, "strategies[0].backof", `is not a known field; did you mean "backoff"? allowed: name,`},
		{"misspelt top-level field", `"version": 1`, `"version": 1, "strategys": []`, "strategys", `did you mean "strategies"?`},
		{"zero deadline", `"max_attempts": 3`, `"max_attempts": 3, "deadline": "0s"`, "strategies[0].deadline", `"0s" is not a deadline: leave deadline out for none, or give it more than 0s`},
		{"zero attempt timeout", `"max_attempts": 3`, `"max_attempts": 3, "attempt_timeout": "0ms"`, "strategies[0].attempt_timeout", `"0ms" is not an attempt time-out: leave attempt_timeout out for none, or give it more than 0s`},
		{"zero max_elapsed", `"max_attempts": 3`, `"max_attempts": 3, "max_elapsed": "0s"`, "strategies[0].max_elapsed", `leave max_elapsed out for no limit`},
		{"zero deadline of a layer", `"max_attempts": 3`, `"max_attempts": 3, "layers": [{"max_attempts": 2, "deadline": "0s"}]`, "strategies[0].layers[0].deadline", `leave deadline out for none`},
		{"version", `"version": 1`, `"version": 2`, "version", "2 is not supported"},
		{"duplicate names", `[{"name": "a", "max_attempts": 3}]`, `[{"name": "a", "max_attempts": 3}, {"name": "a", "max_attempts": 1}]`, "strategies[1].name", "names must be unique"},
		{"no strategies", `[{"name": "a", "max_attempts": 3}]`, `[]`, "strategies", "at least one strategy"},
		{"rate and per client", `"rate": 10`, `"rate": 10, "rate_per_client": 1`, "workload.rate", "give one of them"},
		{"phase order", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "5s", "to": "2s"}]`, "dependency.phases[0].to", "is not after from 5s"},
		{"phase field of another kind", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "1s", "to": "2s", "workers": 3}]`, "dependency.phases[0].workers", `it is for "capacity"`},
		{"overlapping phases", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "1s", "to": "3s"}, {"kind": "outage", "from": "2s", "to": "4s"}]`, "dependency.phases[1]", "overlaps phases[0]"},
		{"status", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_full_status": 999`, "dependency.queue_full_status", "999 is not an HTTP status"},
		{"queue discipline", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_discipline": "random"`, "dependency.queue_discipline", `"random" is not one of "fifo", "lifo", "codel", "adaptive-lifo"`},
		{"codel of a FIFO queue", `"queue_capacity": 5`, `"queue_capacity": 5, "codel": {"target": "5ms"}`, "dependency.codel", `has no meaning for queue_discipline "fifo"; it sets the target and interval of "codel" and "adaptive-lifo"`},
		{"codel of a LIFO queue", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_discipline": "lifo", "codel": {}`, "dependency.codel", `has no meaning for queue_discipline "lifo"`},
		{"codel target above the interval", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_discipline": "codel", "codel": {"target": "200ms"}`, "dependency.codel.target", `"200ms" is not below the interval 100ms`},
		{"codel negative interval", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_discipline": "adaptive-lifo", "codel": {"interval": "-1ms"}`, "dependency.codel.interval", `"-1ms" is negative`},
		{"codel unknown field", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_discipline": "codel", "codel": {"limit": 5}`, "dependency.codel.limit", "allowed: target, interval"},
		{"rate limit of 0", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 0, "burst": 1}`, "dependency.rate_limit.rate", "0 is out of range 0.001..1e+06"},
		{"a large whole number as written", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 10000001, "burst": 1}`, "dependency.rate_limit.rate", "10000001 is out of range"},
		{"a fraction as written", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 0.0005, "burst": 1}`, "dependency.rate_limit.rate", "0.0005 is out of range"},
		{"rate limit without burst", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 10}`, "dependency.rate_limit.burst", "0 is out of range 1..1000000"},
		{"rate limit unit", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 10, "burst": 1, "retry_after_unit": "-1s"}`, "dependency.rate_limit.retry_after_unit", `"-1s" is negative`},
		{"concurrency limit ratio", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"backoff_ratio": 0.4}`, "dependency.concurrency_limit.backoff_ratio", "0.4 is out of range; a limit is multiplied by 0.5 or more and less than 1"},
		{"concurrency limit bounds", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"max": 10}`, "dependency.concurrency_limit.min", "20 is above max 10"},
		{"concurrency limit initial", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"min": 1, "max": 10, "initial": 11}`, "dependency.concurrency_limit.initial", "11 is not between min 1 and max 10"},
		{"concurrency limit status", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"status": 200}`, "dependency.concurrency_limit.status", "200 is not an error status; allowed 400..599, or 0 (or absent): the default, 503"},
		{"concurrency limit timeout", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"timeout": "-1s"}`, "dependency.concurrency_limit.timeout", `"-1s" is negative`},
		{"concurrency limit kind", `"queue_capacity": 5`, `"queue_capacity": 5, "concurrency_limit": {"kind": "gradient"}`, "dependency.concurrency_limit.kind", "allowed: initial, min, max, backoff_ratio, timeout, status"},
		{"rate limit status", `"queue_capacity": 5`, `"queue_capacity": 5, "rate_limit": {"rate": 10, "burst": 1, "status": 503}`, "dependency.rate_limit.status", "allowed: rate, burst, retry_after_unit"},
		{"jitter without backoff", `"max_attempts": 3`, `"max_attempts": 3, "jitter": {"kind": "full"}`, "strategies[0].jitter.kind", "needs a backoff"},
		{"jitter field of another kind", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "full", "fraction": 0.1}`, "strategies[0].jitter.fraction", `no meaning for "full" jitter; it is for "proportional"`},
		{"jitter amount of another kind", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "equal", "amount": "5ms"}`, "strategies[0].jitter.amount", `no meaning for "equal" jitter; it is for "additive"`},
		{"additive jitter without amount", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "additive"}`, "strategies[0].jitter.amount", "must be more than 0s"},
		{"budget field of other kind", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 0.1, "max_tokens": 10}`, "strategies[0].budget.max_tokens", `no meaning for a "ratio" budget`},
		{"budget charge", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "token_bucket", "max_tokens": 10, "charge": "attempt"}`, "strategies[0].budget.charge", `"attempt" is not one of "failure", "retry"`},
		{"refund of a ratio budget", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 0.1, "refund": true}`, "strategies[0].budget.refund", `no meaning for a "ratio" budget`},
		{"concurrency window", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "concurrency", "ratio": 0.2, "window": "1s"}`, "strategies[0].budget.window", `no meaning for a "concurrency" budget`},
		{"concurrency share", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "concurrency", "ratio": 0.2, "share_of": "requests"}`, "strategies[0].budget.share_of", `"requests" is not one of "executions", "attempts"`},
		{"share of a ratio budget", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 0.2, "share_of": "attempts"}`, "strategies[0].budget.share_of", `no meaning for a "ratio" budget`},
		{"concurrency ratio", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "concurrency", "ratio": 1.5}`, "strategies[0].budget.ratio", "out of range 0..1"},
		{"min concurrency of a token bucket", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "token_bucket", "max_tokens": 10, "min_concurrency": 3}`, "strategies[0].budget.min_concurrency", `no meaning for a "token_bucket" budget`},
		{"throttle base without backoff", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "none", "throttle_base": "1s"}`, "strategies[0].backoff.kind", "throttle_base"},
		{"negative timeout cost", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "token_bucket", "max_tokens": 10, "timeout_cost": -1}`, "strategies[0].budget.timeout_cost", "out of range"},
		{"status range", `"max_attempts": 3`, `"max_attempts": 3, "retry_on": {"status_ranges": ["599-500"]}`, "strategies[0].retry_on.status_ranges[0]", `"599-500" is not a status range; allowed "from-to" with 100 <= from <= to <= 599`},
		{"except status", `"max_attempts": 3`, `"max_attempts": 3, "retry_on": {"status_ranges": ["500-599"], "except": [5011]}`, "strategies[0].retry_on.except[0]", "5011 is not an HTTP status; allowed 100..599"},
		{"retry_after without honour", `"max_attempts": 3`, `"max_attempts": 3, "retry_after": {"mode": "replace"}`, "strategies[0].retry_after", "needs honor_retry_after: true"},
		{"retry_after mode", `"max_attempts": 3`, `"max_attempts": 3, "honor_retry_after": true, "retry_after": {"mode": "longest"}`, "strategies[0].retry_after.mode", `"longest" is not one of "at_least", "replace", "replace_and_reset"`},
		{"negative max_elapsed", `"max_attempts": 3`, `"max_attempts": 3, "max_elapsed": "-1s"`, "strategies[0].max_elapsed", "is negative"},
		{"break end", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "break_end": "exclusive"}`, "strategies[0].breaker.break_end", `"exclusive" is not one of "inclusive", "strict"`},
		{"hedge after failure", `"max_attempts": 3`, `"max_attempts": 3, "hedging": {"delay": "10ms", "after_failure": "later"}`, "strategies[0].hedging.after_failure", `"later" is not one of "send", "wait"`},
		{"window buckets", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "10s", "break": "1s", "window_buckets": "seconds"}`, "strategies[0].breaker.window_buckets", `"seconds" is not one of "exact", "epoch_seconds"`},
		{"window buckets of a fraction of a second", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "1500ms", "break": "1s", "window_buckets": "epoch_seconds"}`, "strategies[0].breaker.window", "is not a whole number of seconds"},
		{"open multiplier", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "open_multiplier": 0.5}`, "strategies[0].breaker.open_multiplier", "0.5 is out of range 1..100"},
		{"max open without a multiplier", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "max_open": "10s"}`, "strategies[0].breaker.max_open", "has no meaning without open_multiplier"},
		{"max open below the break", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "10s", "open_multiplier": 2, "max_open": "5s"}`, "strategies[0].breaker.max_open", "is shorter than break 10s; allowed break or longer"},
		{"fixed-window limit", `"max_attempts": 3`, `"max_attempts": 3, "client_rate_limit": {"kind": "fixed-window", "limit_for_period": 0, "refresh_period": "1s"}`, "strategies[0].client_rate_limit.limit_for_period", "0 is out of range 1..1000000"},
		{"fixed-window period", `"max_attempts": 3`, `"max_attempts": 3, "client_rate_limit": {"kind": "fixed-window", "limit_for_period": 5}`, "strategies[0].client_rate_limit.refresh_period", "must be more than 0s"},
		{"fixed-window timeout", `"max_attempts": 3`, `"max_attempts": 3, "client_rate_limit": {"kind": "fixed-window", "limit_for_period": 5, "refresh_period": "1s", "timeout": "-1s"}`, "strategies[0].client_rate_limit.timeout", "is negative"},
		{"adaptive limiter with a period", `"max_attempts": 3`, `"max_attempts": 3, "client_rate_limit": {"kind": "aws-adaptive", "limit_for_period": 5}`, "strategies[0].client_rate_limit.kind", `has no limit_for_period, refresh_period or timeout; they are for "fixed-window"`},
		{"rate limit kind", `"max_attempts": 3`, `"max_attempts": 3, "client_rate_limit": {"kind": "token-bucket"}`, "strategies[0].client_rate_limit.kind", `"token-bucket" is not one of "aws-adaptive", "fixed-window"`},
		{"half-open decision", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_decision": "late"}`, "strategies[0].breaker.half_open_decision", `"late" is not one of "early", "all_trials"`},
		{"half-open failures", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_calls": 3, "half_open_failures": 4}`, "strategies[0].breaker.half_open_failures", "4 is out of range 1..3"},
		{"k of n without n", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "failures": 3, "min_throughput": 1, "window": "10s", "break": "1s"}`, "strategies[0].breaker.failures", "needs window_calls"},
		{"k of n and ratio", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "failures": 3, "ratio": 0.5, "min_throughput": 1, "window_calls": 5, "break": "1s"}`, "strategies[0].breaker.failures", "is given together with ratio"},
		{"k over n", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "failures": 6, "min_throughput": 1, "window_calls": 5, "break": "1s"}`, "strategies[0].breaker.failures", "6 is out of range 1..5"},
		{"slow ratio alone", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 1, "window_calls": 5, "break": "1s", "slow_ratio": 0.5}`, "strategies[0].breaker.slow_ratio", "has no meaning without slow_call"},
		{"slow calls in a row", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "slow_call": "1s"}`, "strategies[0].breaker.kind", "slow_call and slow_ratio are for"},
		{"breaker without break", `"max_attempts": 3`, `"max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 5}`, "strategies[0].breaker.break", "must be more than 0s"},
		{"key on a layer", `"max_attempts": 3`, `"max_attempts": 3, "layers": [{"max_attempts": 2, "idempotency_key": true}]`, "strategies[0].layers[0].idempotency_key", "is for the strategy itself"},
		{"min attempt over deadline", `"max_attempts": 3`, `"max_attempts": 3, "deadline": "1s", "min_attempt_time": "2s"`, "strategies[0].min_attempt_time", "longer than the deadline"},
		{"sweep path", `"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "strategies[4].max_attempts", "values": [1]}`, "sweep.values[0]", "index [4], which does not exist"},
		{"sweep value", `"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "strategies[0].max_attempts", "values": [2, 500]}`, "sweep.values[1]", "500 at strategies[0].max_attempts is out of range 0..100"},
		{"closed loop without think time", `"arrival": "poisson", "rate": 10,`, `"arrival": "closed",`, "workload.think_time", "closed-loop clients need a think time"},
		{"odd key", `"version": 1`, `"version": 1, "": 3`, `[""]`, "is not a known field"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			doc := strings.Replace(valid, tc.old, tc.new, 1)
			if doc == valid {
				t.Fatalf("the case does not change the scenario")
			}
			_, err := Parse([]byte(doc))
			es := AsErrors(err)
			for _, e := range es {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	doc := strings.NewReplacer(`"clients": 10`, `"clients": 0`, `"workers": 2`, `"workers": -1`, `"max_attempts": 3`, `"max_attempts": 101`).Replace(valid)
	_, err := Parse([]byte(doc))
	if es := AsErrors(err); len(es) != 3 {
		t.Errorf("want 3 errors, got %d:\n%v", len(es), err)
	}
}

func TestMalformedDocuments(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{``, "the document is empty"},
		{"  \n", "the document is empty"},
		{`{"version": 1,`, "invalid JSON at line 1, column 15 (byte offset 14): the document ends too early, inside the object that starts at line 1, column 1 (byte offset 0)"},
		{"{\"version\": 1,\n \"name\": \"trunc", "at line 2, column 16 (byte offset 30): the document ends too early, inside the string that starts at line 2, column 10 (byte offset 24)"},
		{"{\"version\": 1, \"seeds\": [1, 2", "ends too early, inside the list that starts at line 1, column 25 (byte offset 24)"},
		{"{\n  \"version\": 1,\n  \"name\": x\n}", "invalid JSON at line 3, column 11 (byte offset 28): invalid character 'x'"},
		{"{\"name\": \"é\", x}", "line 1, column 15 (byte offset 15)"},
		{valid + ` {}`, "trailing data"},
		{`{"version": 1}` + "\n\n  x", "trailing data after the scenario at line 3, column 3 (byte offset 18)"},
		{`[1, 2]`, "is not a JSON object"},
	} {
		_, err := Parse([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.30q) = %v, want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

func TestMissingVersionSaysSo(t *testing.T) {
	for _, doc := range []string{
		strings.Replace(valid, `"version": 1, `, "", 1),
		strings.Replace(valid, `"version": 1`, `"version": null`, 1),
	} {
		_, err := Parse([]byte(doc))
		es := AsErrors(err)
		if len(es) == 0 || es[0].Path != "version" || !strings.Contains(es[0].Message, "is missing") || !strings.Contains(es[0].Message, `"version": 1`) {
			t.Errorf("want version: is missing ... \"version\": 1 first; got:\n%v", err)
		}
		if strings.Contains(err.Error(), "not supported") {
			t.Errorf("a missing version is not an unsupported one:\n%v", err)
		}
	}
	// The other decoding problems come with it.
	doc := strings.Replace(strings.Replace(valid, `"version": 1, `, "", 1), `"clients": 10`, `"clients": "ten"`, 1)
	if es := AsErrors(func() error { _, err := Parse([]byte(doc)); return err }()); len(es) != 2 || es[1].Path != "workload.clients" {
		t.Errorf("want the missing version and workload.clients; got %v", es)
	}
}

func TestDuplicateKeysAreErrors(t *testing.T) {
	for _, tc := range []struct{ old, new, path string }{
		{`"version": 1`, `"version": 1, "seed": 1, "seed": 2`, "seed"},
		{`"workers": 2`, `"workers": 2, "workers": 3`, "dependency.workers"},
		{`"max_attempts": 3}`, `"max_attempts": 3, "max_attempts": 3}`, "strategies[0].max_attempts"},
		{`"version": 1`, `"version": 1, "": 1, "": 2`, `[""]`},
		{`"version": 1`, `"version": 1, "version": 1`, "version"},
	} {
		doc := strings.Replace(valid, tc.old, tc.new, 1)
		_, err := Parse([]byte(doc))
		found := false
		for _, e := range AsErrors(err) {
			found = found || e.Path == tc.path && strings.HasPrefix(e.Message, "duplicate key")
		}
		if !found {
			t.Errorf("%s: want %s: duplicate key; got %v", tc.new, tc.path, err)
		}
	}
	// Each repeated key is reported once, alongside the other problems.
	doc := strings.Replace(valid, `"version": 1`, `"version": 1, "seed": 1, "seed": 2, "seed": 3, "runs": "x"`, 1)
	_, err := Parse([]byte(doc))
	if got := err.Error(); got != "seed: duplicate key: a key may appear only once in an object\nruns: \"x\" is not a number" {
		t.Errorf("got:\n%s", got)
	}
}

func TestNumbersMustBeExact(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{`"version": 1`, `"version": 1, "seed": 1e-400`, "seed: 1e-400 is not a whole number"},
		{`"version": 1`, `"version": 1, "seed": 1e400`, "seed: 1e400 is out of range"},
		{`"version": 1`, `"version": 1, "seed": 1e999999999999999999999`, "seed: 1e999999999999999999999 is out of range"},
		{`"version": 1`, `"version": 1, "seed": 1e-999999999999999999999`, "seed: 1e-999999999999999999999 is not a whole number"},
		{`"version": 1`, `"version": 1, "seed": 9223372036854775808`, "seed: 9223372036854775808 is out of range"},
		{`"version": 1`, `"version": 1, "seed": 0.55e1`, "seed: 0.55e1 is not a whole number"},
		{`"version": 1`, `"version": 1, "seed": 12.30001`, "seed: 12.30001 is not a whole number"},
		{`"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 1e-400}`, "strategies[0].budget.ratio: 1e-400 is too small: it underflows"},
		{`"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 2e-310}`, "strategies[0].budget.ratio: 2e-310 is too small: it underflows"},
		{`"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": -1e999}`, "strategies[0].budget.ratio: -1e999 is too large: it overflows"},
		{`"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "strategies[0].max_attempts", "values": [2, 2e-400]}`, "sweep.values[1]: 2e-400 at strategies[0].max_attempts: is not a whole number"},
	} {
		doc := strings.Replace(valid, tc.old, tc.new, 1)
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.new, err, tc.want)
		}
	}
	// Whole numbers may be written in any JSON form.
	for _, n := range []string{"3", "3.0", "3e0", "0.3e1", "300e-2", "30000000000e-10"} {
		sc, err := Parse([]byte(strings.Replace(valid, `"max_attempts": 3`, `"max_attempts": `+n, 1)))
		if err != nil || sc.Strategies[0].MaxAttempts != 3 {
			t.Errorf("max_attempts %s: %v", n, err)
		}
	}
	for _, n := range []string{"0", "-0", "0.0", "0e-400", "-0.000e5"} {
		sc, err := Parse([]byte(strings.Replace(valid, `"version": 1`, `"version": 1, "seed": `+n, 1)))
		if err != nil || sc.Seed != 0 {
			t.Errorf("seed %s: %v", n, err)
		}
	}
	for _, n := range []string{"-9223372036854775808", "9223372036854775807", "-92233720368547758.08e2"} {
		var sc Scenario
		if err := decodeStrict([]byte(`{"version": 1, "seed": `+n+`}`), &sc, nil); err != nil {
			t.Errorf("seed %s: %v", n, err)
		}
	}
}

func TestCanonicalDropsDefaultsAndOrdersFields(t *testing.T) {
	a, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	reordered := `{"strategies": [{"max_attempts": 3, "name": "a"}], "name": "v", "version": 1,
		"dependency": {"queue_capacity": 5, "service_time": {"mean": "10ms", "kind": "constant"}, "workers": 2},
		"workload": {"duration": "10000ms", "rate": 10, "arrival": "poisson", "clients": 10, "mix": {}}}`
	b, err := Parse([]byte(reordered))
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Canonical()) != string(b.Canonical()) {
		t.Errorf("canonical forms differ:\n%s\n%s", a.Canonical(), b.Canonical())
	}
}

// overlapping returns the valid scenario with n identical latency phases.
func overlapping(n int) string {
	ph := strings.Repeat(`{"kind":"latency","from":"1s","to":"2s","factor":2},`, n)
	return strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [`+strings.TrimSuffix(ph, ",")+`]`, 1)
}

// TestErrorsAreBounded: 1,200 identical overlapping phases give the "at
// most 100 phases" problem alone, not 720,000 more (one for every pair).
func TestErrorsAreBounded(t *testing.T) {
	_, err := Parse([]byte(overlapping(MaxPhases)))
	es := AsErrors(err)
	if len(es) != MaxErrors+1 {
		t.Fatalf("%d phases: %d problems, want %d", MaxPhases, len(es), MaxErrors+1)
	}
	if last := es[len(es)-1]; last.Path != "" || last.Message != "and 49 more problems; only the first 50 are listed" {
		t.Errorf("the last problem is %q, want how many more there are", last.Error())
	}
	_, err = Parse([]byte(overlapping(1200)))
	if es := AsErrors(err); len(es) != 1 || es[0].Path != "dependency.phases" {
		t.Errorf("1200 phases: %v, want only the count", es)
	}
	// Within the limit, each phase that overlaps an earlier one is one
	// problem: 99 for 100 identical phases (not 4,950, one for every pair).
	v := func() *validator {
		sc, err := Decode([]byte(overlapping(MaxPhases)))
		if err != nil {
			t.Fatal(err)
		}
		return sc.validate()
	}()
	if total := len(v.errs) + v.more; total != MaxPhases-1 {
		t.Errorf("%d identical phases: %d problems, want %d", MaxPhases, total, MaxPhases-1)
	}
}

func TestErrorsLimit(t *testing.T) {
	es := Errors{{Path: "a", Message: "x"}, {Path: "b", Message: "y"}, {Path: "c", Message: "z"}}
	if got := es.Limit(3); len(got) != 3 {
		t.Errorf("Limit(3) of 3: %d", len(got))
	}
	got := es.Limit(1)
	if len(got) != 2 || got[0].Path != "a" || got[1].Message != "and 2 more problems; only the first 1 are listed" {
		t.Errorf("Limit(1) = %v", got)
	}
	if len(es) != 3 || es[1].Path != "b" {
		t.Errorf("Limit changed its receiver: %v", es)
	}
}

// TestSweepWorkIsBounded: a sweep reads the scenario again for every value,
// in validation, estimates and the run; 50 values of a 49 KB scenario took
// 1.8 s of CPU to validate and estimate.
func TestSweepWorkIsBounded(t *testing.T) {
	values := strings.TrimSuffix(strings.Repeat("0.1,", MaxSweepValues), ",")
	long := strings.Replace(valid, `"name": "v"`, `"name": "v", "description": "`+strings.Repeat("x", 6000)+`"`, 1)
	doc := strings.Replace(long, `"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "dependency.error_rate", "values": [`+values+`]}`, 1)
	_, err := Parse([]byte(doc))
	es := AsErrors(err)
	if len(es) != 1 || es[0].Path != "sweep.values" || !strings.Contains(es[0].Message, "values × its size may be at most 256 KiB") {
		t.Errorf("50 values of a 6 KB scenario: %v", err)
	}
	short := strings.Replace(valid, `"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "dependency.error_rate", "values": [`+values+`]}`, 1)
	if _, err := Parse([]byte(short)); err != nil {
		t.Errorf("50 values of a short scenario: %v", err)
	}
}

// multiPlan and multiDeps are validMulti's plan and dependencies.
const (
	multiPlan = `[
			{"calls": [{"dependency": "catalog"}, {"dependency": "payment", "name": "pay"}]},
			{"calls": [{"dependency": "recs", "class": "sheddable", "share": 0.5}]},
			{"calls": [{"dependency": "catalog", "name": "catalog-again"}]}]`
	multiDeps = `[
		{"name": "catalog", "workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 50},
		{"name": "payment", "workers": 2, "service_time": {"kind": "exponential", "mean": "20ms"}, "queue_capacity": 5,
			"network": {"request": {"kind": "constant", "mean": "1ms"}}},
		{"name": "recs", "workers": 2, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 40,
			"shedding": {"measure": "queue", "thresholds": {"sheddable": 10, "sheddable_plus": 20}, "status": 429}}]`
)

// validMulti is a minimal valid scenario of several dependencies, with
// every field of issue 14; the cases below break one field each.
const validMulti = `{"version": 1, "name": "m",
	"workload": {"clients": 10, "arrival": "poisson", "rate": 10, "duration": "10s", "plan": ` + multiPlan + `},
	"dependencies": ` + multiDeps + `,
	"strategies": [{"name": "a", "max_attempts": 3, "attempt_timeout": "1s",
		"pool": {"slots": 8, "max_waiting": 100, "max_wait": "1s"},
		"bulkheads": [{"dependency": "payment", "max_concurrent": 2, "max_waiting": 4, "max_wait": "500ms"}],
		"fallbacks": [{"call": "recs"}, {"call": "catalog-again", "latency": "2ms"}],
		"breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "scope": "client"},
		"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1, "scope": "dependency"},
		"layers": [{"max_attempts": 2, "attempt_timeout": "100ms", "hedging": {"delay": "20ms", "delay_percentile": 95, "window": 200}}]}]}`

func TestValidMultiDependencyScenarioParses(t *testing.T) {
	sc, err := Parse([]byte(validMulti))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Dependencies) != 3 || len(sc.Workload.Plan) != 3 || sc.Strategies[0].Pool.Slots != 8 ||
		sc.Dependencies[2].Shedding.Thresholds[ClassSheddable] != 10 || sc.Strategies[0].Layers[0].Hedging.DelayPercentile != 95 {
		t.Errorf("decoded %+v", sc)
	}
	again, err := Parse(sc.Canonical())
	if err != nil {
		t.Fatalf("canonical form: %v\n%s", err, sc.Canonical())
	}
	if string(again.Canonical()) != string(sc.Canonical()) {
		t.Errorf("canonical form changed on a round trip:\n%s\n%s", sc.Canonical(), again.Canonical())
	}
	// The one dependency may take a name, and a plan may call it twice.
	one := strings.Replace(valid, `"workers": 2,`, `"name": "db", "workers": 2,`, 1)
	one = strings.Replace(one, `"duration": "10s"}`, `"duration": "10s", "plan": [{"calls": [{"dependency": "db"}, {"dependency": "db", "name": "db2", "class": "sheddable"}]}]}`, 1)
	if _, err := Parse([]byte(one)); err != nil {
		t.Errorf("a plan calling the named dependency twice: %v", err)
	}
	// Unnamed, it is called "dependency".
	unnamed := strings.Replace(valid, `"duration": "10s"}`, `"duration": "10s", "plan": [{"calls": [{"dependency": "dependency"}]}]}`, 1)
	if _, err := Parse([]byte(unnamed)); err != nil {
		t.Errorf("a plan calling the unnamed dependency: %v", err)
	}
	// A list of one needs no plan.
	list := strings.Replace(valid, `"dependency": {"workers": 2,`, `"dependencies": [{"name": "db", "workers": 2,`, 1)
	list = strings.Replace(list, `"queue_capacity": 5}`, `"queue_capacity": 5}]`, 1)
	if _, err := Parse([]byte(list)); err != nil {
		t.Errorf("a list of one dependency without a plan: %v", err)
	}
}

func TestMultiDependencyErrors(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		old     string
		new     string
		path    string
		message string
	}{
		// Dependencies.
		{"both dependency and dependencies", `"dependencies": [`, `"dependency": {"workers": 1, "service_time": {"kind": "constant"}, "queue_capacity": 0}, "dependencies": [`, "dependencies", "is given together with dependency; give dependency for one dependency or dependencies for several, not both"},
		{"empty dependencies", `"dependencies": ` + multiDeps, `"dependencies": []`, "dependencies", "is empty; list the dependencies"},
		{"unnamed dependency", `{"name": "catalog", "workers": 4`, `{"workers": 4`, "dependencies[0].name", "is empty; every dependency of a list needs a name"},
		{"duplicate dependency name", `{"name": "payment", "workers": 2`, `{"name": "catalog", "workers": 2`, "dependencies[1].name", `"catalog" is also the name of dependencies[0]; names must be unique`},
		{"long dependency name", `"name": "recs"`, `"name": "` + strings.Repeat("r", 201) + `"`, "dependencies[2].name", "is 201 characters long; at most 200 are allowed"},
		{"unprintable dependency name", `"name": "recs"`, `"name": "re\u0007cs"`, "dependencies[2].name", "holds a character that is not printable"},
		{"entry validated as the dependency is", `{"name": "payment", "workers": 2`, `{"name": "payment", "workers": 0`, "dependencies[1].workers", "0 is out of range 1..100000"},
		{"entry's network", `"request": {"kind": "constant", "mean": "1ms"}`, `"request": {"kind": "constant", "mean": "-1ms"}`, "dependencies[1].network.request.mean", "is negative"},
		{"entry's phases", `"queue_capacity": 50}`, `"queue_capacity": 50, "phases": [{"kind": "outage", "from": "2s", "to": "1s"}]}`, "dependencies[0].phases[0].to", "is not after from 2s"},
		{"uncalled dependency", `{"dependency": "recs", "class": "sheddable", "share": 0.5}`, `{"dependency": "catalog", "name": "c3"}`, "dependencies[2].name", `"recs" is not called by the plan; every dependency must be called`},
		// Plan.
		{"several dependencies without a plan", `, "plan": ` + multiPlan, ``, "workload.plan", "is missing; with several dependencies the plan says which ones an operation calls"},
		{"empty plan", `"plan": ` + multiPlan, `"plan": []`, "workload.plan", "is empty; give at least one step"},
		{"empty step", `{"calls": [{"dependency": "recs", "class": "sheddable", "share": 0.5}]}`, `{"calls": []}, {"calls": [{"dependency": "recs", "class": "sheddable", "share": 0.5}]}`, "workload.plan[1].calls", "is empty; a step makes at least one call"},
		{"unknown dependency", `{"dependency": "payment", "name": "pay"}`, `{"dependency": "paymnt", "name": "pay"}`, "workload.plan[0].calls[1].dependency", `"paymnt" is not a dependency; the dependencies are catalog, payment, recs`},
		{"no dependency", `{"dependency": "payment", "name": "pay"}`, `{"name": "pay"}`, "workload.plan[0].calls[1].dependency", "is empty; name the dependency, one of: catalog, payment, recs"},
		{"duplicate call name", `"name": "catalog-again"`, `"name": "pay"`, "workload.plan[2].calls[0].name", `"pay" is also the name of workload.plan[0].calls[1]; the plan's calls need unique names`},
		{"duplicate default call name", `, "name": "catalog-again"`, ``, "workload.plan[2].calls[0].name", `is missing, and the call's default name, its dependency's "catalog", is also the name of workload.plan[0].calls[0]`},
		{"unprintable call name", `"name": "pay"`, `"name": "pa\ny"`, "workload.plan[0].calls[1].name", "is not printable"},
		{"unknown class", `"class": "sheddable"`, `"class": "low"`, "workload.plan[1].calls[0].class", `"low" is not one of "critical_plus", "critical", "sheddable_plus", "sheddable"`},
		{"share of 0", `"share": 0.5`, `"share": 0`, "workload.plan[1].calls[0].share", "0 is out of range (0, 1]"},
		{"share above 1", `"share": 0.5`, `"share": 1.5`, "workload.plan[1].calls[0].share", "1.5 is out of range (0, 1]"},
		// Fallbacks.
		{"fallback for no call", `{"call": "recs"}`, `{"call": "rec"}`, "strategies[0].fallbacks[0].call", `"rec" is not a call of the plan; the calls are "catalog", "catalog-again", "pay", "recs"`},
		{"fallback without a call", `{"call": "recs"}`, `{}`, "strategies[0].fallbacks[0].call", "is missing; name the call of the plan"},
		{"two fallbacks for a call", `{"call": "catalog-again", "latency": "2ms"}`, `{"call": "recs", "latency": "2ms"}`, "strategies[0].fallbacks[1].call", `"recs" already has a fallback, fallbacks[0]`},
		{"negative fallback latency", `"latency": "2ms"}]`, `"latency": "-2ms"}]`, "strategies[0].fallbacks[1].latency", `"-2ms" is negative`},
		{"long fallback latency", `"latency": "2ms"}]`, `"latency": "25h"}]`, "strategies[0].fallbacks[1].latency", "is longer than the maximum 24h0m0s"},
		{"too many calls", `{"calls": [{"dependency": "catalog", "name": "catalog-again"}]}`, manyCalls(15), "workload.plan", "makes 18 calls in all; at most 16 are allowed"},
		// Pool and bulkheads.
		{"pool without slots", `"slots": 8`, `"slots": 0`, "strategies[0].pool.slots", "0 is out of range 1..100000"},
		{"pool waiting", `"max_waiting": 100`, `"max_waiting": -1`, "strategies[0].pool.max_waiting", "-1 is out of range 0..10000000"},
		{"pool wait", `"max_wait": "1s"}`, `"max_wait": "-1s"}`, "strategies[0].pool.max_wait", "is negative"},
		{"pool wait without waiting", `"max_waiting": 100, `, ``, "strategies[0].pool.max_wait", "has no meaning with max_waiting 0"},
		{"pool on a layer", `"layers": [{"max_attempts": 2,`, `"layers": [{"pool": {"slots": 1}, "max_attempts": 2,`, "strategies[0].layers[0].pool", "is not a known field"},
		{"bulkhead of no dependency", `{"dependency": "payment", "max_concurrent"`, `{"dependency": "bank", "max_concurrent"`, "strategies[0].bulkheads[0].dependency", `"bank" is not a dependency; the dependencies are catalog, payment, recs`},
		{"two bulkheads for one dependency", `"bulkheads": [`, `"bulkheads": [{"dependency": "payment", "max_concurrent": 1}, `, "strategies[0].bulkheads[1].dependency", `"payment" already has a bulkhead, bulkheads[0]; a dependency has at most one`},
		{"bulkhead size", `"max_concurrent": 2`, `"max_concurrent": 0`, "strategies[0].bulkheads[0].max_concurrent", "0 is out of range 1..100000"},
		{"bulkhead waiting", `"max_waiting": 4`, `"max_waiting": 10000001`, "strategies[0].bulkheads[0].max_waiting", "is out of range 0..10000000"},
		{"bulkhead wait", `"max_wait": "500ms"`, `"max_wait": "48h"`, "strategies[0].bulkheads[0].max_wait", "is longer than the maximum"},
		// Scopes.
		{"breaker scope", `"scope": "client"`, `"scope": "global"`, "strategies[0].breaker.scope", `"global" is not one of "dependency", "client"`},
		{"budget scope", `"scope": "dependency"`, `"scope": "fleet"`, "strategies[0].budget.scope", `"fleet" is not one of "dependency", "client"`},
		// Shedding.
		{"shedding measure", `"measure": "queue"`, `"measure": "cpu"`, "dependencies[2].shedding.measure", `"cpu" is not one of "queue", "load"`},
		{"shedding without measure", `"measure": "queue", `, ``, "dependencies[2].shedding.measure", `"" is not one of "queue", "load"`},
		{"shedding class", `"sheddable_plus": 20`, `"bulk": 20`, "dependencies[2].shedding.thresholds.bulk", `"bulk" is not one of "critical_plus"`},
		{"odd shedding class", `"sheddable_plus": 20`, `"low priority": 20`, `dependencies[2].shedding.thresholds["low priority"]`, `"low priority" is not one of`},
		{"shedding threshold", `"sheddable_plus": 20`, `"sheddable_plus": -1`, "dependencies[2].shedding.thresholds.sheddable_plus", "-1 is out of range 0..10000000"},
		{"shedding threshold type", `"sheddable_plus": 20`, `"sheddable_plus": "high"`, "dependencies[2].shedding.thresholds.sheddable_plus", `"high" is not a number`},
		{"no thresholds", `"thresholds": {"sheddable": 10, "sheddable_plus": 20}`, `"thresholds": {}`, "dependencies[2].shedding.thresholds", "is empty; give the threshold of each class to shed"},
		{"thresholds not an object", `"thresholds": {"sheddable": 10, "sheddable_plus": 20}`, `"thresholds": [10]`, "dependencies[2].shedding.thresholds", "a list is not an object"},
		{"shedding status", `"status": 429`, `"status": 42`, "dependencies[2].shedding.status", "42 is not an HTTP status; allowed 100..599"},
		// Hedging.
		{"hedging delay", `"delay": "20ms"`, `"delay": "-20ms"`, "strategies[0].layers[0].hedging.delay", "is negative"},
		{"hedging delay too long", `"delay": "20ms"`, `"delay": "25h"`, "strategies[0].layers[0].hedging.delay", "is longer than the maximum"},
		{"hedging percentile", `"delay_percentile": 95`, `"delay_percentile": 100`, "strategies[0].layers[0].hedging.delay_percentile", "100 is out of range; a delay percentile is in (0, 100)"},
		{"negative hedging percentile", `"delay_percentile": 95`, `"delay_percentile": -5`, "strategies[0].layers[0].hedging.delay_percentile", "is out of range"},
		{"hedging window", `"window": 200`, `"window": 19`, "strategies[0].layers[0].hedging.window", "19 is out of range 20..100000"},
		{"hedging window too large", `"window": 200`, `"window": 100001`, "strategies[0].layers[0].hedging.window", "is out of range 20..100000"},
		{"hedging window without percentile", `"delay_percentile": 95, `, ``, "strategies[0].layers[0].hedging.window", "has no meaning without delay_percentile"},
		{"hedging one copy", `"layers": [{"max_attempts": 2`, `"layers": [{"max_attempts": 1`, "strategies[0].layers[0].max_attempts", "1 is the number of copies of a hedged call, the first included; hedging needs 2..100"},
		{"hedging unlimited copies", `"layers": [{"max_attempts": 2`, `"layers": [{"max_attempts": 0`, "strategies[0].layers[0].max_attempts", "not 0: copies are not unlimited"},
		{"hedging with backoff", `"attempt_timeout": "100ms", "hedging"`, `"attempt_timeout": "100ms", "backoff": {"kind": "constant", "base": "1ms"}, "hedging"`, "strategies[0].layers[0].backoff", "has no meaning with hedging"},
		{"hedging with jitter", `"attempt_timeout": "100ms", "hedging"`, `"attempt_timeout": "100ms", "jitter": {"kind": "full"}, "hedging"`, "strategies[0].layers[0].jitter.kind", `"full" has no meaning with hedging`},
		{"hedging with retry-after", `"attempt_timeout": "100ms", "hedging"`, `"attempt_timeout": "100ms", "honor_retry_after": true, "hedging"`, "strategies[0].layers[0].honor_retry_after", "has no meaning with hedging"},
		{"hedging with adaptive", `"attempt_timeout": "100ms", "hedging"`, `"attempt_timeout": "100ms", "adaptive": {"window": "1s", "above": 0.5, "factor": 2}, "hedging"`, "strategies[0].layers[0].adaptive", "has no meaning with hedging"},
		{"hedging a consumer", `"max_attempts": 3, "attempt_timeout": "1s",`, `"max_attempts": 3, "attempt_timeout": "1s", "dead_letter": true, "hedging": {"delay": "1ms"},`, "strategies[0].dead_letter", "is given together with hedging"},
		// Sweeps reach the fields of dependencies, pools and plans.
		{"sweep into dependencies", `"version": 1,`, `"version": 1, "sweep": {"path": "dependencies[1].workers", "values": [1, 0]},`, "sweep.values[1]", "0 at dependencies[1].workers is out of range 1..100000"},
		{"sweep into the pool", `"version": 1,`, `"version": 1, "sweep": {"path": "strategies[0].pool.slots", "values": [4, 0]},`, "sweep.values[1]", "0 at strategies[0].pool.slots is out of range 1..100000"},
		{"sweep into the plan", `"version": 1,`, `"version": 1, "sweep": {"path": "workload.plan[1].calls[0].class", "values": ["critical", "low"]},`, "sweep.values[1]", `"low" at workload.plan[1].calls[0].class is not one of`},
		{"sweep into thresholds", `"version": 1,`, `"version": 1, "sweep": {"path": "dependencies[2].shedding.thresholds.critical", "values": [5, -5]},`, "sweep.values[1]", "-5 at dependencies[2].shedding.thresholds.critical is out of range"},
		{"sweep into the one dependency of a list", `"version": 1,`, `"version": 1, "sweep": {"path": "dependency.workers", "values": [2]},`, "sweep.values[0]", "at dependencies is given together with dependency"},
		{"sweep past the list", `"version": 1,`, `"version": 1, "sweep": {"path": "dependencies[3].workers", "values": [1]},`, "sweep.values[0]", "index [3], which does not exist"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			doc := strings.Replace(validMulti, tc.old, tc.new, 1)
			if doc == validMulti {
				t.Fatalf("the case does not change the scenario")
			}
			_, err := Parse([]byte(doc))
			for _, e := range AsErrors(err) {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
}

// manyCalls returns a plan step of n calls to the catalog.
func manyCalls(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"dependency": "catalog", "name": "c%d"}`, i)
	}
	return `{"calls": [` + strings.Join(calls, ", ") + `]}`
}

// TestPresetsWithNewFields: a preset is a policy, hedging and scopes
// included, at level 0 or in a layer; a strategy's pool and bulkheads are
// its own, never a preset's.
func TestPresetsWithNewFields(t *testing.T) {
	presets := map[string]json.RawMessage{
		"hedger": json.RawMessage(`{"max_attempts": 3, "attempt_timeout": "1s", "hedging": {"delay": "50ms"},
			"breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "scope": "client"}}`),
		"pooled": json.RawMessage(`{"max_attempts": 2, "pool": {"slots": 4}}`),
	}
	doc := strings.Replace(validMulti, `"layers": [{"max_attempts": 2, "attempt_timeout": "100ms", "hedging": {"delay": "20ms", "delay_percentile": 95, "window": 200}}]`,
		`"layers": [{"preset": "hedger", "hedging": {"delay_percentile": 90}}]`, 1)
	doc = strings.Replace(doc, `"max_attempts": 3, "attempt_timeout": "1s",`, `"preset": "hedger", "hedging": {"delay": "10ms"},`, 1)
	sc, err := ParseWith([]byte(doc), presets)
	if err != nil {
		t.Fatal(err)
	}
	st := sc.Strategies[0]
	if h := st.Hedging; st.BasedOn != "hedger" || st.MaxAttempts != 3 || h == nil || h.Delay.String() != "10ms" || st.Pool == nil || st.Pool.Slots != 8 || len(st.Bulkheads) != 1 {
		t.Errorf("strategy: %+v, hedging %+v; want the preset's policy with its own delay, pool and bulkheads", st, st.Hedging)
	}
	if br := st.Breaker; br == nil || br.Scope != ScopeClient || br.Failures != 5 {
		t.Errorf("breaker %+v: want the strategy's own", br)
	}
	if l := st.Layers[0]; l.Hedging == nil || l.Hedging.Delay.String() != "50ms" || l.Hedging.DelayPercentile != 90 || l.Breaker.Scope != ScopeClient {
		t.Errorf("layer %+v: want the preset's hedging, merged with its own percentile", l)
	}
	again, err := Parse(sc.Canonical())
	if err != nil || string(again.Canonical()) != string(sc.Canonical()) {
		t.Errorf("canonical form: %v", err)
	}
	doc = strings.Replace(validMulti, `"max_attempts": 3, "attempt_timeout": "1s",`, `"preset": "pooled",`, 1)
	_, err = ParseWith([]byte(doc), presets)
	if es := AsErrors(err); len(es) != 1 || es[0].Path != "strategies[0].preset.pool" || !strings.Contains(es[0].Message, "is not a known field; allowed: preset, based_on, max_attempts") {
		t.Errorf("a preset with a pool: %v", err)
	}
}

// TestThresholdsDecodeStrictly: a map is read as strictly as a struct.
func TestThresholdsDecodeStrictly(t *testing.T) {
	doc := strings.Replace(validMulti, `"sheddable_plus": 20}`, `"sheddable_plus": 20, "critical": null}`, 1)
	sc, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if th := sc.Dependencies[2].Shedding.Thresholds; len(th) != 2 {
		t.Errorf("thresholds %v: null leaves a class without a threshold", th)
	}
	doc = strings.Replace(validMulti, `"sheddable_plus": 20}`, `"sheddable_plus": 20, "sheddable_plus": 30, "critical": 1.5}`, 1)
	_, err = Parse([]byte(doc))
	want := "dependencies[2].shedding.thresholds.sheddable_plus: duplicate key: a key may appear only once in an object\n" +
		"dependencies[2].shedding.thresholds.critical: 1.5 is not a whole number"
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

func TestDependencyAndPlanErrors(t *testing.T) {
	manyDeps := make([]string, MaxDependencies+1)
	for i := range manyDeps {
		manyDeps[i] = fmt.Sprintf(`{"name": "d%d", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0}`, i)
	}
	for _, tc := range []struct {
		desc, doc, path, message string
	}{
		{"neither dependency nor dependencies", strings.Replace(valid, `"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5},`, ``, 1),
			"dependency", "is missing; give dependency (the one dependency) or dependencies (a list of named dependencies)"},
		{"too many dependencies", strings.Replace(validMulti, `"dependencies": `+multiDeps, `"dependencies": [`+strings.Join(manyDeps, ", ")+`]`, 1),
			"dependencies", "lists 17 dependencies; at most 16 are allowed"},
		{"unprintable name of the one dependency", strings.Replace(valid, `"workers": 2,`, `"name": "d\u200b", "workers": 2,`, 1),
			"dependency.name", "is not printable"},
		{"plan calling another dependency", strings.Replace(valid, `"duration": "10s"}`, `"duration": "10s", "plan": [{"calls": [{"dependency": "db"}]}]}`, 1),
			"workload.plan[0].calls[0].dependency", `"db" is not a dependency; the only dependency is named dependency (dependency.name, "dependency" when left out)`},
		{"the one dependency uncalled", strings.Replace(strings.Replace(valid, `"workers": 2,`, `"name": "db", "workers": 2,`, 1), `"duration": "10s"}`, `"duration": "10s", "plan": [{"calls": [{"dependency": "dependency"}]}]}`, 1),
			"dependency.name", `"db" is not called by the plan`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			for _, e := range AsErrors(err) {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
}

// TestOneDependencyEstimatesUnchanged: the estimates of scenarios without
// the fields of several dependencies are those from before them, and a
// list of one dependency costs what the one dependency does.
func TestOneDependencyEstimatesUnchanged(t *testing.T) {
	for file, want := range map[string][2]int64{
		"consumer.json": {97308, 24934},
		"e03b.json":     {515379, 52472},
		"mixed.json":    {203700, 65301},
		"pipeline.json": {31816, 25552},
		"sweep.json":    {266076, 1992},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int64{Estimate(sc), EstimateSize(sc)}; got != want {
			t.Errorf("%s: estimate and size %v, want %v", file, got, want)
		}
		if sc.Sweep != nil {
			continue
		}
		listed := *sc
		listed.Dependencies = []Dependency{sc.Dependency}
		listed.Dependencies[0].Name = "db"
		listed.Dependency = Dependency{}
		if err := listed.Validate(); err != nil {
			t.Fatalf("%s as a list: %v", file, err)
		}
		if got := [2]int64{Estimate(&listed), EstimateSize(&listed)}; got != want {
			t.Errorf("%s as a list of one: estimate and size %v, want %v", file, got, want)
		}
	}
}

// TestEstimateCountsPlanCalls: every plan call costs its attempts, a hedged
// level's copies count as attempts, each dependency's network counts for
// the calls to it, and pools and bulkheads add to it.
func TestEstimateCountsPlanCalls(t *testing.T) {
	busy := strings.Replace(validMulti, `"rate": 10, "duration": "10s"`, `"rate": 1000, "duration": "100s"`, 1)
	est := func(doc string) int64 {
		t.Helper()
		sc, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return Estimate(sc)
	}
	base := est(busy)
	// 100,000 operations × 4 calls × 3 × 2 attempts × 3 events.
	if base < 100_000*4*6*3 {
		t.Errorf("4 calls of 6 attempts: estimate %d", base)
	}
	one := strings.Replace(valid, `"rate": 10, "duration": "10s"`, `"rate": 1000, "duration": "100s"`, 1)
	one = strings.Replace(one, `"max_attempts": 3}`, `"max_attempts": 3, "layers": [{"max_attempts": 2}]}`, 1)
	if single := est(one); base < 4*single-4*est(strings.Replace(one, `"rate": 1000`, `"rate": 0.001`, 1)) {
		t.Errorf("4 calls estimated at %d, one at %d", base, single)
	}
	twice := strings.Replace(busy, `{"calls": [{"dependency": "recs", "class": "sheddable", "share": 0.5}]}`,
		`{"calls": [{"dependency": "recs", "class": "sheddable", "share": 0.5}, {"dependency": "recs", "name": "recs2"}]}`, 1)
	if got := est(twice); got < base+100_000*6*3 {
		t.Errorf("a fifth call adds %d events, want at least %d", got-base, 100_000*6*3)
	}
	netted := strings.Replace(busy, `"queue_capacity": 50}`, `"queue_capacity": 50, "network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "constant", "mean": "1ms"}}}`, 1)
	// Two calls to the catalog, each 3 + 6 hops with two legs.
	if got := est(netted); got < base+100_000*2*9*2 {
		t.Errorf("the catalog's network adds %d events, want at least %d", got-base, 100_000*2*9*2)
	}
	unhedged := strings.Replace(busy, `, "hedging": {"delay": "20ms", "delay_percentile": 95, "window": 200}`, ``, 1)
	if h, u := base, est(unhedged); h <= u {
		t.Errorf("hedged copies estimated at %d, retries at %d; a copy costs at least what an attempt does", h, u)
	}
	unpooled := strings.Replace(busy, `"pool": {"slots": 8, "max_waiting": 100, "max_wait": "1s"},`, ``, 1)
	if p, u := base, est(unpooled); p <= u {
		t.Errorf("with a pool %d, without %d", p, u)
	}
	// A run that ends later costs more bins: a pool's line, a bulkhead's
	// and a fallback lengthen the span bound.
	sc, _ := Parse([]byte(busy))
	_, hi := estimateSpan(sc)
	sc.Strategies[0].Pool.MaxWait = Duration(time.Hour)
	if _, longer := estimateSpan(sc); longer <= hi {
		t.Errorf("a pool wait of up to an hour does not lengthen the span bound %g", hi)
	}
}

func TestWarningsOfSeveralDependencies(t *testing.T) {
	warnings := func(doc string) string {
		t.Helper()
		sc, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(Warnings(sc), "\n")
	}
	if ws := warnings(validMulti); ws != "" {
		t.Errorf("validMulti warns:\n%s", ws)
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"max_concurrent": 2`, `"max_concurrent": 8`,
			`strategy "a": the bulkhead of "payment" allows 8 concurrent calls, no fewer than the pool's 8 slots, so it never limits them (strategies[0].bulkheads[0])`},
		{`"max_waiting": 100, "max_wait": "1s"`, `"max_waiting": 100`,
			`strategy "a": calls wait for a pool slot without max_wait; while a frozen dependency holds every slot, they wait as long as it does (strategies[0].pool)`},
		{`"max_waiting": 4, "max_wait": "500ms"`, `"max_waiting": 4`,
			`strategy "a": calls wait for the bulkhead of "payment" without max_wait; while a frozen dependency holds it, they wait as long as it does (strategies[0].bulkheads[0])`},
		{`"delay": "20ms", "delay_percentile": 95, "window": 200`, `"delay": "100ms"`,
			`strategy "a" layer 1: the hedging delay 100ms is no shorter than the attempt_timeout 100ms, so a copy times out before the next leaves: the copies never overlap, they are retries without backoff (strategies[0])`},
		{`"sheddable_plus": 20}`, `"sheddable_plus": 40}`,
			`dependency "recs": the "sheddable_plus" threshold 40 is not below the queue capacity 40, so the queue is full, and refuses those calls, before it sheds them (dependencies[2].shedding)`},
		{`"class": "sheddable", `, ``,
			`dependency "recs": sheds "sheddable_plus", "sheddable", but no call to it has such a class (calls are "critical" unless the plan says otherwise), so it never sheds (dependencies[2].shedding)`},
		// Attempts multiplied over the levels: 5 × 2 is not yet too many.
		{`"max_attempts": 3, "attempt_timeout": "1s"`, `"max_attempts": 5, "attempt_timeout": "1s"`, ``},
		{`"max_attempts": 3, "attempt_timeout": "1s"`, `"max_attempts": 6, "attempt_timeout": "1s"`,
			`strategy "a": retries at 2 levels multiply to up to 12 dependency calls per operation (strategies[0])`},
		{`"max_attempts": 3, "attempt_timeout": "1s"`, `"max_attempts": 0, "attempt_timeout": "1s", "deadline": "10s"`,
			`strategy "a": retries at 2 levels, some without limit, multiply to an unbounded number of dependency calls per operation (strategies[0])`},
	} {
		doc := strings.Replace(validMulti, tc.old, tc.new, 1)
		if doc == validMulti {
			t.Fatalf("%s: the case does not change the scenario", tc.old)
		}
		if got := warnings(doc); got != tc.want {
			t.Errorf("%s → %s: warnings\n%s\nwant\n%s", tc.old, tc.new, got, tc.want)
		}
	}
	// One level multiplies nothing, however many attempts it makes.
	if got := warnings(strings.Replace(valid, `"max_attempts": 3`, `"max_attempts": 20, "attempt_timeout": "1s"`, 1)); got != "" {
		t.Errorf("20 attempts at one level warn:\n%s", got)
	}
	// The one dependency's calls are critical.
	one := strings.Replace(valid, `"queue_capacity": 5}`, `"queue_capacity": 5, "shedding": {"measure": "load", "thresholds": {"sheddable": 3}}}`, 1)
	if got, want := warnings(one), `dependency "dependency": sheds "sheddable", but no call to it has such a class`; !strings.Contains(got, want) {
		t.Errorf("warnings\n%s\nwant %s", got, want)
	}
}

// TestRefusedNamesAreNotRefusedTwice: a reference to a dependency whose
// name is refused (repeated, here) is not another problem, and finds the
// dependency that holds the name rightly.
func TestRefusedNamesAreNotRefusedTwice(t *testing.T) {
	doc := strings.Replace(validMulti, `{"name": "payment", "workers": 2`, `{"name": "catalog", "workers": 2`, 1)
	doc = strings.Replace(doc, `"bulkheads": [`, `"bulkheads": [{"dependency": "catalog", "max_concurrent": 1}, {"dependency": "catalog", "max_concurrent": 1}, `, 1)
	_, err := Parse([]byte(doc))
	var paths []string
	for _, e := range AsErrors(err) {
		paths = append(paths, e.Path)
	}
	want := []string{
		"dependencies[1].name",                  // repeated
		"workload.plan[0].calls[1].dependency",  // "payment" is gone
		"strategies[0].bulkheads[1].dependency", // two bulkheads for the catalog
		"strategies[0].bulkheads[2].dependency", // "payment" is gone
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("problems at %v, want %v:\n%v", paths, want, err)
	}
}

// TestManyDependenciesAreBounded: a list far over MaxDependencies, with as
// many calls and bulkheads, is refused in linear work: references to it
// are not checked one by one against it.
func TestManyDependenciesAreBounded(t *testing.T) {
	const n = 5_000
	deps, calls, bulkheads := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		deps[i] = fmt.Sprintf(`{"name": "d%d", "workers": 1, "service_time": {"kind": "constant"}, "queue_capacity": 0}`, i)
		calls[i] = fmt.Sprintf(`{"dependency": "d%d"}`, n-1-i)
		bulkheads[i] = fmt.Sprintf(`{"dependency": "d%d", "max_concurrent": 1}`, n-1-i)
	}
	doc := strings.Replace(validMulti, `"dependencies": `+multiDeps, `"dependencies": [`+strings.Join(deps, ",")+`]`, 1)
	doc = strings.Replace(doc, `"plan": `+multiPlan, `"plan": [{"calls": [`+strings.Join(calls, ",")+`]}]`, 1)
	doc = strings.Replace(doc, `"bulkheads": [`, `"bulkheads": [`+strings.Join(bulkheads, ",")+`,`, 1)
	start := time.Now()
	sc, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	decoded := time.Now()
	es := AsErrors(sc.Validate())
	if len(es) != 2 || es[0].Path != "dependencies" || es[1].Path != "workload.plan" {
		t.Errorf("want the count of dependencies and of calls; got %d problems:\n%v", len(es), es)
	}
	t.Logf("%d dependencies, calls and bulkheads: decoded in %s, validated in %s", n, decoded.Sub(start), time.Since(decoded))
}

// TestSweepNullLeavesFieldOut: a sweep value of null removes the field, so
// that a sweep can compare a feature with its absence.
func TestSweepNullLeavesFieldOut(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "n", "workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 10},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1}],
		"sweep": {"path": "dependency.shedding", "values": [null, {"measure": "queue", "thresholds": {"sheddable": 1}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	off, err := sc.withValue(0)
	if err != nil || off.Dependency.Shedding != nil {
		t.Fatalf("null: shedding %+v, error %v; want none", off.Dependency.Shedding, err)
	}
	on, err := sc.withValue(1)
	if err != nil || on.Dependency.Shedding == nil || on.Dependency.Shedding.Thresholds[ClassSheddable] != 1 {
		t.Fatalf("object: shedding %+v, error %v", on.Dependency.Shedding, err)
	}
}

// TestZeroDurationDropsAPresets: "deadline": "0s" beside a preset that sets
// a deadline drops it (the policy's fields override the preset's); without
// one it is refused (TestErrorsNameFieldValueAndRule).
func TestZeroDurationDropsAPresets(t *testing.T) {
	presets := map[string]json.RawMessage{"p": json.RawMessage(`{"max_attempts": 3, "deadline": "5s", "attempt_timeout": "1s"}`)}
	doc := strings.Replace(valid, `"max_attempts": 3`, `"preset": "p", "deadline": "0s", "attempt_timeout": "0s"`, 1)
	sc, err := ParseWith([]byte(doc), presets)
	if err != nil {
		t.Fatal(err)
	}
	if p := sc.Strategies[0].Policy; p.Deadline != 0 || p.AttemptTimeout != 0 || p.MaxAttempts != 3 {
		t.Errorf("deadline %s, attempt_timeout %s, max_attempts %d; want the preset's deadline and time-out dropped", p.Deadline, p.AttemptTimeout, p.MaxAttempts)
	}
	doc = strings.Replace(valid, `"max_attempts": 3`, `"preset": "p", "max_elapsed": "0s"`, 1)
	_, err = ParseWith([]byte(doc), presets)
	if es := AsErrors(err); len(es) != 1 || es[0].Path != "strategies[0].max_elapsed" {
		t.Errorf("a zero the preset does not set: %v; want one error at strategies[0].max_elapsed", err)
	}
}

// TestWarningsOfClientsSharingARate: a total rate shared by so many
// clients that each averages less than one operation is said to be the
// load, whatever the number of clients; a rate per client, or clients
// that each send several, are not warned about.
func TestWarningsOfClientsSharingARate(t *testing.T) {
	for _, c := range []struct {
		w    Workload
		want string
	}{
		{Workload{Clients: 1_000_000, Rate: 95, Duration: Duration(60e9)}, "workload: rate 95 is the total of all 1000000 clients, so each sends 0.0057 operations in the 1m0s run on average; more clients do not add load"},
		{Workload{Clients: 1_000_000, RatePerClient: 0.001, Duration: Duration(60e9)}, ""},
		{Workload{Clients: 100, Rate: 95, Duration: Duration(60e9)}, ""},
		{Workload{Clients: 1_000_000, Rate: 95, Duration: Duration(60e9), Arrival: ArrivalClosed, ThinkTime: Duration(1e9)}, ""},
	} {
		got := strings.Join(clientsWarnings(&c.w), "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}

// TestLimitsAtTheirEdges: each limit accepts its last allowed value and
// refuses the next one past it, with an error naming the field, the
// value and what is allowed.
func TestLimitsAtTheirEdges(t *testing.T) {
	const phase, strategy = `"queue_capacity": 5`, `"max_attempts": 3`
	const dependency = `"duration": "10s"},
	"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5}`
	list := func(n int, item func(i int) string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = item(i)
		}
		return strings.Join(items, ", ")
	}
	steps := func(n int) string {
		return `"load": [` + list(n, func(int) string { return `{"kind": "step", "from": "0s", "to": "1s", "factor": 2}` }) + `]`
	}
	deps := func(n int) string {
		return `"duration": "10s", "plan": [{"calls": [` +
			list(n, func(i int) string { return fmt.Sprintf(`{"dependency": "d%d"}`, i) }) + `]}]}, "dependencies": [` +
			list(n, func(i int) string {
				return fmt.Sprintf(`{"name": "d%d", "workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}}`, i)
			}) + `]`
	}
	points := func(n int) string {
		return `"load_errors": {"points": [` + list(n, func(i int) string { return fmt.Sprintf(`{"load": %d, "rate": 0.1}`, 10*i) }) + `]}`
	}
	for _, tc := range []struct {
		desc string
		old  string
		new  string
		path string // "": accepted
		msg  string // the whole error: path, value and what is allowed
	}{
		// A phase's workers, error rate and latency factor.
		{"capacity at its most", phase, phase + `, "phases": [{"kind": "capacity", "from": "1s", "to": "2s", "workers": 100000}]`, "", ""},
		{"capacity past its most", phase, phase + `, "phases": [{"kind": "capacity", "from": "1s", "to": "2s", "workers": 100001}]`,
			"dependency.phases[0].workers", "dependency.phases[0].workers: 100001 is out of range 0..100000"},
		{"error rate of 1", phase, phase + `, "phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 1}]`, "", ""},
		{"error rate past 1", phase, phase + `, "phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 1.000001}]`,
			"dependency.phases[0].rate", "dependency.phases[0].rate: 1.000001 is out of range; an errors phase needs a rate in (0, 1]"},
		{"error rate of 0", phase, phase + `, "phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 0}]`,
			"dependency.phases[0].rate", "dependency.phases[0].rate: 0 is out of range; an errors phase needs a rate in (0, 1]"},
		{"smallest error rate", phase, phase + `, "phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 1e-9}]`, "", ""},
		{"latency factor of 1000", phase, phase + `, "phases": [{"kind": "latency", "from": "1s", "to": "2s", "factor": 1000}]`, "", ""},
		{"latency factor past 1000", phase, phase + `, "phases": [{"kind": "latency", "from": "1s", "to": "2s", "factor": 1000.001}]`,
			"dependency.phases[0].factor", "dependency.phases[0].factor: 1000.001 is out of range; a latency phase needs a factor in (0, 1000]"},
		{"latency factor of 0", phase, phase + `, "phases": [{"kind": "latency", "from": "1s", "to": "2s", "factor": 0}]`,
			"dependency.phases[0].factor", "dependency.phases[0].factor: 0 is out of range; a latency phase needs a factor in (0, 1000]"},
		{"smallest latency factor", phase, phase + `, "phases": [{"kind": "latency", "from": "1s", "to": "2s", "factor": 1e-9}]`, "", ""},
		// A breaker's open state, lengthened and capped.
		{"max open equal to the break", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "10s", "open_multiplier": 2, "max_open": "10s"}`, "", ""},
		{"max open just under the break", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "10s", "open_multiplier": 2, "max_open": "9.999s"}`,
			"strategies[0].breaker.max_open", `strategies[0].breaker.max_open: "9.999s" is shorter than break 10s; allowed break or longer`},
		{"open multiplier of 1", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "open_multiplier": 1}`, "", ""},
		{"open multiplier of 100", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "open_multiplier": 100}`, "", ""},
		{"open multiplier past 100", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "open_multiplier": 100.5}`,
			"strategies[0].breaker.open_multiplier", "strategies[0].breaker.open_multiplier: 100.5 is out of range 1..100"},
		// A count-window breaker: k of n, and its minimum throughput.
		{"k of n with k = n", strategy, strategy + `, "breaker": {"kind": "ratio", "failures": 5, "min_throughput": 5, "window_calls": 5, "break": "1s"}`, "", ""},
		{"min throughput past window_calls", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 6, "window_calls": 5, "break": "1s"}`,
			"strategies[0].breaker.min_throughput", "strategies[0].breaker.min_throughput: 6 is more than window_calls 5; the breaker could never open"},
		{"ratio of 1", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 1, "min_throughput": 1, "window": "10s", "break": "1s"}`, "", ""},
		{"ratio past 1", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 1.000001, "min_throughput": 1, "window": "10s", "break": "1s"}`,
			"strategies[0].breaker.ratio", "strategies[0].breaker.ratio: 1.000001 is out of range 1e-09..1"},
		{"window of 100,000 calls", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 1, "window_calls": 100000, "break": "1s"}`, "", ""},
		{"window past 100,000 calls", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 1, "window_calls": 100001, "break": "1s"}`,
			"strategies[0].breaker.window_calls", "strategies[0].breaker.window_calls: 100001 is out of range 1..100000"},
		{"slow ratio of 1", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 1, "window": "10s", "break": "1s", "slow_call": "1s", "slow_ratio": 1}`, "", ""},
		{"slow ratio past 1", strategy, strategy + `, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 1, "window": "10s", "break": "1s", "slow_call": "1s", "slow_ratio": 1.5}`,
			"strategies[0].breaker.slow_ratio", "strategies[0].breaker.slow_ratio: 1.5 is out of range 1e-09..1"},
		{"1000 half-open calls", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_calls": 1000}`, "", ""},
		{"half-open calls past 1000", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_calls": 1001}`,
			"strategies[0].breaker.half_open_calls", "strategies[0].breaker.half_open_calls: 1001 is out of range 1..1000, or 0 (or absent): the default, 1"},
		{"half-open failures = calls", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_calls": 3, "half_open_failures": 3}`, "", ""},
		{"half-open failures past calls", strategy, strategy + `, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s", "half_open_calls": 3, "half_open_failures": 4}`,
			"strategies[0].breaker.half_open_failures", "strategies[0].breaker.half_open_failures: 4 is out of range 1..3, or 0 (or absent): the default, 1"},
		// Arrivals per client, in total at most 1e6 a second.
		{"rate per client at the total's most", `"rate": 10`, `"rate_per_client": 100000`, "", ""},
		{"rate per client past the total's most", `"rate": 10`, `"rate_per_client": 100000.1`,
			"workload.rate_per_client", "workload.rate_per_client: 100000.1 gives 1.000001e+06 operations per second in total; at most 1e+06 are allowed"},
		// A daily load curve's period, up to a day.
		{"daily period of 24h", `"duration": "10s"`, `"duration": "10s", "load": [{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 0.5, "period": "24h"}]`, "", ""},
		{"daily period past 24h", `"duration": "10s"`, `"duration": "10s", "load": [{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 0.5, "period": "24h0m0.001s"}]`,
			"workload.load[0].period", `workload.load[0].period: "24h0m0.001s" is out of range; a daily curve's period is 1s to 24h0m0s (24h for a day)`},
		// The affected window: to after from, by any amount.
		{"affected window of 1ms", `"strategies"`, `"report": {"affected_from": "1s", "affected_to": "1.001s"}, "strategies"`, "", ""},
		{"affected window of nothing", `"strategies"`, `"report": {"affected_from": "1s", "affected_to": "1s"}, "strategies"`,
			"report.affected_to", `report.affected_to: "1s" is not after affected_from 1s`},
		// Load phases: at most MaxLoadPhases.
		{"20 load phases", `"duration": "10s"`, `"duration": "10s", ` + steps(20), "", ""},
		{"21 load phases", `"duration": "10s"`, `"duration": "10s", ` + steps(21),
			"workload.load", "workload.load: 21 has too many phases; at most 20 are allowed"},
		// Dependencies: at most MaxDependencies.
		{"16 dependencies", dependency, deps(16), "", ""},
		{"17 dependencies", dependency, deps(17),
			"dependencies", "dependencies: lists 17 dependencies; at most 16 are allowed"},
		// A load-dependent error rate's points: 1..100.
		{"100 load error points", phase, phase + ", " + points(100), "", ""},
		{"101 load error points", phase, phase + ", " + points(101),
			"dependency.load_errors.points", `dependency.load_errors.points: lists 101 points; give 1..100 points {"load", "rate"}`},
		// Phases of a kind may touch, in either order, but not overlap.
		{"phases touching, later first", phase, phase + `, "phases": [{"kind": "errors", "from": "2s", "to": "3s", "rate": 0.5}, {"kind": "errors", "from": "1s", "to": "2s", "rate": 0.5}]`, "", ""},
		{"phases touching, earlier first", phase, phase + `, "phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 0.5}, {"kind": "errors", "from": "2s", "to": "3s", "rate": 0.5}]`, "", ""},
		{"phases overlapping by 1ms", phase, phase + `, "phases": [{"kind": "errors", "from": "2s", "to": "3s", "rate": 0.5}, {"kind": "errors", "from": "1s", "to": "2.001s", "rate": 0.5}]`,
			"dependency.phases[1]", `dependency.phases[1]: overlaps phases[0]; phases of the same kind ("errors") must not overlap`},
		// A concurrency limit's refusal status: 400..599.
		{"concurrency limit status 599", phase, phase + `, "concurrency_limit": {"status": 599}`, "", ""},
		{"concurrency limit status 600", phase, phase + `, "concurrency_limit": {"status": 600}`,
			"dependency.concurrency_limit.status", "dependency.concurrency_limit.status: 600 is not an error status; allowed 400..599, or 0 (or absent): the default, 503"},
		// A client throttle's k: 1..100.
		{"throttle k of 100", strategy, strategy + `, "throttle": {"k": 100}`, "", ""},
		{"throttle k past 100", strategy, strategy + `, "throttle": {"k": 100.5}`,
			"strategies[0].throttle.k", "strategies[0].throttle.k: 100.5 is out of range 1..100 (or 0 for the default 2); the Google SRE book uses 2, and 1.1 for a more aggressive throttle"},
		// A name's length, in characters, not bytes.
		{"name of 200 characters", `"name": "v"`, `"name": "` + strings.Repeat("é", 200) + `"`, "", ""},
		{"name of 201 characters", `"name": "v"`, `"name": "` + strings.Repeat("é", 201) + `"`,
			"name", "name: is 201 characters long; at most 200 are allowed"},
		// A seed survives a round trip through JavaScript: at most 2^53-1.
		{"seed of 2^53-1", `"name": "v"`, `"name": "v", "seed": 9007199254740991`, "", ""},
		{"seed of 2^53", `"name": "v"`, `"name": "v", "seed": 9007199254740992`,
			"seed", "seed: 9007199254740992 is out of range 0..9007199254740991"},
		// A step load phase's factor: 0..100.
		{"step factor of 100", `"duration": "10s"`, `"duration": "10s", "load": [{"kind": "step", "from": "0s", "to": "1s", "factor": 100}]`, "", ""},
		{"step factor past 100", `"duration": "10s"`, `"duration": "10s", "load": [{"kind": "step", "from": "0s", "to": "1s", "factor": 100.001}]`,
			"workload.load[0].factor", "workload.load[0].factor: 100.001 is out of range; a step multiplies the rate by a factor in 0..100 other than 1 (0 stops arrivals, 0.8 sheds 20%, 3 triples the load)"},
		// A load-dependent latency's slope, (0, 1000], and its largest factor, 1..1000.
		{"latency slope of 1000", phase, phase + `, "load_latency": {"law": "linear", "slope": 1000}`, "", ""},
		{"latency slope past 1000", phase, phase + `, "load_latency": {"law": "linear", "slope": 1000.001}`,
			"dependency.load_latency.slope", `dependency.load_latency.slope: 1000.001 is out of range; the "linear" law needs a slope in (0, 1000]`},
		{"latency max factor of 1", phase, phase + `, "load_latency": {"law": "linear", "slope": 1, "max_factor": 1}`, "", ""},
		{"latency max factor under 1", phase, phase + `, "load_latency": {"law": "linear", "slope": 1, "max_factor": 0.999}`,
			"dependency.load_latency.max_factor", "dependency.load_latency.max_factor: 0.999 is out of range; the largest factor is in 1..1000 (100 when not given)"},
		{"latency max factor of 1000", phase, phase + `, "load_latency": {"law": "linear", "slope": 1, "max_factor": 1000}`, "", ""},
		{"latency max factor past 1000", phase, phase + `, "load_latency": {"law": "linear", "slope": 1, "max_factor": 1000.001}`,
			"dependency.load_latency.max_factor", "dependency.load_latency.max_factor: 1000.001 is out of range; the largest factor is in 1..1000 (100 when not given)"},
		// A lognormal service time's p99: at least its p50.
		{"lognormal p99 equal to p50", `{"kind": "constant", "mean": "10ms"}`, `{"kind": "lognormal", "p50": "10ms", "p99": "10ms"}`, "", ""},
		{"lognormal p99 under p50", `{"kind": "constant", "mean": "10ms"}`, `{"kind": "lognormal", "p50": "10ms", "p99": "9.999ms"}`,
			"dependency.service_time.p99", `dependency.service_time.p99: "9.999ms" is below p50 10ms; p99 must be at least p50`},
		// A concurrency limit's refusal status from its lower end.
		{"concurrency limit status 400", phase, phase + `, "concurrency_limit": {"status": 400}`, "", ""},
		{"concurrency limit status 399", phase, phase + `, "concurrency_limit": {"status": 399}`,
			"dependency.concurrency_limit.status", "dependency.concurrency_limit.status: 399 is not an error status; allowed 400..599, or 0 (or absent): the default, 503"},
		// A minimum attempt time without a deadline has none to exceed.
		{"min attempt time without a deadline", strategy, strategy + `, "min_attempt_time": "2s"`, "", ""},
		{"min attempt time equal to the deadline", strategy, strategy + `, "deadline": "2s", "min_attempt_time": "2s"`, "", ""},
		{"min attempt time past the deadline", strategy, strategy + `, "deadline": "2s", "min_attempt_time": "2.001s"`,
			"strategies[0].min_attempt_time", `strategies[0].min_attempt_time: "2.001s" is longer than the deadline 2s`},
		// Hedging: a backoff of kind none is no backoff; any other is refused.
		{"hedging with backoff none", strategy, strategy + `, "hedging": {"delay": "10ms"}, "backoff": {"kind": "none"}`, "", ""},
		{"hedging with a constant backoff", strategy, strategy + `, "hedging": {"delay": "10ms"}, "backoff": {"kind": "constant"}`,
			"strategies[0].backoff", "strategies[0].backoff: has no meaning with hedging: a copy leaves hedging.delay after the previous one, or at once when one fails, without backoff; leave backoff out"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			at, err := parseEdited(t, valid, tc.old, tc.new, tc.path)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !slices.Contains(at, tc.msg) {
				t.Errorf("want the error %q; got:\n%v", tc.msg, err)
			}
		})
	}
}

// TestPathIndexAtItsEdge: an index in a path has at most six digits;
// seven are refused with the whole error.
func TestPathIndexAtItsEdge(t *testing.T) {
	steps, err := ParsePath("strategies[999999].max_attempts", "sweep.path")
	if want := []PathStep{{Key: "strategies"}, {Index: 999999}, {Key: "max_attempts"}}; err != nil || !reflect.DeepEqual(steps, want) {
		t.Errorf("six digits: %+v, %v; want %+v", steps, err, want)
	}
	_, err = ParsePath("strategies[1000000].max_attempts", "sweep.path")
	if want := `sweep.path: "strategies[1000000].max_attempts" is not a path such as "dependency.error_rate" or "strategies[1].max_attempts": an index must be a number in brackets`; err == nil || err.Error() != want {
		t.Errorf("seven digits: %v\nwant %s", err, want)
	}
}

// TestAnswerFastCheckAgreesWithItsErrors: a script's answers are checked
// first by Answer.valid, and only those it doubts get the full checks with
// their paths; the two must agree at every edge, or a long script would
// either let a bad answer through or format a path for every good one.
func TestAnswerFastCheckAgreesWithItsErrors(t *testing.T) {
	for _, a := range []Answer{
		{Status: 99}, {Status: 100}, {Status: 200}, {Status: 599}, {Status: 600}, {},
		{Error: "connection"}, {Error: "connection", Status: 503}, {Error: "timeout"},
		{Status: 200, Latency: -1}, {Status: 200, Latency: MaxSpan}, {Status: 200, Latency: MaxSpan + 1},
		{Error: "connection", Latency: MaxSpan}, {Error: "connection", Latency: MaxSpan + 1},
	} {
		v := &validator{}
		v.answer("a", &a)
		if got, want := a.valid(), !v.failed(); got != want {
			t.Errorf("%+v: valid() = %v, but the full checks find %d errors %v", a, got, len(v.errs), v.errs)
		}
	}
}
