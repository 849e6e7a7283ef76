package storetest_test

import (
	"context"
	"io/fs"
	"sync"
	"testing"

	"github.com/retrylab/retrylab/server/storetest"
)

// mapStore is a minimal correct Store, to check the checks.
type mapStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *mapStore) PutScenario(ctx context.Context, id string, body []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; !ok {
		s.m[id] = append([]byte(nil), body...)
	}
	return nil
}

func (s *mapStore) GetScenario(ctx context.Context, id string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	body, ok := s.m[id]
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: id, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), body...), nil
}

func TestRun(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return &mapStore{m: map[string][]byte{}}
	})
}
