package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFormEditsLoadAndLoadLatency (#32): the form adds a load change
// (a step, then a spike with its own field in place of the factor),
// runs each version, and shows a load-dependent latency's fields for its
// law only; clearing the law
// removes the whole block the engine would refuse as incomplete.
func TestFormEditsLoadAndLoadLatency(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	do(t, ctx, click(`[data-action=load-add]`), ran(2))
	w := scenarioJSON(ctx, t)["workload"].(map[string]any)
	if got, _ := json.Marshal(w["load"]); string(got) != `[{"factor":2,"from":"10s","kind":"step","to":"20s"}]` {
		t.Errorf("after adding a load change: %s", got)
	}
	do(t, ctx, setField("workload.load[0].kind", "spike"),
		until(`document.querySelector('[data-path="workload.load[0].rate"]') !== null`),
		setField("workload.load[0].rate", "50"), ran(3))
	w = scenarioJSON(ctx, t)["workload"].(map[string]any)
	if got, _ := json.Marshal(w["load"]); string(got) != `[{"from":"10s","kind":"spike","rate":50,"to":"20s"}]` {
		t.Errorf("a spike keeps its own fields only: %s", got)
	}
	if n := text(ctx, t, `String(document.querySelectorAll('[data-path="workload.load[0].factor"]').length)`); n != "0" {
		t.Errorf("a spike shows the step's factor")
	}
	if s := text(ctx, t, `document.querySelector("[data-testid=status]").textContent`); !strings.Contains(s, "Ran in") {
		t.Errorf("status %q after the spike; want a run", s)
	}

	law := func() string {
		return text(ctx, t, `["of", "knee", "slope", "power", "sigma", "kappa", "max_factor"].filter(f => document.querySelector('[data-path="dependency.load_latency.' + f + '"]')).join(",")`)
	}
	if got := law(); got != "" {
		t.Errorf("no law yet: fields %q", got)
	}
	do(t, ctx, setField("dependency.load_latency.law", "usl"),
		until(`document.querySelector('[data-path="dependency.load_latency.sigma"]') !== null`))
	if got := law(); got != "of,sigma,kappa,max_factor" {
		t.Errorf("usl: fields %q", got)
	}
	do(t, ctx, setField("dependency.load_latency.sigma", "0.05"), ran(4),
		setField("dependency.load_latency.law", "linear"),
		until(`document.querySelector('[data-path="dependency.load_latency.slope"]') !== null`))
	if got := law(); got != "of,knee,slope,max_factor" {
		t.Errorf("linear: fields %q", got)
	}
	if d := scenarioJSON(ctx, t)["dependency"].(map[string]any); d["load_latency"].(map[string]any)["sigma"] != nil {
		t.Errorf("the linear law keeps usl's sigma: %v", d["load_latency"])
	}
	do(t, ctx, setField("dependency.load_latency.law", ""), until(`document.querySelector('[data-path="dependency.load_latency.slope"]') === null`))
	if d := scenarioJSON(ctx, t)["dependency"].(map[string]any); d["load_latency"] != nil {
		t.Errorf("clearing the law leaves %v", d["load_latency"])
	}
	do(t, ctx, click(`[data-action=load-remove][data-index="0"]`), edits())
	if w := scenarioJSON(ctx, t)["workload"].(map[string]any); w["load"] != nil {
		t.Errorf("after removing the load change: %v", w["load"])
	}
}

// TestFormEditsFleets (#32): the form adds a fleet beside the workload's
// own clients, with its own policy; the run's table has a group for each
// fleet, the strategies' own first; removing the fleet removes the name
// of the workload's own too.
func TestFormEditsFleets(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	do(t, ctx, click(`[data-action=fleet-add]`), ran(2),
		setField("workload.fleet", "mine"), ran(3), setField("workload.fleets[0].max_attempts", "2"), ran(4))
	w := scenarioJSON(ctx, t)["workload"].(map[string]any)
	if got, _ := json.Marshal([]any{w["fleet"], w["fleets"]}); string(got) != `["mine",[{"attempt_timeout":"1s","clients":100,"max_attempts":2,"name":"fleet-1","rate":48}]]` {
		t.Errorf("after adding a fleet: %s", got)
	}
	groups := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] th, [data-testid=results] caption, [data-testid=results] td")].map(e => e.textContent).join("|")`)
	if !strings.Contains(groups, "Fleet mine (the strategies' own)") || !strings.Contains(groups, "Fleet fleet-1") {
		t.Errorf("the table's groups: %.600s", groups)
	}
	if errs := text(ctx, t, `[...document.querySelectorAll(".field-error")].map(e => e.textContent).join("")`); errs != "" {
		t.Errorf("field errors: %s", errs)
	}
	do(t, ctx, click(`[data-action=fleet-remove][data-index="0"]`), edits())
	if w := scenarioJSON(ctx, t)["workload"].(map[string]any); w["fleets"] != nil || w["fleet"] != nil {
		t.Errorf("after removing the fleet: %v %v", w["fleet"], w["fleets"])
	}
}

// TestFormEditsRequirements (#29): thresholds are edited in the form too,
// not in the JSON only.
// The form adds a requirement (95% of the incident's operations served),
// shows a rate as a percentage and writes it as a fraction, keeps the
// bound the form shows when the metric changes, runs, and says under the
// table on how many seeds each strategy meets it; an impossible bound
// gets the engine's error beside its field.
func TestFormEditsRequirements(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	do(t, ctx, click(`[data-action=requirement-add]`), ran(2))
	th := func() string {
		r, _ := scenarioJSON(ctx, t)["report"].(map[string]any)
		got, _ := json.Marshal(r["thresholds"])
		return string(got)
	}
	if got := th(); got != `[{"metric":"affected_success_rate","op":"\u003e=","value":0.95}]` {
		t.Errorf("after adding a requirement: %s", got)
	}
	if v := text(ctx, t, `document.querySelector('[data-path="report.thresholds[0].value"]').value`); v != "95" {
		t.Errorf("the bound shows %q; want 95 (percent)", v)
	}
	if s := text(ctx, t, `document.querySelector("[data-testid=thresholds]").textContent`); !strings.Contains(s, "affected") {
		t.Errorf("under the table: %q; want each strategy's seeds meeting the requirement", s)
	}
	do(t, ctx, setField("report.thresholds[0].value", "99.5"), ran(3))
	if got := th(); got != `[{"metric":"affected_success_rate","op":"\u003e=","value":0.995}]` {
		t.Errorf("a bound of 99.5%%: %s", got)
	}
	do(t, ctx, setField("report.thresholds[0].metric", "peak_per_100ms"), setField("report.thresholds[0].op", "<="), ran(4))
	if got := th(); got != `[{"metric":"peak_per_100ms","op":"\u003c=","value":99.5}]` {
		t.Errorf("the metric changed: %s; want the bound the form showed", got)
	}
	do(t, ctx, setField("report.thresholds[0].value", "-3"),
		until(`document.getElementById("f-report-thresholds-0--value-error").textContent !== ""`))
	if e := text(ctx, t, `document.getElementById("f-report-thresholds-0--value-error").textContent`); !strings.Contains(e, "at least 0") {
		t.Errorf("a negative peak: the field says %q", e)
	}
	do(t, ctx, click(`[data-action=requirement-remove][data-index="0"]`), edits())
	if r := scenarioJSON(ctx, t)["report"]; r != nil {
		if m, _ := r.(map[string]any); m["thresholds"] != nil {
			t.Errorf("after removing the requirement: %v", r)
		}
	}
}
