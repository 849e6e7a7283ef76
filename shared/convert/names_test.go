package convert

import (
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestExportNamesPerStrategy: where a format names the policy (a
// resilience4j instance, an Istio VirtualService), each strategy's export
// is named after the strategy, so that the exports of a scenario's
// strategies do not collide; importing the export gives the name back
// (Istio's as "VIRTUALSERVICE/ROUTE").
func TestExportNamesPerStrategy(t *testing.T) {
	dns := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	for _, tc := range []struct{ format, name, want string }{
		{Resilience4j, "A", "A"},
		{Resilience4j, "backendA", "backendA"},
		{Resilience4j, "C (search 1)", "C-search-1"},
		{Resilience4j, "shop.Cart/Add", "shop-Cart-Add"},
		{Resilience4j, "!!", "dependency"},
		{Istio, "A", "a/A"},
		{Istio, "C (search 1)", "c-search-1/C (search 1)"},
		{Istio, "reviews/r1", "reviews/r1"},
		{Istio, "dependency/route", "dependency/route"},
		{Istio, "Reviews.V1/x/y", "reviews.v1/x/y"},
		{Istio, "(!)", "dependency/(!)"},
		{Istio, "a..b-/c", "a.b/c"},
	} {
		t.Run(tc.format+"/"+tc.name, func(t *testing.T) {
			st := engine.Strategy{Name: tc.name, Policy: engine.Policy{MaxAttempts: 3,
				Backoff: engine.Backoff{Kind: engine.BackoffConstant, Base: 1e8}, RetryOn: &engine.RetryOn{Statuses: []int{503}}}}
			out, _, err := Export(tc.format, st)
			if err != nil {
				t.Fatal(err)
			}
			im, err := Import(tc.format, out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := im.Strategies[0].Name; got != tc.want {
				t.Errorf("exported as %q, not %q:\n%s", got, tc.want, out)
			}
			if tc.format == Istio {
				if vs, _, _ := strings.Cut(im.Strategies[0].Name, "/"); !dns.MatchString(vs) {
					t.Errorf("VirtualService %q is not a DNS-1123 subdomain", vs)
				}
			}
		})
	}
}
