package view

import (
	"encoding/json"
	"strings"
	"testing"
)

// one is a scenario with the one dependency, a phase and two strategies.
const one = `{"name":"N","version":1,"dependency":{"workers":4,"phases":[{"kind":"outage","from":"1m30s","to":"1m35s","status":503}]},"workload":{"rate":96},"strategies":[{"name":"a","max_attempts":2},{"name":"b"}],"report":{"yours":["a"]}}`

// two is a scenario with two dependencies, a plan, a bulkhead and a fallback.
const two = `{"version":1,"dependencies":[{"name":"x"},{"name":"y"}],"workload":{"plan":[{"calls":[{"dependency":"x"},{"dependency":"y"}]}]},"strategies":[{"name":"a","bulkheads":[{"dependency":"y","max_concurrent":1}],"fallbacks":[{"call":"y"}]}]}`

// TestEdit runs every action of EditActions, each at least once, on the
// scenario it changes, and checks the scenario it gives (keys in their
// order).
func TestEdit(t *testing.T) {
	cases := []struct {
		name, in, edit, want string
	}{
		{"add", one, `{"action":"add"}`, `"strategies":[{"name":"a","max_attempts":2},{"name":"b"},{"name":"s3","max_attempts":3,"attempt_timeout":"2s","backoff":{"kind":"exponential","base":"100ms"},"jitter":{"kind":"full"}}]`},
		{"add: a free name", `{"strategies":[{"name":"s2"}]}`, `{"action":"add"}`, `{"strategies":[{"name":"s2"},{"name":"s3",`},
		{"duplicate", one, `{"action":"duplicate","index":0}`, `"strategies":[{"name":"a","max_attempts":2},{"name":"a-copy","max_attempts":2},{"name":"b"}]`},
		{"remove", one, `{"action":"remove","index":0}`, `"strategies":[{"name":"b"}],"report":{}}`},
		{"layer-add", one, `{"action":"layer-add","index":1}`, `{"name":"b","layers":[{"max_attempts":3}]}`},
		{"layer-remove", `{"strategies":[{"layers":[{"a":1},{"b":2}]}]}`, `{"action":"layer-remove","index":0,"item":1}`, `{"strategies":[{"layers":[{"a":1}]}]}`},
		{"layer-remove: the last", `{"strategies":[{"layers":[{"a":1}]}]}`, `{"action":"layer-remove","index":0}`, `{"strategies":[{}]}`},
		{"phase-add: after the last", one, `{"action":"phase-add","dep":"dependency"}`, `{"kind":"outage","from":"1m35s","to":"1m40s","status":503}]`},
		{"phase-add: the first", `{"dependency":{}}`, `{"action":"phase-add","dep":"dependency"}`, `{"dependency":{"phases":[{"kind":"outage","from":"5s","to":"10s","status":503}]}}`},
		{"phase-add: milliseconds", `{"dependency":{"phases":[{"to":"250ms"}]}}`, `{"action":"phase-add","dep":"dependency"}`, `{"kind":"outage","from":"250ms","to":"5.25s","status":503}`},
		{"phase-remove", one, `{"action":"phase-remove","dep":"dependency","index":0}`, `"dependency":{"workers":4}`},
		{"load-add", `{"workload":{}}`, `{"action":"load-add"}`, `{"workload":{"load":[{"kind":"step","from":"10s","to":"20s","factor":2}]}}`},
		{"load-add: after the last", `{"workload":{"load":[{"to":"1m"}]}}`, `{"action":"load-add"}`, `{"kind":"step","from":"1m","to":"1m10s","factor":2}`},
		{"load-remove", `{"workload":{"load":[{"kind":"step"}]}}`, `{"action":"load-remove"}`, `{"workload":{}}`},
		{"fleet-add", one, `{"action":"fleet-add"}`, `"workload":{"rate":96,"fleets":[{"name":"fleet-1","clients":100,"rate":48,"max_attempts":5,"attempt_timeout":"1s"}]}`},
		{"fleet-add: a free name", `{"workload":{"fleets":[{"name":"fleet-2"}]}}`, `{"action":"fleet-add"}`, `{"name":"fleet-3","clients":100,"rate":5,`},
		{"fleet-remove", `{"workload":{"fleet":"mine","fleets":[{"name":"f"}]}}`, `{"action":"fleet-remove"}`, `{"workload":{}}`},
		{"dep-add: the one becomes a list", one, `{"action":"dep-add"}`, `{"name":"N","version":1,"dependencies":[{"name":"dependency","workers":4,"phases":[{"kind":"outage","from":"1m30s","to":"1m35s","status":503}]},{"name":"dependency-2","workers":10,"service_time":{"kind":"constant","mean":"20ms"},"queue_capacity":100}],"workload":{"rate":96,"plan":[{"calls":[{"dependency":"dependency"},{"dependency":"dependency-2"}]}]}`},
		{"dep-add: a free name", `{"dependencies":[{"name":"dependency-2"}],"workload":{"plan":[{"calls":[]}]}}`, `{"action":"dep-add"}`, `"workload":{"plan":[{"calls":[{"dependency":"dependency-3"}]}]}}`},
		{"dep-remove: its calls and bulkheads", two, `{"action":"dep-remove","dep":"dependencies[1]"}`, `{"version":1,"dependencies":[{"name":"x"}],"workload":{"plan":[{"calls":[{"dependency":"x"}]}]},"strategies":[{"name":"a","fallbacks":[{"call":"y"}]}]}`},
		{"step-add", two, `{"action":"step-add"}`, `"plan":[{"calls":[{"dependency":"x"},{"dependency":"y"}]},{"calls":[{"dependency":"x"}]}]`},
		{"call-add", two, `{"action":"call-add","step":0}`, `"plan":[{"calls":[{"dependency":"x"},{"dependency":"y"},{"dependency":"x"}]}]`},
		{"call-remove", two, `{"action":"call-remove","step":0,"item":1}`, `"plan":[{"calls":[{"dependency":"x"}]}]`},
		{"call-remove: the step's last", `{"workload":{"plan":[{"calls":[{"dependency":"x"}]},{"calls":[{}]}]}}`, `{"action":"call-remove","step":0}`, `{"workload":{"plan":[{"calls":[{}]}]}}`},
		{"bulkhead-add", two, `{"action":"bulkhead-add","index":0}`, `"bulkheads":[{"dependency":"y","max_concurrent":1},{"dependency":"x","max_concurrent":10}]`},
		{"bulkhead-add: no dependency named yet", `{"dependencies":[{"workers":1},{"workers":2}],"strategies":[{"name":"a"}]}`, `{"action":"bulkhead-add","index":0}`, `"strategies":[{"name":"a","bulkheads":[{"dependency":"","max_concurrent":10}]}]`},
		{"step-add: no dependency named yet", `{"dependencies":[{"name":""},{}],"workload":{}}`, `{"action":"step-add"}`, `"workload":{"plan":[{"calls":[{"dependency":""}]}]}`},
		{"bulkhead-remove", two, `{"action":"bulkhead-remove","index":0}`, `"strategies":[{"name":"a","fallbacks"`},
		{"fallback-add", two, `{"action":"fallback-add","index":0}`, `"fallbacks":[{"call":"y"},{"call":"x"}]`},
		{"fallback-remove", two, `{"action":"fallback-remove","index":0}`, `"max_concurrent":1}]}]}`},
		{"requirement-add", `{}`, `{"action":"requirement-add"}`, `{"report":{"thresholds":[{"metric":"affected_success_rate","op":"\u003e=","value":0.95}]}}`},
		{"requirement-remove: the report with it", `{"a":1,"report":{"thresholds":[{"metric":"m"}]}}`, `{"action":"requirement-remove"}`, `{"a":1}`},
		{"requirement-remove: one of two", `{"report":{"thresholds":[{"metric":"m"},{"metric":"n"}]}}`, `{"action":"requirement-remove","index":1}`, `{"report":{"thresholds":[{"metric":"m"}]}}`},
		{"search-remove", `{"a":1,"search":{"strategy":"a"}}`, `{"action":"search-remove"}`, `{"a":1}`},
		{"window-follow", `{"a":1,"report":{"affected_from":"1s","affected_to":"2s"}}`, `{"action":"window-follow"}`, `{"a":1}`},
		{"window-follow: the report's other fields stay", `{"report":{"affected_from":"1s","affected_to":"2s","yours":["a"]}}`, `{"action":"window-follow"}`, `{"report":{"yours":["a"]}}`},
		{"set: a number", one, `{"action":"set","path":"strategies[1].max_attempts","value":4}`, `{"name":"b","max_attempts":4}`},
		{"set: makes the objects on the way", `{}`, `{"action":"set","path":"dependency.service_time.mean","value":"1s"}`, `{"dependency":{"service_time":{"mean":"1s"}}}`},
		{"set: clearing leaves no empty object", `{"dependency":{"workers":1,"shedding":{"thresholds":{"sheddable":1}}}}`, `{"action":"set","path":"dependency.shedding.thresholds.sheddable"}`, `{"dependency":{"workers":1}}`},
		{"set: a renamed dependency keeps its calls and bulkheads", two, `{"action":"set","path":"dependencies[1].name","value":"pay"}`, `{"version":1,"dependencies":[{"name":"x"},{"name":"pay"}],"workload":{"plan":[{"calls":[{"dependency":"x"},{"dependency":"pay"}]}]},"strategies":[{"name":"a","bulkheads":[{"dependency":"pay","max_concurrent":1}],"fallbacks":[{"call":"y"}]}]}`},
		{"set: a renamed strategy stays yours", one, `{"action":"set","path":"strategies[0].name","value":"mine"}`, `"report":{"yours":["mine"]}`},
		{"set: an unnamed strategy is yours no more", one, `{"action":"set","path":"strategies[0].name"}`, `"report":{}}`},
		{"set: a checkbox", `{"dependency":{"cache":{"capacity":1}}}`, `{"action":"set","path":"dependency.cache.warm","value":true}`, `{"dependency":{"cache":{"capacity":1,"warm":true}}}`},
		{"set: numbers typed", `{"dependency":{"phases":[{"kind":"outage"}]}}`, `{"action":"set","path":"dependency.phases[0].backends","value":"0, 2 3"}`, `{"dependency":{"phases":[{"kind":"outage","backends":[0,2,3]}]}}`},
		{"set: numbers mistyped stay as typed", `{"dependency":{"phases":[{"kind":"outage"}]}}`, `{"action":"set","path":"dependency.phases[0].backends","value":"0, two"}`, `{"dependency":{"phases":[{"kind":"outage","backends":"0, two"}]}}`},
		{"set: no numbers", `{"dependency":{"phases":[{"kind":"outage","backends":[1]}]}}`, `{"action":"set","path":"dependency.phases[0].backends","value":" , "}`, `{"dependency":{"phases":[{"kind":"outage"}]}}`},
		{"set: another queue discipline drops codel", `{"dependency":{"queue_discipline":"codel","codel":{"target":"1ms"},"workers":1}}`, `{"action":"set","path":"dependency.queue_discipline","value":"lifo"}`, `{"dependency":{"queue_discipline":"lifo","workers":1}}`},
		{"set: adaptive-lifo keeps codel", `{"dependencies":[{"queue_discipline":"codel","codel":{"target":"1ms"}}]}`, `{"action":"set","path":"dependencies[0].queue_discipline","value":"adaptive-lifo"}`, `{"dependencies":[{"queue_discipline":"adaptive-lifo","codel":{"target":"1ms"}}]}`},
		{"set: another kind keeps its own fields", `{"dependency":{"service_time":{"kind":"constant","mean":"1s"}}}`, `{"action":"set","path":"dependency.service_time.kind","value":"lognormal"}`, `{"dependency":{"service_time":{"kind":"lognormal"}}}`},
		{"set: a law keeps of and max_factor", `{"dependency":{"load_latency":{"law":"usl","of":"in_service","sigma":1,"max_factor":3}}}`, `{"action":"set","path":"dependency.load_latency.law","value":"linear"}`, `{"dependency":{"load_latency":{"law":"linear","of":"in_service","max_factor":3}}}`},
		{"set: clearing the law removes the block", `{"dependency":{"load_latency":{"law":"usl","sigma":1}}}`, `{"action":"set","path":"dependency.load_latency.law"}`, `{"dependency":{}}`},
		{"set: a phase of another kind", one, `{"action":"set","path":"dependency.phases[0].kind","value":"capacity"}`, `"phases":[{"kind":"capacity","from":"1m30s","to":"1m35s"}]`},
		{"set: a load change of another kind", `{"workload":{"load":[{"kind":"step","from":"1s","to":"2s","label":"l","factor":2}]}}`, `{"action":"set","path":"workload.load[0].kind","value":"spike"}`, `{"workload":{"load":[{"kind":"spike","from":"1s","to":"2s","label":"l"}]}}`},
		{"set: a jitter of another kind", `{"strategies":[{"jitter":{"kind":"proportional","fraction":0.5}}]}`, `{"action":"set","path":"strategies[0].jitter.kind","value":"full"}`, `{"strategies":[{"jitter":{"kind":"full"}}]}`},
		{"set: a network leg of another kind", `{"dependency":{"network":{"answer":{"kind":"normal","mean":"1ms","stddev":"1ms"}}}}`, `{"action":"set","path":"dependency.network.answer.kind","value":"constant"}`, `{"dependency":{"network":{"answer":{"kind":"constant","mean":"1ms"}}}}`},
		{"set: typing From pins the window", `{}`, `{"action":"set","path":"report.affected_from","value":"5s","window":{"from":"8.5s","to":"20s"}}`, `{"report":{"affected_from":"5s","affected_to":"20s"}}`},
		{"set: typing To keeps a pinned From", `{"report":{"affected_from":"1s"}}`, `{"action":"set","path":"report.affected_to","value":"5s","window":{"from":"8.5s","to":"20s"}}`, `{"report":{"affected_from":"1s","affected_to":"5s"}}`},
		{"an edited built-in is renamed", one, `{"action":"set","path":"workload.rate","value":1,"builtin":"Title"}`, `{"name":"N (edited)",`},
		{"own: an edited built-in without a name takes its title", `{}`, `{"action":"own","builtin":"Title"}`, `{"name":"Title (edited)"}`},
		{"an edited built-in is renamed by any edit", `{}`, `{"action":"add","builtin":"Title"}`, `"name":"Title (edited)"}`},
	}
	done := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Edit([]byte(c.in), []byte(c.edit))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("%s on %s:\n%s\nwant within it\n%s", c.edit, c.in, out, c.want)
			}
			var e FormEdit
			json.Unmarshal([]byte(c.edit), &e)
			done[e.Action] = true
		})
	}
	for a := range EditActions {
		if !done[a] {
			t.Errorf("no case edits with %q", a)
		}
	}
}

// TestEditRefuses: bad edits get an error naming what is wrong, and what
// is allowed where there is a list.
func TestEditRefuses(t *testing.T) {
	for _, c := range []struct{ in, edit, want string }{
		{one, `{"action":"nope"}`, `no action "nope"; the actions are add, bulkhead-add,`},
		{one, `{"action":"remove","index":5}`, "strategies[5] does not exist: there are 2"},
		{one, `{"action":"layer-remove","index":0,"item":0}`, "strategies[0].layers[0] does not exist: there are 0"},
		{one, `{"action":"phase-remove","dep":"dependencies[3]"}`, "dependencies[3] is not an object of the scenario"},
		{`{"dependency":{"phases":[{"to":"soon"}]}}`, `{"action":"phase-add","dep":"dependency"}`, `the last phase's to: "soon" is not a duration such as "250ms"`},
		{`[1]`, `{"action":"add"}`, "the scenario is not a JSON object"},
		{`{`, `{"action":"add"}`, "the scenario does not parse"},
		{one, `{"action":"set","path":"strategies[9].name","value":"x"}`, "strategies[9].name: element 9 does not exist"},
		{`{"report":{"thresholds":[{},{},{},{},{},{},{},{}]}}`, `{"action":"requirement-add"}`, "report.thresholds has 8 requirements, the most"},
		{`{"report":{"thresholds":[{}]}}`, `{"action":"requirement-remove","index":1}`, "report.thresholds[1] does not exist: there are 1"},
	} {
		_, err := Edit([]byte(c.in), []byte(c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: error %v; want %q", c.edit, c.in, err, c.want)
		}
	}
}

// TestEditKeepsWhatItDoesNotChange: numbers and keys stay as written.
func TestEditKeepsWhatItDoesNotChange(t *testing.T) {
	in := `{"z":1.50,"a":{"y":1e3,"b":[true,null,"s"]},"strategies":[]}`
	out, err := Edit([]byte(in), []byte(`{"action":"search-remove"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("got %s; want %s", out, in)
	}
}
