//go:build !nosearch

package main

// retrylab runs searches (run, check, serve: the server's runs) by
// importing package search. Built with the nosearch tag it does not, as
// the Worker does not: worker/test.sh builds it so to compare the two.
import _ "github.com/retrylab/retrylab/shared/engine/search"
