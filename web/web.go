//go:build !nostatic

// Package web holds the browser front end's static files: the style sheet
// shared by the server's pages and the playground, and their scripts.
package web

import "embed"

// Static holds the files under static/, served by the server under content-
// hashed names.
//
//go:embed static
var Static embed.FS
