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
	do(t, ctx, click(`[data-action=load-remove][data-index="0"]`))
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
	do(t, ctx, click(`[data-action=fleet-remove][data-index="0"]`))
	if w := scenarioJSON(ctx, t)["workload"].(map[string]any); w["fleets"] != nil || w["fleet"] != nil {
		t.Errorf("after removing the fleet: %v %v", w["fleet"], w["fleets"])
	}
}
