package view_test

import (
	"fmt"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/view"
)

func ExampleDescribe() {
	sc, err := engine.Parse([]byte(`{"version": 1,
		"workload": {"clients": 100, "rate": 50, "duration": "60s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "20ms"},
			"phases": [{"kind": "outage", "from": "10s", "to": "20s"}]},
		"strategies": [{"name": "three tries", "max_attempts": 3,
			"backoff": {"kind": "exponential", "base": "100ms", "max": "2s"}, "jitter": {"kind": "full"}}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d := view.Describe(sc)
	fmt.Println(strings.Join(d.Workload, ", "))
	fmt.Println(strings.Join(d.Timeline, "; "))
	fmt.Println(d.Strategies[0].Name + ": " + strings.Join(d.Strategies[0].Policy, "; "))
	// Output:
	// 100 clients send operations at random (Poisson), 50 per second in total, for 60 s
	// 10 s–20 s: answers everything with 503
	// three tries: at most 3 attempts; waits exponentially from 100 ms, ×2 each time, at most 2 s; full jitter
}
