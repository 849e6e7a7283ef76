package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

var testPresets = map[string]json.RawMessage{
	"lib-default": json.RawMessage(`{"max_attempts": 4, "attempt_timeout": "10s", "honor_retry_after": true,
		"backoff": {"kind": "exponential", "base": "2s", "max": "30s"}, "jitter": {"kind": "full"},
		"breaker": {"kind": "ratio", "ratio": 0.1, "min_throughput": 100, "window": "30s", "break": "5s"}}`),
}

func TestPresetExpandsAndOverrides(t *testing.T) {
	doc := strings.Replace(valid, `{"name": "a", "max_attempts": 3}`,
		`{"name": "a", "preset": "lib-default", "honor_retry_after": false, "backoff": {"base": "500ms"}, "breaker": {"break": "1s"}}`, 1)
	sc, err := ParseWith([]byte(doc), testPresets)
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Strategies[0].Policy
	if p.MaxAttempts != 4 || p.AttemptTimeout.String() != "10s" || p.HonorRetryAfter {
		t.Errorf("fields: max_attempts %d, attempt_timeout %s, honor_retry_after %v; want 4, 10s (preset), false (override)", p.MaxAttempts, p.AttemptTimeout, p.HonorRetryAfter)
	}
	if p.Backoff.Kind != "exponential" || p.Backoff.Base.String() != "500ms" || p.Backoff.Max.String() != "30s" {
		t.Errorf("backoff %+v: want the preset's kind and max with the overridden base", p.Backoff)
	}
	if p.Breaker.Ratio != 0.1 || p.Breaker.Break.String() != "1s" {
		t.Errorf("breaker %+v: want the preset's ratio with the overridden break", p.Breaker)
	}
	if p.Preset != "" || p.BasedOn != "lib-default" {
		t.Errorf("preset %q, based_on %q; want the name moved to based_on", p.Preset, p.BasedOn)
	}
	// The canonical form stands alone: it decodes without presets to the same thing.
	canon := sc.Canonical()
	if strings.Contains(string(canon), `"preset"`) {
		t.Errorf("canonical form still names the preset to expand: %s", canon)
	}
	again, err := Parse(canon)
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Canonical()) != string(canon) {
		t.Errorf("canonical form changed on a round trip:\n%s\n%s", canon, again.Canonical())
	}
}

func TestPresetErrors(t *testing.T) {
	doc := strings.Replace(valid, `"max_attempts": 3`, `"preset": "nope"`, 1)
	_, err := ParseWith([]byte(doc), testPresets)
	if es := AsErrors(err); len(es) == 0 || es[0].Path != "strategies[0].preset" || !strings.Contains(es[0].Error(), `"nope" is not a known preset; known: lib-default`) {
		t.Errorf("unknown preset: %v", err)
	}
	_, err = Parse([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "no presets are loaded") {
		t.Errorf("preset without presets: %v", err)
	}
}

// TestPresetFieldWithoutMeaning: a preset's field that the policy's own
// choice leaves without meaning (the preset's jitter fraction beside the
// policy's full jitter) is refused naming the preset and how to drop it.
func TestPresetFieldWithoutMeaning(t *testing.T) {
	presets := map[string]json.RawMessage{"azure-sdk": json.RawMessage(`{"max_attempts": 4,
		"backoff": {"kind": "exponential", "base": "800ms", "multiplier": 2, "max": "1m"}, "jitter": {"kind": "proportional", "fraction": 0.2}}`)}
	doc := strings.Replace(valid, `{"name": "a", "max_attempts": 3}`, `{"name": "a", "preset": "azure-sdk", "jitter": {"kind": "full"}}`, 1)
	_, err := ParseWith([]byte(doc), presets)
	es := AsErrors(err)
	if len(es) != 1 || es[0].Path != "strategies[0].jitter.fraction" ||
		!strings.Contains(es[0].Message, `has no meaning for "full" jitter; it is for "proportional"`) ||
		!strings.Contains(es[0].Message, `preset "azure-sdk"`) || !strings.Contains(es[0].Message, `"fraction": 0`) {
		t.Fatalf("got %v; want strategies[0].jitter.fraction naming preset \"azure-sdk\" and how to drop its fraction", err)
	}
	// The advice works.
	doc = strings.Replace(doc, `"jitter": {"kind": "full"}`, `"jitter": {"kind": "full", "fraction": 0}`, 1)
	if _, err := ParseWith([]byte(doc), presets); err != nil {
		t.Errorf("with the fraction dropped: %v", err)
	}
	// The backoff's multiplier likewise.
	doc = strings.Replace(valid, `{"name": "a", "max_attempts": 3}`, `{"name": "a", "preset": "azure-sdk", "backoff": {"kind": "constant"}}`, 1)
	if _, err := ParseWith([]byte(doc), presets); err == nil || !strings.Contains(err.Error(), `preset "azure-sdk"`) || !strings.Contains(err.Error(), `"multiplier": 0`) {
		t.Errorf("a preset's multiplier with constant backoff: %v", err)
	}
}
