package server

import (
	"io"
	"log/slog"
	"net/url"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
