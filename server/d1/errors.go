package d1

import (
	"fmt"
	"strings"
	"syscall"
)

// writeError wraps the error of a D1 write as server.Store's contract asks
// of a store that cannot take writes now: with syscall.ENOSPC when the
// database is full (D1's size limit, SQLite's SQLITE_FULL), EROFS when it
// is read-only, and EIO when D1 failed in passing (a lost connection, a
// storage operation that timed out, an object reset, an overloaded
// database), so that the server answers 503 with Retry-After and keeps
// serving reads. Any other error is returned as it is (a 500). D1 reports
// all of them as messages (Cloudflare's "Debug D1" lists them), matched
// here without regard to case. (No build tag: the mapping is tested
// natively.)
func writeError(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.ToLower(err.Error())
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(msg, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("maximum database size", "maximum db size", "database or disk is full", "sqlite_full"):
		return fmt.Errorf("%w (%w)", err, syscall.ENOSPC)
	case has("readonly database", "read-only database", "sqlite_readonly"):
		return fmt.Errorf("%w (%w)", err, syscall.EROFS)
	case has("network connection lost", "exceeded timeout", "object to be reset", "was reset", "internal error", "overloaded", "sqlite_busy", "database is locked"):
		return fmt.Errorf("%w (%w)", err, syscall.EIO)
	}
	return err
}
