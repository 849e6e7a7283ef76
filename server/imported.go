package server

import (
	"github.com/retrylab/retrylab/shared/engine"
)

// An importError is a configuration that could not be imported: each
// problem with its path in the configuration.
type importError struct{ problems engine.Errors }

func (e *importError) Error() string { return e.problems.Error() }
