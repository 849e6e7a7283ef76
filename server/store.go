package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"sync"
)

// A Store keeps shared scenarios by ID. Put is idempotent: storing an ID that
// exists already succeeds and keeps the first body. Get reports a missing ID
// with an error wrapping fs.ErrNotExist. A store that cannot take writes now
// (a full disk, a read-only file) fails Put with an error wrapping
// syscall.ENOSPC, syscall.EROFS or syscall.EIO and keeps serving Get. The SQL
// store (package server/sqlstore, over SQLite in server/sqlite), the D1
// store of the Worker (package server/d1, with sqlstore's statements) and
// memStore, their twin for tests, implement it.
type Store interface {
	PutScenario(ctx context.Context, id string, body []byte) error
	GetScenario(ctx context.Context, id string) ([]byte, error)
}

// memStore is a Store in memory.
type memStore struct {
	mu sync.RWMutex
	m  map[string][]byte
	// writeErr, when set, fails every write, as a full disk would (tests).
	writeErr error
}

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) PutScenario(ctx context.Context, id string, body []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writeErr != nil {
		return s.writeErr
	}
	if _, ok := s.m[id]; !ok {
		s.m[id] = append([]byte(nil), body...)
	}
	return nil
}

func (s *memStore) GetScenario(ctx context.Context, id string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	body, ok := s.m[id]
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: id, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), body...), nil
}

// salt keeps IDs from being predictable hashes of bare JSON.
const salt = "RetryLab scenario v1\n"

// shareID derives a scenario's ID from its canonical JSON: SHA-256 of salt and
// body, base64url, 11 characters, lengthened while it ends in '_' so that
// auto-linkers keep the whole ID in the link.
func shareID(canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write(canonical)
	s := base64.RawURLEncoding.EncodeToString(h.Sum(nil))
	n := 11
	for n < len(s) && s[n-1] == '_' {
		n++
	}
	return s[:n]
}
