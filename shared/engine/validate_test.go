package engine

import (
	"strings"
	"testing"
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
		{"version", `"version": 1`, `"version": 2`, "version", "2 is not supported"},
		{"duplicate names", `[{"name": "a", "max_attempts": 3}]`, `[{"name": "a", "max_attempts": 3}, {"name": "a", "max_attempts": 1}]`, "strategies[1].name", "names must be unique"},
		{"no strategies", `[{"name": "a", "max_attempts": 3}]`, `[]`, "strategies", "at least one strategy"},
		{"rate and per client", `"rate": 10`, `"rate": 10, "rate_per_client": 1`, "workload.rate", "give one of them"},
		{"phase order", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "5s", "to": "2s"}]`, "dependency.phases[0].to", "is not after from 5s"},
		{"phase field of another kind", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "1s", "to": "2s", "workers": 3}]`, "dependency.phases[0].workers", `it is for "capacity"`},
		{"overlapping phases", `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "1s", "to": "3s"}, {"kind": "outage", "from": "2s", "to": "4s"}]`, "dependency.phases[1]", "overlaps phases[0]"},
		{"status", `"queue_capacity": 5`, `"queue_capacity": 5, "queue_full_status": 999`, "dependency.queue_full_status", "999 is not an HTTP status"},
		{"jitter without backoff", `"max_attempts": 3`, `"max_attempts": 3, "jitter": {"kind": "full"}`, "strategies[0].jitter.kind", "needs a backoff"},
		{"jitter field of another kind", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "full", "fraction": 0.1}`, "strategies[0].jitter.fraction", `no meaning for "full" jitter; it is for "proportional"`},
		{"jitter amount of another kind", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "equal", "amount": "5ms"}`, "strategies[0].jitter.amount", `no meaning for "equal" jitter; it is for "additive"`},
		{"additive jitter without amount", `"max_attempts": 3`, `"max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}, "jitter": {"kind": "additive"}`, "strategies[0].jitter.amount", "must be more than 0s"},
		{"budget field of other kind", `"max_attempts": 3`, `"max_attempts": 3, "budget": {"kind": "ratio", "ratio": 0.1, "max_tokens": 10}`, "strategies[0].budget.max_tokens", `no meaning for a "ratio" budget`},
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

// TestErrorsAreBounded: 1,200 identical overlapping phases used to give
// 720,000 problems (every pair), after the "at most 100 phases" one.
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
	// problem: 99 for 100 identical phases (there were 4,950).
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
