package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/web"
)

// assets are the static files, each served under a name that carries a hash
// of its content (style.3f2a1c9b0d.css), so that they can be cached for good,
// and compressed with brotli and gzip once, when first asked for: start-up
// only hashes them, so that the server answers at once. A large file
// (engine.wasm) comes compressed at build time (cmd/precompress, run by make
// wasm), since compressing it takes seconds that its first visitor would
// wait.
type assets struct {
	byName map[string]string // style.css → /static/style.3f2a1c9b0d.css
	byPath map[string]*asset
}

type asset struct {
	body        []byte
	ctype, etag string

	compress sync.Once
	gz, br   []byte
}

// compressed returns the asset's gzip and brotli encodings (brotli nil when
// the build has none), made on first use.
func (f *asset) compressed() (gz, br []byte) {
	f.compress.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(f.body)
		zw.Close()
		f.gz, f.br = b.Bytes(), compressBrotli(f.body)
	})
	return f.gz, f.br
}

// staticAssets loads and compresses the front end's files once per process:
// every server shares them.
var staticAssets = sync.OnceValues(func() (*assets, error) { return loadAssets(web.Static) })

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{byName: map[string]string{}, byPath: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if isPrecompressed(p) {
			return nil // read with the file it encodes, below
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		hash := ContentHash(body)
		name := strings.TrimPrefix(p, "static/")
		ext := path.Ext(name)
		hashed := "/static/" + strings.TrimSuffix(name, ext) + "." + hash + ext
		ctype := mime.TypeByExtension(ext)
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		f := &asset{body: body, ctype: ctype, etag: `"` + hash + `"`}
		// Build-time encodings carry the hash of what they encode: one left
		// from an older build is not found, and the file is compressed here.
		gz, gzErr := fs.ReadFile(fsys, PrecompressedName(p, hash, "gz"))
		br, brErr := fs.ReadFile(fsys, PrecompressedName(p, hash, "br"))
		if gzErr == nil && brErr == nil {
			f.compress.Do(func() { f.gz, f.br = gz, br })
		}
		a.byName[name] = hashed
		a.byPath[hashed] = f
		return nil
	})
	return a, err
}

// ContentHash returns the hash that a static file's URL and its build-time
// encodings' names carry: 10 hex digits of its SHA-256.
func ContentHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:5])
}

// PrecompressedName returns the name of a static file's build-time encoding
// enc ("gz" or "br"): engine.wasm with hash 3f2a1c9b0d gives
// engine.wasm.3f2a1c9b0d.br.
func PrecompressedName(name, hash, enc string) string {
	return name + "." + hash + "." + enc
}

// isPrecompressed reports whether a static file is a build-time encoding of
// another.
func isPrecompressed(name string) bool {
	return strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br")
}

// ExportStatic writes the static files under their content-hashed names into
// dir/static, for a platform that serves them itself (Workers Static Assets),
// and returns the manifest of names to paths that Config.StaticManifest takes.
func ExportStatic(dir string) (map[string]string, error) {
	a, err := staticAssets()
	if err != nil {
		return nil, err
	}
	for _, p := range a.byName {
		if err := os.MkdirAll(filepath.Join(dir, "static"), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), a.byPath[p].body, 0o644); err != nil {
			return nil, err
		}
	}
	return a.byName, nil
}

// hasEngine reports whether the playground's engine (engine.wasm, built by
// make wasm) is among the static files: a binary built with a plain go build
// has none, and its playground cannot run in the browser.
func (a *assets) hasEngine() bool {
	_, ok := a.byName["engine.wasm"]
	return ok
}

// enginePreload returns the path of engine.wasm for the head of a page that
// runs it (engine), to be preloaded; "" for a page that does not.
func (a *assets) enginePreload(engine bool) string {
	if !engine || !a.hasEngine() {
		return ""
	}
	return a.path("engine.wasm")
}

// path returns the hashed URL path of a static file.
func (a *assets) path(name string) string {
	if p, ok := a.byName[name]; ok {
		return p
	}
	return "/static/" + name // missing: a 404 in the browser rather than a panic here
}

// serve answers GET /static/*: the best encoding the client accepts, cached
// for a year.
func (a *assets) serve(c echo.Context) error {
	f, ok := a.byPath[c.Request().URL.Path]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such file")
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	if etagMatches(c.Request().Header.Get("If-None-Match"), f.etag) {
		return c.NoContent(http.StatusNotModified)
	}
	accept := c.Request().Header.Get("Accept-Encoding")
	br, gz := acceptsEncoding(accept, "br"), acceptsEncoding(accept, "gzip")
	if !br && !gz {
		return c.Blob(http.StatusOK, f.ctype, f.body)
	}
	gzBody, brBody := f.compressed()
	switch {
	case brBody != nil && br:
		h.Set("Content-Encoding", "br")
		return c.Blob(http.StatusOK, f.ctype, brBody)
	case gz:
		h.Set("Content-Encoding", "gzip")
		return c.Blob(http.StatusOK, f.ctype, gzBody)
	}
	return c.Blob(http.StatusOK, f.ctype, f.body)
}

// acceptsEncoding reports whether an Accept-Encoding header allows enc
// (present, and not with q=0).
func acceptsEncoding(header, enc string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), enc) {
			return !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") || strings.Contains(params, "q=0.")
		}
	}
	return false
}
