//go:build nostatic

// Package web, built for a platform that serves the static files itself
// (Cloudflare Workers Static Assets, -tags nostatic): nothing is embedded.
// web.go is the other side of this pair.
package web

import "embed"

// Static is empty in this build.
var Static embed.FS
