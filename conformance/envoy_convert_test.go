package conformance

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	adminv3 "github.com/envoyproxy/go-control-plane/envoy/admin/v3"
	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// envoyParse reads one YAML (or JSON) document into msg as Envoy's
// config loader does (YAML to JSON, then protojson refusing unknown
// fields), and runs go-control-plane's protoc-gen-validate rules on it
// and on every typed_config (google.protobuf.Any) inside it.
func envoyParse(doc []byte, msg proto.Message) error {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return err
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(js, msg); err != nil {
		return err
	}
	return envoyValidate(msg)
}

// envoyValidate runs ValidateAll on m and on the messages of its Any
// fields, recursively.
func envoyValidate(m proto.Message) error {
	if v, ok := m.(interface{ ValidateAll() error }); ok {
		if err := v.ValidateAll(); err != nil {
			return err
		}
	}
	var err error
	var walk func(protoreflect.Message)
	walk = func(pm protoreflect.Message) {
		pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind || fd.IsMap() {
				return true
			}
			visit := func(x protoreflect.Message) {
				if a, ok := x.Interface().(*anypb.Any); ok {
					inner, e := a.UnmarshalNew()
					if e == nil {
						e = envoyValidate(inner)
					}
					if e != nil && err == nil {
						err = e
					}
					return
				}
				walk(x)
			}
			if fd.IsList() {
				for i := 0; i < v.List().Len(); i++ {
					visit(v.List().Get(i).Message())
				}
			} else {
				visit(v.Message())
			}
			return err == nil
		})
	}
	walk(m.ProtoReflect())
	return err
}

// envoyRoute returns the route and cluster of an exported bootstrap.
func envoyExported(t *testing.T, out []byte) (*routev3.Route, *clusterv3.Cluster) {
	t.Helper()
	var b bootstrapv3.Bootstrap
	if err := envoyParse(out, &b); err != nil {
		t.Fatalf("go-control-plane refuses the export: %v\n%s", err, out)
	}
	sr := b.GetStaticResources()
	if len(sr.GetListeners()) != 1 || len(sr.GetClusters()) != 1 {
		t.Fatalf("the export has %d listeners and %d clusters, not 1 and 1", len(sr.GetListeners()), len(sr.GetClusters()))
	}
	var hcm hcmv3.HttpConnectionManager
	if err := sr.GetListeners()[0].GetFilterChains()[0].GetFilters()[0].GetTypedConfig().UnmarshalTo(&hcm); err != nil {
		t.Fatal(err)
	}
	routes := hcm.GetRouteConfig().GetVirtualHosts()[0].GetRoutes()
	if len(routes) != 1 {
		t.Fatalf("%d routes", len(routes))
	}
	c := sr.GetClusters()[0]
	if routes[0].GetRoute().GetCluster() != c.GetName() {
		t.Errorf("the route goes to %q, the cluster is %q", routes[0].GetRoute().GetCluster(), c.GetName())
	}
	return routes[0], c
}

// envoyRetries returns what Envoy's router retries under retry_on and
// retriable_status_codes, as conformance/envoy_test.go encodes
// wouldRetryFromHeaders and wouldRetryFromReset: statuses, per-try
// timeouts, connection failures.
func envoyRetries(retryOn string, codes []uint32) (statuses []int, timeout, connection bool) {
	set := map[int]bool{}
	for _, c := range strings.Split(retryOn, ",") {
		switch strings.TrimSpace(c) {
		case "5xx":
			for s := 500; s <= 599; s++ {
				set[s] = true
			}
			timeout, connection = true, true
		case "gateway-error":
			set[502], set[503], set[504] = true, true, true
			timeout, connection = true, true
		case "reset":
			timeout, connection = true, true
		case "connect-failure":
			connection = true
		case "retriable-4xx":
			set[409] = true
		case "retriable-status-codes":
			for _, s := range codes {
				set[int(s)] = true
			}
		}
	}
	for s := range set {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	return statuses, timeout, connection
}

// engineRetries expands a policy's retry_on as the engine reads it (nil:
// 408, 429, 502, 503, 504, timeouts and connection errors); the Envoy,
// Istio and Linkerd checks compare the exports with it.
func engineRetries(ro *engine.RetryOn) (statuses []int, timeout, connection bool) {
	if ro == nil {
		return []int{408, 429, 502, 503, 504}, true, true
	}
	set := map[int]bool{}
	for _, s := range ro.Statuses {
		set[s] = true
	}
	for _, r := range ro.StatusRanges {
		var lo, hi int
		if m := regexp.MustCompile(`^(\d+)-(\d+)$`).FindStringSubmatch(r); m != nil {
			lo, hi = atoi(m[1]), atoi(m[2])
		}
		for s := lo; s <= hi && s > 0; s++ {
			set[s] = true
		}
	}
	for _, s := range ro.Except {
		delete(set, s)
	}
	for s := range set {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	return statuses, ro.Timeout, ro.Connection
}

func atoi(s string) int {
	k := 0
	for _, c := range s {
		k = k*10 + int(c-'0')
	}
	return k
}

// TestConvertEnvoyExportParses: every export (every preset, every
// imported sample, random strategies) is a bootstrap go-control-plane
// reads without unknown fields and whose validation rules pass; the
// values it reads are the strategy's (where the export did not warn
// about them) and those convert.Import reads back.
func TestConvertEnvoyExportParses(t *testing.T) {
	sts := convertStrategies(t)
	r := rand.New(rand.NewPCG(17, 5))
	for i := range 300 {
		sts = append(sts, randomStrategy(r, i))
	}
	for _, st := range sts {
		out, notes, err := convert.Export(convert.Envoy, st)
		if err != nil {
			t.Fatal(err)
		}
		warned := map[string]bool{}
		for _, n := range notes {
			if n.Level == convert.Warning {
				f, _, _ := strings.Cut(n.Path, ".")
				warned[f] = true
			}
		}
		route, cluster := envoyExported(t, out)
		im, err := convert.Import(convert.Envoy, out)
		if err != nil {
			t.Fatalf("%s: the export does not import: %v", st.Name, err)
		}
		back := im.Strategies[0]
		rp := route.GetRoute().GetRetryPolicy()
		if rp == nil {
			t.Fatalf("%s: no retry_policy", st.Name)
		}
		// num_retries
		nr := int(rp.GetNumRetries().GetValue())
		if nr+1 != back.MaxAttempts || !warned["max_attempts"] && nr+1 != st.MaxAttempts {
			t.Errorf("%s: num_retries %d; max_attempts %d, re-imported %d", st.Name, nr, st.MaxAttempts, back.MaxAttempts)
		}
		// route timeout and per_try_timeout
		to := route.GetRoute().GetTimeout().AsDuration()
		if engine.Duration(to) != back.Deadline || engine.Duration(to) != st.Deadline {
			t.Errorf("%s: timeout %v; deadline %v, re-imported %v", st.Name, to, st.Deadline, back.Deadline)
		}
		var ptt time.Duration
		if rp.GetPerTryTimeout() != nil {
			ptt = rp.GetPerTryTimeout().AsDuration()
		}
		if engine.Duration(ptt) != back.AttemptTimeout || engine.Duration(ptt) != st.AttemptTimeout {
			t.Errorf("%s: per_try_timeout %v; attempt_timeout %v, re-imported %v", st.Name, ptt, st.AttemptTimeout, back.AttemptTimeout)
		}
		// retry_back_off
		base, maxI := rp.GetRetryBackOff().GetBaseInterval().AsDuration(), rp.GetRetryBackOff().GetMaxInterval().AsDuration()
		if engine.Duration(base) != back.Backoff.Base || engine.Duration(maxI) != back.Backoff.Max || back.Backoff.Multiplier != 2 {
			t.Errorf("%s: retry_back_off %v..%v re-imported as %+v", st.Name, base, maxI, back.Backoff)
		}
		if !warned["backoff"] && st.Backoff.Kind == engine.BackoffExponential && (engine.Duration(base) != st.Backoff.Base || st.Backoff.Max != 0 && engine.Duration(maxI) != st.Backoff.Max) {
			t.Errorf("%s: retry_back_off %v..%v; the strategy's backoff %+v", st.Name, base, maxI, st.Backoff)
		}
		// retry_on
		es, et, ec := envoyRetries(rp.GetRetryOn(), rp.GetRetriableStatusCodes())
		bs, bt, bc := engineRetries(back.RetryOn)
		if !slices.Equal(es, bs) || et != bt || ec != bc {
			t.Errorf("%s: Envoy retries %v (timeouts %v, connection %v) under %q %v; re-imported %v %v %v", st.Name, es, et, ec, rp.GetRetryOn(), rp.GetRetriableStatusCodes(), bs, bt, bc)
		}
		if ss, st2, sc := engineRetries(st.RetryOn); !warned["retry_on"] && (!slices.Equal(es, ss) || et != st2 || ec != sc) {
			t.Errorf("%s: Envoy retries %v (timeouts %v, connection %v) under %q; the strategy %v %v %v", st.Name, es, et, ec, rp.GetRetryOn(), ss, st2, sc)
		}
		// Retry-After
		rl := rp.GetRateLimitedRetryBackOff()
		if (rl != nil) != st.HonorRetryAfter || (rl != nil) != back.HonorRetryAfter {
			t.Errorf("%s: rate_limited_retry_back_off %v; honor_retry_after %v, re-imported %v", st.Name, rl, st.HonorRetryAfter, back.HonorRetryAfter)
		}
		if rl != nil && (rl.GetResetHeaders()[0].GetName() != "Retry-After" || rl.GetResetHeaders()[0].GetFormat().String() != "SECONDS") {
			t.Errorf("%s: reset header %v", st.Name, rl.GetResetHeaders()[0])
		}
		// circuit_breakers
		th := cluster.GetCircuitBreakers().GetThresholds()
		if len(th) != 1 || th[0].GetPriority().String() != "DEFAULT" {
			t.Fatalf("%s: thresholds %v", st.Name, th)
		}
		var want *engine.Budget
		if rb := th[0].GetRetryBudget(); rb != nil {
			want = &engine.Budget{Kind: engine.BudgetConcurrency, ShareOf: engine.ShareAttempts,
				Ratio: rb.GetBudgetPercent().GetValue() / 100, MinConcurrency: int(rb.GetMinRetryConcurrency().GetValue())}
		} else if mr := th[0].GetMaxRetries().GetValue(); mr < 1_000_000 {
			want = &engine.Budget{Kind: engine.BudgetConcurrency, ShareOf: engine.ShareAttempts, MinConcurrency: int(mr)}
		} else if mr != 4294967295 {
			t.Errorf("%s: max_retries %d", st.Name, mr)
		}
		if !sameBudget(want, back.Budget) {
			t.Errorf("%s: thresholds %v re-imported as budget %+v", st.Name, th, back.Budget)
		}
		if !warned["budget"] && !sameBudget(want, envoyBudgetOf(st.Budget)) {
			t.Errorf("%s: thresholds %v; the strategy's budget %+v", st.Name, th, st.Budget)
		}
	}
}

// envoyBudgetOf returns b as Envoy reads the share it exports.
func envoyBudgetOf(b *engine.Budget) *engine.Budget {
	if b == nil {
		return nil
	}
	c := *b
	c.ShareOf = engine.ShareAttempts
	return &c
}

func sameBudget(a, b *engine.Budget) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := a.Ratio - b.Ratio
	return a.Kind == b.Kind && a.ShareOf == b.ShareOf && a.MinConcurrency == b.MinConcurrency && d < 1e-9 && d > -1e-9
}

// envoyDocuments splits a YAML stream into its documents.
func envoyDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(d, "")) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// envoyItems splits the documents that are a top-level list of resources
// (as Envoy Gateway prints them) into a document per resource.
func envoyItems(t *testing.T, docs [][]byte) [][]byte {
	var out [][]byte
	for _, doc := range docs {
		var list []any
		if yaml.Unmarshal(doc, &list) != nil {
			out = append(out, doc)
			continue
		}
		for _, item := range list {
			b, err := yaml.Marshal(item)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// envoyMessageFor returns the message a sample document is: what
// convert's importer recognises it as.
func envoyMessageFor(doc []byte) (proto.Message, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	switch {
	case has("configs"):
		return &adminv3.ConfigDump{}, nil
	case has("static_resources"):
		return &bootstrapv3.Bootstrap{}, nil
	case has("resources"):
		return &discoveryv3.DiscoveryResponse{}, nil
	case has("virtual_hosts"):
		return &routev3.RouteConfiguration{}, nil
	case has("domains"):
		return &routev3.VirtualHost{}, nil
	case has("match"):
		return &routev3.Route{}, nil
	}
	return &clusterv3.Cluster{}, nil
}

// TestConvertEnvoySamplesParse: the import samples, written after
// Envoy's documentation, are real Envoy configuration: go-control-plane
// reads every document of them without unknown fields and its validation
// rules pass; envoy-bad.yaml is refused.
func TestConvertEnvoySamplesParse(t *testing.T) {
	files, err := filepath.Glob("../shared/convert/testdata/import/envoy-*")
	if err != nil || len(files) < 3 {
		t.Fatalf("samples: %v %v", files, err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var errs []string
		for i, doc := range envoyItems(t, envoyDocuments(data)) {
			msg, err := envoyMessageFor(doc)
			if err == nil {
				err = envoyParse(doc, msg)
			}
			if err != nil {
				errs = append(errs, err.Error())
			}
			t.Logf("%s document %d: %T: %v", name, i+1, msg, err)
		}
		bad := strings.Contains(name, "-bad")
		if bad && len(errs) == 0 {
			t.Errorf("%s: go-control-plane accepts the bad sample", name)
		}
		if !bad && len(errs) > 0 {
			t.Errorf("%s: go-control-plane refuses it: %v", name, errs)
		}
	}
}

// TestConvertEnvoyImportBehaves: a route imported with each retry_on
// condition RetryLab simulates retries exactly the answers Envoy's router
// retries (envoyRetries, the rules of TestEnvoyRetryOn), answer by answer:
// the answer, then 200, with num_retries 1 and a per_try_timeout of
// AttemptTimeout.
func TestConvertEnvoyImportBehaves(t *testing.T) {
	answers := []Answer{{Status: 500}, {Status: 501}, {Status: 502}, {Status: 503}, {Status: 504},
		{Status: 505}, {Status: 599}, {Status: 400}, {Status: 404}, {Status: 408}, {Status: 409},
		{Status: 425}, {Status: 429}, {Status: ConnectionError}, TimedOut}
	for _, retryOn := range []string{"5xx", "gateway-error", "reset", "connect-failure", "retriable-4xx",
		"retriable-status-codes", "connect-failure,retriable-status-codes", "reset,retriable-4xx,retriable-status-codes", "gateway-error,retriable-4xx"} {
		codes := []uint32{429, 503}
		doc := "match: {prefix: /}\nroute:\n  cluster: c\n  retry_policy:\n    retry_on: " + retryOn +
			"\n    retriable_status_codes: [429, 503]\n    num_retries: 1\n    per_try_timeout: " + AttemptTimeout.String() + "\n"
		p := policyMap(t, importOne(t, convert.Envoy, doc))
		statuses, timeout, connection := envoyRetries(retryOn, codes)
		scripts := make([]CallScript, len(answers))
		want := make([]int, len(answers))
		for k, a := range answers {
			scripts[k] = CallScript{a, {Status: 200}}
			retried := slices.Contains(statuses, a.Status) && !a.IsTimeout()
			switch {
			case a.IsTimeout():
				retried = timeout
			case a.Status == ConnectionError:
				retried = connection
			}
			want[k] = 1
			if retried {
				want[k] = 2
			}
		}
		got, _, err := EngineCalls(p, scripts, Spacing)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range answers {
			if got[k] != want[k] {
				t.Errorf("retry_on %s, %s: Envoy makes %d attempts, the imported policy %d", retryOn, answerName(a), want[k], got[k])
			}
		}
	}
}
