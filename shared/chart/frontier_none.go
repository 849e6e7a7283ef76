//go:build nosearch

// A build without searches (the Cloudflare Worker, where the engine
// refuses a search block) draws no frontier. frontier.go is the other
// side of this pair.

package chart

import "github.com/retrylab/retrylab/shared/engine"

// frontier refuses: this build runs no search, so no result has one.
func frontier(res *engine.Result, opt Options) (*canvas, error) {
	return nil, optionErr("this result has no search: the frontier picture draws a policy search's frontier")
}
