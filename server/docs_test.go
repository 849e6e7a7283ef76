package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/docs"
)

// TestDocsPagesAndTheirLinks serves the manual's contents and every page
// of it, and follows every link each page has to this site: a page of the
// manual, with a fragment that a heading of it has, a picture, or another
// of the site's pages; never a link that leads nowhere here (a file of
// the repository, relative to the Markdown).
func TestDocsPagesAndTheirLinks(t *testing.T) {
	s, _ := testServer(t)
	index := do(t, s, "GET", "/docs", "")
	if index.code != http.StatusOK {
		t.Fatalf("/docs: %d", index.code)
	}
	if len(docs.Names()) < 15 {
		t.Fatalf("%d pages", len(docs.Names()))
	}
	href := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	ids := regexp.MustCompile(`id="([^"]*)"`)
	pages := map[string]string{"/docs": index.body}
	for _, n := range docs.Names() {
		if !strings.Contains(index.body, `href="/docs/`+n+`"`) {
			t.Errorf("/docs does not list %s", n)
		}
		r := do(t, s, "GET", "/docs/"+n, "")
		if r.code != http.StatusOK {
			t.Fatalf("/docs/%s: %d", n, r.code)
		}
		checkHTML(t, "/docs/"+n, r.body)
		if !strings.Contains(r.body, "<h1 id=") {
			t.Errorf("/docs/%s has no title heading", n)
		}
		pages["/docs/"+n] = r.body
	}
	for from, body := range pages {
		for _, m := range href.FindAllStringSubmatch(body, -1) {
			dest := strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.HasPrefix(dest, "http") || strings.HasPrefix(dest, "mailto:") {
				continue
			}
			u, err := url.Parse(dest)
			if err != nil {
				t.Errorf("%s: %q: %v", from, dest, err)
				continue
			}
			if u.Path == "" { // a fragment of the page itself
				u.Path = from
			}
			if !strings.HasPrefix(u.Path, "/") {
				t.Errorf("%s: link %q is relative to the Markdown file and leads nowhere here", from, dest)
				continue
			}
			target, ok := pages[u.Path]
			if !ok {
				r := do(t, s, "GET", u.Path, "")
				if r.code != http.StatusOK {
					t.Errorf("%s: link %q: %d", from, dest, r.code)
					continue
				}
				target = r.body
			}
			if u.Fragment == "" || !strings.HasPrefix(u.Path, "/docs") {
				continue
			}
			found := false
			for _, id := range ids.FindAllStringSubmatch(target, -1) {
				found = found || id[1] == u.Fragment
			}
			if !found {
				t.Errorf("%s: link %q: %s has no id %q", from, dest, u.Path, u.Fragment)
			}
		}
	}
	if r := do(t, s, "GET", "/docs/no-such-page", ""); r.code != http.StatusNotFound {
		t.Errorf("an unknown page: %d", r.code)
	}
	if r := do(t, s, "GET", "/docs/images/../docs.go", ""); r.code != http.StatusNotFound {
		t.Errorf("a path out of the pictures: %d", r.code)
	}
}
