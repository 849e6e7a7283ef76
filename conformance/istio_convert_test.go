package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang/protobuf/jsonpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	networking "istio.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// kubeObject is a Kubernetes document of a YAML stream, its spec as
// JSON.
type kubeObject struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   json.RawMessage `json:"metadata"`
	Spec       json.RawMessage `json:"spec"`
}

// kubeObjects splits a YAML stream into its documents, each converted
// to JSON by sigs.k8s.io/yaml as kubectl does.
func kubeObjects(t *testing.T, data []byte) []kubeObject {
	t.Helper()
	var out []kubeObject
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("sigs.k8s.io/yaml refuses the document: %v\n%s", err, doc)
		}
		if string(j) == "null" {
			continue // comments only
		}
		var o kubeObject
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("not a Kubernetes object: %v\n%s", err, j)
		}
		out = append(out, o)
	}
	return out
}

// istioStrict parses a spec with protojson, refusing unknown fields
// (protojson's default), into the istio.io/api message.
func istioStrict(spec json.RawMessage, m proto.Message) error {
	return protojson.Unmarshal(spec, m)
}

// istioRetried is which answers Envoy retries under an Istio retryOn,
// written from Envoy's router documentation
// (https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter#x-envoy-retry-on
// and #x-envoy-retry-grpc-on) and conformance/envoy_test.go's reading of
// retry_state_impl.cc: 5xx and gateway-error retry resets (connection
// failures included) and per-try timeouts; reset retries both;
// retriable-4xx is 409. Integers are retriable status codes when Go's
// net/http names them (istio/istio pilot/pkg/networking/core/route/retry/
// retry.go parseRetryOn: http.StatusText(i) != ""). gRPC conditions
// (x-envoy-retry-grpc-on) test the answer's grpc-status header only,
// which RetryLab's HTTP dependency never sends: they retry nothing. An
// empty retryOn is Istio's default (DefaultPolicy: connect-failure,
// refused-stream, unavailable, cancelled, and retriable-status-codes
// without a code since 1.24's EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY):
// connection errors only.
func istioRetried(retryOn string) (statuses []int, timeout, connection bool) {
	set := map[int]bool{}
	grpc := map[string]bool{"cancelled": true, "deadline-exceeded": true, "internal": true, "resource-exhausted": true, "unavailable": true}
	if retryOn == "" {
		retryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	}
	for _, tok := range strings.Split(retryOn, ",") {
		switch tok {
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
		case "connect-failure", "refused-stream":
			connection = true
		case "retriable-4xx":
			set[409] = true
		default:
			if grpc[tok] {
				// Nothing: grpc-status only.
			} else if s, err := strconv.Atoi(tok); err == nil && http.StatusText(s) != "" {
				set[s] = true
			}
		}
	}
	for s := range set {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	return statuses, timeout, connection
}

// meshStrategies are the strategies the Istio and Linkerd exports are
// checked on: the presets, the imported samples, strategies with a
// maxRetries budget, and random ones.
func meshStrategies(t *testing.T) []engine.Strategy {
	sts := convertStrategies(t)
	r := rand.New(rand.NewPCG(17, 3))
	for i := range 300 {
		st := randomStrategy(r, i)
		if i%5 == 0 && st.Hedging == nil {
			st.Budget = &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: r.IntN(100), ShareOf: engine.ShareAttempts}
		}
		if i%7 == 0 {
			st.Budget = &engine.Budget{Kind: engine.BudgetRatio, Ratio: float64(1+r.IntN(100)) / 100,
				Window: engine.Duration(int64(1+r.IntN(60)) * 1e9), MinPerSecond: float64(r.IntN(20)), Slices: 10}
		}
		sts = append(sts, st)
	}
	return sts
}

func meshWarned(notes []convert.Note, prefix string) bool {
	return slices.ContainsFunc(notes, func(n convert.Note) bool {
		return n.Level == convert.Warning && strings.HasPrefix(n.Path, prefix)
	})
}

// istioRounded returns d rounded to whole milliseconds, as the Istio export
// writes it (at least 1 ms).
func istioRounded(d engine.Duration) time.Duration {
	return max(time.Duration(d).Round(time.Millisecond), time.Millisecond)
}

// dns1123Subdomain is what Kubernetes requires of an object's name
// (k8s.io/apimachinery validation.IsDNS1123Subdomain, with its length
// of at most 253 checked apart).
var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// TestConvertIstioExportParses: every Istio export, of every preset,
// imported sample and random strategy, is accepted by istio.io/api
// v1.32.0's networking/v1 VirtualService and DestinationRule messages
// (sigs.k8s.io/yaml to JSON, then protojson, unknown fields refused, and
// Istio's own JSON shim, golang/protobuf jsonpb), each object's name is
// one Kubernetes takes, and the values read
// back are the policy's: attempts, per-try timeout, route timeout,
// back-off base, the retried answers (unless the export warned about
// them) and maxRetries.
func TestConvertIstioExportParses(t *testing.T) {
	for _, st := range meshStrategies(t) {
		out, notes, err := convert.Export(convert.Istio, st)
		if err != nil {
			t.Fatal(err)
		}
		objs := kubeObjects(t, out)
		var vs *networking.VirtualService
		var dr *networking.DestinationRule
		for _, o := range objs {
			if o.APIVersion != "networking.istio.io/v1" {
				t.Errorf("%s: apiVersion %q", st.Name, o.APIVersion)
			}
			var meta struct{ Name string }
			if err := json.Unmarshal(o.Metadata, &meta); err != nil || !dns1123Subdomain.MatchString(meta.Name) || len(meta.Name) > 253 {
				t.Errorf("%s: the %s's metadata.name %q is not a DNS-1123 subdomain (%v)", st.Name, o.Kind, meta.Name, err)
			}
			var m proto.Message
			switch o.Kind {
			case "VirtualService":
				vs = &networking.VirtualService{}
				m = vs
			case "DestinationRule":
				dr = &networking.DestinationRule{}
				m = dr
			default:
				t.Fatalf("%s: kind %q", st.Name, o.Kind)
			}
			if err := istioStrict(o.Spec, m); err != nil {
				t.Fatalf("%s: istio.io/api refuses the %s: %v\n%s", st.Name, o.Kind, err, out)
			}
			shim := proto.Clone(m)
			proto.Reset(shim)
			if err := json.Unmarshal(o.Spec, shim); err != nil || !proto.Equal(shim, m) {
				t.Errorf("%s: Istio's JSON shim reads the %s differently (%v)", st.Name, o.Kind, err)
			}
		}
		if vs == nil || len(vs.Http) != 1 {
			t.Fatalf("%s: no VirtualService with one http route:\n%s", st.Name, out)
		}
		route := vs.Http[0]
		if len(route.Route) != 1 || route.Route[0].Destination.GetHost() != "dependency" || !slices.Equal(vs.Hosts, []string{"dependency"}) {
			t.Errorf("%s: the route does not send to host dependency", st.Name)
		}
		rt := route.Retries
		wantAttempts := int32(st.MaxAttempts - 1)
		if st.MaxAttempts == 0 {
			wantAttempts = engine.MaxAttempts - 1
		}
		if rt.GetAttempts() != wantAttempts {
			t.Errorf("%s: Istio reads %d retries; the policy has %d attempts", st.Name, rt.GetAttempts(), st.MaxAttempts)
		}
		if got := route.Timeout.AsDuration(); st.Deadline > 0 && got != istioRounded(st.Deadline) || st.Deadline == 0 && route.Timeout != nil {
			t.Errorf("%s: Istio reads the route timeout as %v; the deadline is %v", st.Name, got, st.Deadline)
		}
		if got := rt.GetPerTryTimeout().AsDuration(); st.AttemptTimeout > 0 && got != istioRounded(st.AttemptTimeout) || st.AttemptTimeout == 0 && rt.GetPerTryTimeout() != nil {
			t.Errorf("%s: Istio reads perTryTimeout as %v; the attempt timeout is %v", st.Name, got, st.AttemptTimeout)
		}
		if b := st.Backoff; b.Kind == engine.BackoffExponential && b.Base > 0 {
			got := 25 * time.Millisecond
			if rt.GetBackoff() != nil {
				got = rt.GetBackoff().AsDuration()
			}
			if got != istioRounded(b.Base) {
				t.Errorf("%s: Istio reads the back-off base as %v; the policy's is %v", st.Name, got, b.Base)
			}
		}
		if wantAttempts > 0 && !meshWarned(notes, "retry_on") {
			gs, gt, gc := istioRetried(rt.GetRetryOn())
			ws, wt, wc := engineRetries(st.RetryOn)
			if !slices.Equal(gs, ws) || gt != wt || gc != wc {
				t.Errorf("%s: Envoy retries %v (timeouts %v, connection errors %v) under retryOn %q; the policy %v (%v, %v)", st.Name, gs, gt, gc, rt.GetRetryOn(), ws, wt, wc)
			}
		}
		b := st.Budget
		exact := b != nil && b.Kind == engine.BudgetConcurrency && b.Ratio == 0 && b.MinConcurrency > 0 && b.ShareOf == engine.ShareAttempts && b.Scope != engine.ScopeClient
		switch {
		case exact && dr == nil:
			t.Errorf("%s: no DestinationRule for the budget", st.Name)
		case exact:
			// Istio writes maxRetries only when above 0 (its cluster
			// builder: "if settings.Http.MaxRetries > 0").
			if dr.Host != "dependency" || dr.TrafficPolicy.GetConnectionPool().GetHttp().GetMaxRetries() != int32(b.MinConcurrency) {
				t.Errorf("%s: Istio reads maxRetries %d of host %q; the budget allows %d", st.Name, dr.TrafficPolicy.GetConnectionPool().GetHttp().GetMaxRetries(), dr.Host, b.MinConcurrency)
			}
		case dr != nil:
			t.Errorf("%s: a DestinationRule is written without a maxRetries budget", st.Name)
		}
	}
}

// TestConvertIstioSamplesParse: the samples written after Istio's docs
// are valid VirtualServices and DestinationRules. They use Go durations
// ("5m", "0.5s") as the docs do, which protojson refuses and Istio's own
// JSON shim (golang/protobuf jsonpb, time.ParseDuration) reads: they are
// parsed with it, unknown fields refused. The bad sample is refused too.
func TestConvertIstioSamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../shared/convert/testdata/import/istio-*.yaml")
	if len(files) < 3 {
		t.Fatalf("only %d Istio samples", len(files))
	}
	strict := jsonpb.Unmarshaler{AllowUnknownFields: false}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Contains(path, "-bad")
		refused := false
		for _, o := range kubeObjects(t, data) {
			var m proto.Message
			switch o.Kind {
			case "VirtualService":
				m = &networking.VirtualService{}
			case "DestinationRule":
				m = &networking.DestinationRule{}
			case "Gateway":
				m = &networking.Gateway{}
			default:
				t.Fatalf("%s: kind %q", path, o.Kind)
			}
			if err := strict.Unmarshal(bytes.NewReader(o.Spec), protoadapt.MessageV1Of(m)); err != nil {
				if !bad {
					t.Errorf("%s: istio.io/api refuses the %s: %v", filepath.Base(path), o.Kind, err)
				}
				refused = true
			}
		}
		if bad && !refused {
			t.Errorf("%s: istio.io/api accepts the bad sample", filepath.Base(path))
		}
	}
}

// Linkerd has no Go module reachable here (github.com/linkerd/linkerd2 is
// refused by the module proxy), so its ServiceProfile is checked against
// the published CRD and validation, encoded as a table:
//
//   - the v1alpha2 openAPIV3Schema of
//     https://github.com/linkerd/linkerd2/blob/0c510f2a93dd7321073660987fb7f023ea196a97/charts/linkerd-crds/templates/serviceprofile.yaml
//     (the fields, their types, the required ones; the API server prunes
//     unknown fields, so a field not in it would be lost silently);
//   - pkg/profiles/profiles.go Validate (linkerd/linkerd2 at 09a9dde):
//     timeouts and ttl parse with time.ParseDuration, a request match has
//     a field set, a status range is within 100-599 with min ≤ max, the
//     profile's name is a DNS-1123 subdomain, retryRatio ≥ 0, ttl is set;
//   - tower's TpsBudget::new (tower/src/retry/budget/tps_budget.rs),
//     which the proxy builds from retryBudget: ttl from 1 s to 60 s,
//     retry_percent from 0 to 1000.

// crdField is a field of the CRD's schema: its type, its fields (an
// object's, or an array's items') and the required ones.
type crdField struct {
	typ      string // object, array, string, integer, number, boolean
	fields   map[string]*crdField
	required []string
}

func crdObject(required []string, fields map[string]*crdField) *crdField {
	return &crdField{typ: "object", fields: fields, required: required}
}

func crdArray(items *crdField) *crdField {
	return &crdField{typ: "array", fields: map[string]*crdField{"": items}}
}

var (
	crdString  = &crdField{typ: "string"}
	crdInteger = &crdField{typ: "integer"}
	crdNumber  = &crdField{typ: "number"}
	crdBoolean = &crdField{typ: "boolean"}
	crdAny     = &crdField{typ: "object"} // x-kubernetes-preserve-unknown-fields
)

// serviceProfileCRD is the v1alpha2 schema, field by field.
var serviceProfileCRD = crdObject([]string{"apiVersion", "kind", "metadata", "spec"}, map[string]*crdField{
	"apiVersion": crdString, "kind": crdString,
	"metadata": crdObject([]string{"name"}, map[string]*crdField{"name": crdString, "namespace": crdString}),
	"spec": crdObject(nil, map[string]*crdField{
		"dstOverrides": crdArray(crdObject(nil, map[string]*crdField{"authority": crdString, "weight": crdString})),
		"opaquePorts":  crdArray(crdString),
		"retryBudget": crdObject([]string{"minRetriesPerSecond", "retryRatio", "ttl"}, map[string]*crdField{
			"minRetriesPerSecond": crdInteger, "retryRatio": crdNumber, "ttl": crdString}),
		"routes": crdArray(crdObject([]string{"condition", "name"}, map[string]*crdField{
			"condition": crdObject(nil, map[string]*crdField{"pathRegex": crdString, "method": crdString,
				"all": crdArray(crdAny), "any": crdArray(crdAny), "not": crdArray(crdAny)}),
			"isRetryable": crdBoolean, "name": crdString, "timeout": crdString,
			"responseClasses": crdArray(crdObject([]string{"condition"}, map[string]*crdField{
				"condition": crdObject(nil, map[string]*crdField{"all": crdArray(crdAny), "any": crdArray(crdAny), "not": crdAny,
					"status": crdObject(nil, map[string]*crdField{"max": crdInteger, "min": crdInteger})}),
				"isFailure": crdBoolean})),
		})),
	}),
})

// crdCheck returns what in v does not fit the schema f, with paths.
func crdCheck(path string, v any, f *crdField) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	switch f.typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("is not an object")
			break
		}
		for _, k := range f.required {
			if _, ok := m[k]; !ok {
				bad("misses the required %s", k)
			}
		}
		if f == crdAny {
			break
		}
		for k, x := range m {
			sub, ok := f.fields[k]
			if !ok {
				bad("has %s, which the CRD does not have (the API server would prune it)", k)
				continue
			}
			errs = append(errs, crdCheck(path+"."+k, x, sub)...)
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			bad("is not an array")
			break
		}
		for i, x := range list {
			errs = append(errs, crdCheck(fmt.Sprintf("%s[%d]", path, i), x, f.fields[""])...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			bad("is not a string")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("is not a boolean")
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			bad("is not a number")
			break
		}
		if _, err := n.Int64(); f.typ == "integer" && err != nil {
			bad("%s is not an integer", n)
		}
	}
	return errs
}

// TestConvertLinkerdCRDTable: the table refuses what the CRD and
// Validate refuse, so the test below would catch a bad export.
func TestConvertLinkerdCRDTable(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: a}\nspec: {routes: [{name: r}]}",
		"apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: a}\nspec: {routes: [{name: r, condition: {pathRegex: /}, retries: 3}]}",
		"apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: a}\nspec: {routes: [], retryBudget: {retryRatio: 0.2, minRetriesPerSecond: 1.5, ttl: 10s}}",
		"apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: a}\nspec: {routes: [{name: r, condition: {pathRegex: /}, timeout: 10}]}",
	} {
		if errs := linkerdCheck(t, []byte(doc)); len(errs) == 0 {
			t.Errorf("the table accepts\n%s", doc)
		}
	}
}

// linkerdCheck returns what in a ServiceProfile the CRD or Validate
// would refuse.
func linkerdCheck(t *testing.T, data []byte) []string {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return []string{err.Error()}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []string{err.Error()}
	}
	errs := crdCheck("", v, serviceProfileCRD)
	m, _ := v.(map[string]any)
	if m["apiVersion"] != "linkerd.io/v1alpha2" || m["kind"] != "ServiceProfile" {
		errs = append(errs, fmt.Sprintf("apiVersion %v, kind %v", m["apiVersion"], m["kind"]))
	}
	meta, _ := m["metadata"].(map[string]any)
	if name, _ := meta["name"].(string); !dns1123Subdomain.MatchString(name) || len(name) > 253 {
		errs = append(errs, fmt.Sprintf("metadata.name %q is not a DNS-1123 subdomain", name))
	}
	spec, _ := m["spec"].(map[string]any)
	routes, _ := spec["routes"].([]any)
	for i, rv := range routes {
		r, _ := rv.(map[string]any)
		if s, ok := r["timeout"].(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				errs = append(errs, fmt.Sprintf("routes[%d].timeout: %v", i, err))
			}
		}
		if c, _ := r["condition"].(map[string]any); len(c) == 0 {
			errs = append(errs, fmt.Sprintf("routes[%d].condition has no field set", i))
		}
		classes, _ := r["responseClasses"].([]any)
		for k, cv := range classes {
			c, _ := cv.(map[string]any)
			cond, _ := c["condition"].(map[string]any)
			st, _ := cond["status"].(map[string]any)
			lo, _ := st["min"].(json.Number).Int64()
			hi, _ := st["max"].(json.Number).Int64()
			if len(cond) == 0 || lo != 0 && (lo < 100 || lo > 599) || hi != 0 && (hi < 100 || hi > 599) || lo != 0 && hi != 0 && hi < lo {
				errs = append(errs, fmt.Sprintf("routes[%d].responseClasses[%d]: status range %d-%d", i, k, lo, hi))
			}
		}
	}
	if rb, ok := spec["retryBudget"].(map[string]any); ok {
		ratio, _ := rb["retryRatio"].(json.Number).Float64()
		ttl, err := time.ParseDuration(fmt.Sprint(rb["ttl"]))
		if ratio < 0 || ratio > 1000 || err != nil || ttl < time.Second || ttl > time.Minute {
			errs = append(errs, fmt.Sprintf("retryBudget: retryRatio %v, ttl %v (%v)", ratio, rb["ttl"], err))
		}
	}
	return errs
}

// TestConvertLinkerdExportFitsCRD: every Linkerd export (presets,
// samples, random strategies) fits the ServiceProfile CRD and Validate,
// and reads back as the policy: the route timeout, whether it is
// retryable, the budget, and the failed (retried) statuses its response
// classes make, the first class matching a status deciding and 5xx
// failures otherwise (the proxy's default classification).
func TestConvertLinkerdExportFitsCRD(t *testing.T) {
	for _, st := range meshStrategies(t) {
		out, _, err := convert.Export(convert.Linkerd, st)
		if err != nil {
			t.Fatal(err)
		}
		if errs := linkerdCheck(t, out); len(errs) > 0 {
			t.Errorf("%s: the ServiceProfile does not fit the CRD:\n%s\n%s", st.Name, strings.Join(errs, "\n"), out)
			continue
		}
		var sp struct {
			Spec struct {
				Routes []struct {
					IsRetryable     bool
					Timeout         string
					ResponseClasses []struct {
						Condition struct{ Status struct{ Min, Max int } }
						IsFailure bool
					}
				}
				RetryBudget *struct {
					RetryRatio          float64
					MinRetriesPerSecond int
					TTL                 string
				}
			}
		}
		j, _ := yaml.YAMLToJSON(out)
		if err := json.Unmarshal(j, &sp); err != nil || len(sp.Spec.Routes) != 1 {
			t.Fatalf("%s: %v\n%s", st.Name, err, out)
		}
		r := sp.Spec.Routes[0]
		if r.IsRetryable != (st.MaxAttempts != 1) {
			t.Errorf("%s: isRetryable %v for %d attempts", st.Name, r.IsRetryable, st.MaxAttempts)
		}
		if d, _ := time.ParseDuration(r.Timeout); d != st.Deadline.D() {
			t.Errorf("%s: the route timeout reads %v; the deadline is %v", st.Name, d, st.Deadline)
		}
		if r.IsRetryable {
			var failure, decided [600]bool
			for _, c := range r.ResponseClasses {
				for s := c.Condition.Status.Min; s <= c.Condition.Status.Max; s++ {
					if !decided[s] {
						decided[s], failure[s] = true, c.IsFailure
					}
				}
			}
			var got []int
			for s := 100; s < 600; s++ {
				if decided[s] && failure[s] || !decided[s] && s >= 500 {
					got = append(got, s)
				}
			}
			want, _, _ := engineRetries(st.RetryOn)
			want = slices.DeleteFunc(want, func(s int) bool { return s < 100 || s > 599 })
			if !slices.Equal(got, want) {
				t.Errorf("%s: the response classes make %v failures; the policy retries %v", st.Name, got, want)
			}
		}
		if b := st.Budget; b != nil && b.Kind == engine.BudgetRatio && b.Window >= engine.Duration(time.Second) && b.Window <= engine.Duration(time.Minute) {
			rb := sp.Spec.RetryBudget
			if rb == nil {
				t.Errorf("%s: no retryBudget for the ratio budget", st.Name)
				continue
			}
			if ttl, _ := time.ParseDuration(rb.TTL); rb.RetryRatio != b.Ratio || float64(rb.MinRetriesPerSecond) != b.MinPerSecond || ttl != b.Window.D() {
				t.Errorf("%s: the retryBudget reads %+v; the budget is %+v", st.Name, *rb, *b)
			}
		}
	}
}
