package server

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"
)

func TestAssetsServeBuildTimeEncodings(t *testing.T) {
	wasm := []byte("\x00asm engine")
	hash := ContentHash(wasm)
	fsys := fstest.MapFS{
		"static/engine.wasm": {Data: wasm},
		"static/" + PrecompressedName("engine.wasm", hash, "br"):         {Data: []byte("brotli of the engine")},
		"static/" + PrecompressedName("engine.wasm", hash, "gz"):         {Data: []byte("gzip of the engine")},
		"static/" + PrecompressedName("engine.wasm", "0123456789", "br"): {Data: []byte("an older build's")},
		"static/app.js": {Data: []byte("console.log(1)")},
	}
	a, err := loadAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.byName) != 2 {
		t.Errorf("assets %v, want engine.wasm and app.js only (encodings are not files of their own)", a.byName)
	}
	for _, tc := range []struct {
		desc, name, accept, wantEncoding, wantBody string
	}{
		{"brotli from the build", "engine.wasm", "gzip, br", "br", "brotli of the engine"},
		{"gzip from the build", "engine.wasm", "gzip", "gzip", "gzip of the engine"},
		{"identity", "engine.wasm", "", "", string(wasm)},
		{"a file without build-time encodings is compressed here", "app.js", "gzip", "gzip", ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, a.path(tc.name), nil)
			if tc.accept != "" {
				req.Header.Set("Accept-Encoding", tc.accept)
			}
			rec := httptest.NewRecorder()
			if err := a.serve(echo.New().NewContext(req, rec)); err != nil {
				t.Fatal(err)
			}
			if got := rec.Header().Get("Content-Encoding"); got != tc.wantEncoding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.wantEncoding)
			}
			if tc.wantBody != "" && rec.Body.String() != tc.wantBody {
				t.Errorf("body %q, want %q", rec.Body.String(), tc.wantBody)
			}
			if tc.name == "engine.wasm" {
				if got := rec.Header().Get("Content-Type"); got != "application/wasm" {
					t.Errorf("Content-Type %q, want application/wasm (for streaming compilation)", got)
				}
				if got := rec.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
					t.Errorf("Cache-Control %q", got)
				}
			}
		})
	}
}

func TestOnlyThePlaygroundPreloadsTheEngine(t *testing.T) {
	s, _ := testServer(t)
	if !s.assets.hasEngine() {
		t.Skip("web/static/engine.wasm is not built: run make wasm")
	}
	preload := `<link rel="preload" href="` + s.assets.path("engine.wasm") + `" as="fetch" type="application/wasm" crossorigin="anonymous">`
	if r := do(t, s, "GET", "/", ""); !strings.Contains(r.body, preload) || strings.Index(r.body, preload) > strings.Index(r.body, "</head>") {
		t.Errorf("the playground's head has no %s", preload)
	}
	if r := do(t, s, "GET", "/scenarios", ""); strings.Contains(r.body, `rel="preload"`) {
		t.Errorf("the gallery preloads the engine, which it does not run")
	}
}

// TestFavicon: pages name their icon, served as SVG; /favicon.ico, which
// clients ask without reading the page, is sent to it, not a 404.
func TestFavicon(t *testing.T) {
	s, _ := testServer(t)
	page := do(t, s, "GET", "/", "")
	m := regexp.MustCompile(`<link rel="icon" type="image/svg\+xml" href="(/static/favicon\.[0-9a-f]{10}\.svg)">`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("the page names no icon:\n%.600s", page.body)
	}
	if r := do(t, s, "GET", m[1], ""); r.code != 200 || r.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(r.body, "<svg") {
		t.Errorf("the icon: %d %s %.80s", r.code, r.header.Get("Content-Type"), r.body)
	}
	if r := do(t, s, "GET", "/favicon.ico", ""); r.code != 301 || r.header.Get("Location") != m[1] {
		t.Errorf("/favicon.ico: %d, Location %q", r.code, r.header.Get("Location"))
	}
}
