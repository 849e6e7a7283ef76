package convert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestEnvoyConnectionLimits: a cluster's thresholds become the route's
// connection limits, the fields not set at Envoy's default 1024; HTTP/2
// keeps max_requests only; none set, none simulated. A max_connections or
// max_requests of 0, which lets nothing through, is warned about and read
// as no limit; a max_pending_requests of 0 is a limit like another.
func TestEnvoyConnectionLimits(t *testing.T) {
	const route = "name: r\nvirtual_hosts:\n- name: v\n  domains: [\"*\"]\n  routes:\n  - match: {prefix: /}\n    route:\n      cluster: cart\n      retry_policy: {retry_on: 5xx, num_retries: 2}\n---\nname: cart\nconnect_timeout: 1s\n"
	for _, tc := range []struct {
		cluster string
		want    *engine.ConnectionLimits
		warned  string // the threshold field warned about, "" for none
	}{
		{"circuit_breakers:\n  thresholds:\n  - max_connections: 10\n", &engine.ConnectionLimits{MaxConnections: 10, MaxPending: 1024, MaxRequests: 1024}, ""},
		{"circuit_breakers:\n  thresholds:\n  - max_requests: 7\n    max_pending_requests: 0\n", &engine.ConnectionLimits{MaxConnections: 1024, MaxRequests: 7}, ""},
		{"circuit_breakers:\n  thresholds:\n  - max_connections: 0\n    max_requests: 7\n", &engine.ConnectionLimits{MaxRequests: 7}, "max_connections"},
		{"circuit_breakers:\n  thresholds:\n  - max_connections: 3\n    max_requests: 0\n", &engine.ConnectionLimits{MaxConnections: 3, MaxPending: 1024}, "max_requests"},
		{"typed_extension_protocol_options:\n  envoy.extensions.upstreams.http.v3.HttpProtocolOptions:\n    explicit_http_config:\n      http2_protocol_options: {}\ncircuit_breakers:\n  thresholds:\n  - max_connections: 1\n    max_requests: 50\n", &engine.ConnectionLimits{MaxRequests: 50}, ""},
		{"circuit_breakers:\n  thresholds:\n  - max_retries: 5\n", nil, ""},
		{"circuit_breakers:\n  thresholds:\n  - max_connections: 4294967295\n    max_requests: 4294967295\n    max_pending_requests: 4294967295\n", nil, ""},
	} {
		im, err := Import(Envoy, []byte(route+tc.cluster))
		if err != nil {
			t.Fatalf("%s: %v", tc.cluster, err)
		}
		if got := im.Strategies[0].ConnectionLimits; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: connection limits %+v, want %+v", tc.cluster, got, tc.want)
		}
		warned := ""
		for _, n := range im.Notes {
			if _, f, ok := strings.Cut(n.Path, "thresholds[0]."); ok && n.Level == Warning {
				warned += f
			}
		}
		if warned != tc.warned {
			t.Errorf("%s: warned about %q, want %q: %v", tc.cluster, warned, tc.warned, im.Notes)
		}
	}
}

// TestConnectionLimitsExport: what each proxy format writes, and reads
// back the same.
func TestConnectionLimitsExport(t *testing.T) {
	for _, cl := range []engine.ConnectionLimits{
		{MaxConnections: 100, MaxPending: 10, MaxRequests: 200},
		{MaxRequests: 5},
		{MaxConnections: 3, MaxPending: engine.MaxConnectionLimit},
	} {
		st := engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: 2, ConnectionLimits: &cl}}
		for _, format := range []string{Envoy, Istio} {
			out, notes, err := Export(format, st)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range notes {
				if n.Level == Warning && strings.HasPrefix(n.Path, "connection_limits") {
					t.Errorf("%s %+v: %s", format, cl, n)
				}
			}
			if format == Istio && cl.MaxPending == engine.MaxConnectionLimit && strings.Contains(string(out), "http1MaxPendingRequests") {
				t.Errorf("max_pending %d, the engine's limit, is written, not left to Istio's default:\n%s", cl.MaxPending, out)
			}
			im, err := Import(format, out)
			if err != nil {
				t.Fatalf("%s %+v: %v\n%s", format, cl, err, out)
			}
			if got := im.Strategies[0].ConnectionLimits; got == nil || *got != cl {
				t.Errorf("%s: %+v exported and read back as %+v:\n%s", format, cl, got, out)
			}
		}
	}
	// Envoy's max_pending_requests is written only under a max_connections,
	// 0 included (its default is 1024).
	for _, tc := range []struct {
		cl      engine.ConnectionLimits
		pending string // the line, "" for none
	}{
		{engine.ConnectionLimits{MaxRequests: 5}, ""},
		{engine.ConnectionLimits{MaxConnections: 3}, "max_pending_requests: 0\n"},
		{engine.ConnectionLimits{MaxConnections: 3, MaxPending: 2}, "max_pending_requests: 2\n"},
	} {
		out, _, err := Export(Envoy, engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: 2, ConnectionLimits: &tc.cl}})
		if err != nil {
			t.Fatal(err)
		}
		if y := string(out); tc.pending == "" && strings.Contains(y, "max_pending_requests") || !strings.Contains(y, tc.pending) {
			t.Errorf("%+v: want %q (none if empty) in\n%s", tc.cl, tc.pending, y)
		}
	}
	// Istio cannot say that none waits: 1 is the fewest, with a warning.
	st := engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: 2, ConnectionLimits: &engine.ConnectionLimits{MaxConnections: 3}}}
	out, notes, _ := Export(Istio, st)
	warned := false
	for _, n := range notes {
		warned = warned || n.Level == Warning && strings.Contains(n.Message, "written as 1")
	}
	if !strings.Contains(string(out), "http1MaxPendingRequests: 1\n") || !warned {
		t.Errorf("max_pending 0 to Istio:\n%s\n%v", out, notes)
	}
}
