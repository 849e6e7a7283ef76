package main

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestSearchOverTheLimit: a search refused for its estimate says that
// --max-events 0 runs it anyway; runaway-cascade's default search is
// estimated far above what it runs (see engine's estimateSearch).
func TestSearchOverTheLimit(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, _, errs := run(t, "", "search", "runaway-cascade")
	if want := "retrylab search: the estimate is a bound, often well above what runs where retries storm; --max-events 0 runs it anyway (no limit)\n"; code != 1 || !strings.Contains(errs, "over the limit of 200.0 million") || !strings.HasSuffix(errs, want) {
		t.Errorf("exit %d, %q; want 1 and %q", code, errs, want)
	}
}

// TestImportedLinkerdRuns: a ServiceProfile's routes retry without limit
// and without a backoff, bounded by the retry budget only; the imported
// scenario runs under the default event limit instead of being refused as
// a cost without bound.
func TestImportedLinkerdRuns(t *testing.T) {
	profile := `apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata:
  name: books.shop.svc.cluster.local
spec:
  routes:
  - name: GET /books
    condition: {method: GET, pathRegex: /books}
    isRetryable: true
    timeout: 250ms
  - name: GET /books/{id}
    condition:
      method: GET
      pathRegex: /books/[^/]*
    isRetryable: true
  retryBudget: {retryRatio: 0.2, minRetriesPerSecond: 10, ttl: 10s}
`
	code, scenario, errs := run(t, profile, "import", "--from", "linkerd", "-")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, scenario, "run", "-")
	if code != 0 || strings.Contains(errs, "no bound") {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "GET /books/{id}") {
		t.Errorf("the run's report does not name the route:\n%s", out)
	}
}

// TestSearchInABuildWithoutIt: retrylab built with -tags nosearch (as
// worker/test.sh builds it) says that the build leaves the search out,
// not that the default search block it would have added is wrong.
func TestSearchInABuildWithoutIt(t *testing.T) {
	if engine.Searches() {
		t.Skip("this build runs searches; make test-native runs this test again with -tags nosearch")
	}
	code, _, errs := run(t, "", "search", "e03b-synchronized-recovery")
	if want := "retrylab search: this retrylab was built with -tags nosearch (as the Cloudflare Worker is), which leaves the search out; build it without that tag to search\n"; code != 1 || errs != want {
		t.Errorf("exit %d, %q; want 1 and %q", code, errs, want)
	}
}
