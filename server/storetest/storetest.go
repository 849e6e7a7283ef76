// Package storetest checks that a store keeps the contract of server.Store.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Store has the methods of server.Store, which this package cannot import
// without an import cycle. Any server.Store is a Store.
type Store interface {
	PutScenario(ctx context.Context, id string, body []byte) error
	GetScenario(ctx context.Context, id string) ([]byte, error)
}

// Run checks the store contract in subtests, each on a new, empty store
// returned by open. Open should register any clean-up with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open(t)) })
	t.Run("PutKeepsFirstBody", func(t *testing.T) { testPutKeepsFirstBody(t, open(t)) })
	t.Run("PutCopiesBody", func(t *testing.T) { testPutCopiesBody(t, open(t)) })
	t.Run("GetReturnsCopy", func(t *testing.T) { testGetReturnsCopy(t, open(t)) })
	t.Run("MissingIsNotExist", func(t *testing.T) { testMissingIsNotExist(t, open(t)) })
	t.Run("CancelledContextFails", func(t *testing.T) { testCancelledContextFails(t, open(t)) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open(t)) })
	t.Run("OddIDsExact", func(t *testing.T) { testOddIDsExact(t, open(t)) })
}

// RunUnwritable checks a store that cannot take writes now: a full disk, a
// read-only file. open returns a new store that holds body "x" under ID
// "present" and then cannot be written. PutScenario must fail with an error
// wrapping syscall.ENOSPC, syscall.EROFS or syscall.EIO and store nothing,
// so that the server can answer 503 and Retry-After; reads keep working.
func RunUnwritable(t *testing.T, open func(t *testing.T) Store) {
	s := open(t)
	err := s.PutScenario(t.Context(), "new", pattern(64<<10))
	if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EIO) {
		t.Errorf("PutScenario on a store that cannot be written = %v; want an error wrapping ENOSPC, EROFS or EIO", err)
	}
	if got, err := s.GetScenario(t.Context(), "present"); err != nil || string(got) != "x" {
		t.Errorf("GetScenario(present) = %q, %v; reads must keep working", got, err)
	}
	if _, err := s.GetScenario(t.Context(), "new"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after a failed put, GetScenario(new) = %v; want fs.ErrNotExist", err)
	}
}

// pattern returns n bytes that run through every byte value, NUL included.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/256)
	}
	return b
}

// put stores body under id and fails the test on error.
func put(t *testing.T, s Store, id string, body []byte) {
	t.Helper()
	if err := s.PutScenario(t.Context(), id, body); err != nil {
		t.Fatalf("PutScenario(%q): %v", id, err)
	}
}

// get returns the body under id and fails the test on error.
func get(t *testing.T, s Store, id string) []byte {
	t.Helper()
	body, err := s.GetScenario(t.Context(), id)
	if err != nil {
		t.Fatalf("GetScenario(%q): %v", id, err)
	}
	return body
}

func testRoundTrip(t *testing.T, s Store) {
	bodies := map[string][]byte{
		"json":   []byte(`{"name":"retry storm","clients":100}`),
		"binary": {0, 1, 0xfe, 0xff, 0, '\n', '\r', 0x80, 0xc3, 0x28},
		"empty":  {},
		"64KiB":  pattern(64 << 10),
	}
	for id, body := range bodies {
		put(t, s, id, body)
	}
	for id, want := range bodies {
		if got := get(t, s, id); !bytes.Equal(got, want) {
			t.Errorf("GetScenario(%q) = %d bytes, want the %d bytes put", id, len(got), len(want))
		}
	}
}

func testPutKeepsFirstBody(t *testing.T, s Store) {
	put(t, s, "id", []byte("first"))
	put(t, s, "id", []byte("second"))
	if got := get(t, s, "id"); string(got) != "first" {
		t.Errorf("after two puts, GetScenario = %q, want %q", got, "first")
	}
}

func testPutCopiesBody(t *testing.T, s Store) {
	body := []byte("original")
	put(t, s, "id", body)
	copy(body, "CHANGED!")
	if got := get(t, s, "id"); string(got) != "original" {
		t.Errorf("after changing the slice put, GetScenario = %q, want %q", got, "original")
	}
}

func testGetReturnsCopy(t *testing.T, s Store) {
	put(t, s, "id", []byte("original"))
	copy(get(t, s, "id"), "CHANGED!")
	if got := get(t, s, "id"); string(got) != "original" {
		t.Errorf("after changing the slice got, GetScenario = %q, want %q", got, "original")
	}
}

func testMissingIsNotExist(t *testing.T, s Store) {
	put(t, s, "present", []byte("x"))
	for _, id := range []string{"missing", "", "PRESENT", "present "} {
		body, err := s.GetScenario(t.Context(), id)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("GetScenario(%q) = %q, %v; want an error wrapping fs.ErrNotExist", id, body, err)
		}
	}
}

func testCancelledContextFails(t *testing.T, s Store) {
	put(t, s, "present", []byte("x"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	if err := s.PutScenario(ctx, "new", []byte("y")); !errors.Is(err, context.Canceled) {
		t.Errorf("PutScenario with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := s.GetScenario(ctx, "present"); !errors.Is(err, context.Canceled) {
		t.Errorf("GetScenario with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := s.GetScenario(t.Context(), "new"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after a cancelled put, GetScenario = %v, want fs.ErrNotExist", err)
	}
}

// testConcurrent has 16 goroutines each put a scenario of its own and race
// to put a shared one, reading both back.
func testConcurrent(t *testing.T, s Store) {
	const n = 16
	ctx := t.Context()
	var (
		wg     sync.WaitGroup
		shared [n][]byte // what each goroutine read for "shared"
	)
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("own-%d", i)
			own := fmt.Appendf(nil, "body of %d", i)
			for range 10 {
				if err := s.PutScenario(ctx, id, own); err != nil {
					t.Errorf("PutScenario(%q): %v", id, err)
					return
				}
				if got, err := s.GetScenario(ctx, id); err != nil || !bytes.Equal(got, own) {
					t.Errorf("GetScenario(%q) = %q, %v; want %q", id, got, err, own)
					return
				}
			}
			if err := s.PutScenario(ctx, "shared", fmt.Appendf(nil, "shared from %d", i)); err != nil {
				t.Errorf("PutScenario(shared): %v", err)
				return
			}
			got, err := s.GetScenario(ctx, "shared")
			if err != nil {
				t.Errorf("GetScenario(shared): %v", err)
				return
			}
			shared[i] = got
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if !strings.HasPrefix(string(shared[0]), "shared from ") {
		t.Fatalf("GetScenario(shared) = %q, want a body some goroutine put", shared[0])
	}
	for i, got := range shared {
		if !bytes.Equal(got, shared[0]) {
			t.Errorf("goroutine %d read shared = %q, goroutine 0 read %q; want the first put kept", i, got, shared[0])
		}
	}
}

func testOddIDsExact(t *testing.T, s Store) {
	ids := []string{
		"abc_-XYZ012",
		"ABC_-xyz012", // differs from the first only in case
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123", // 40 characters
		"a'b\"c;--%_*",
		"spaces in id ",
		"ünïcødé/🙂",
	}
	for _, id := range ids {
		put(t, s, id, []byte("body of "+id))
	}
	for _, id := range ids {
		if got, want := get(t, s, id), "body of "+id; string(got) != want {
			t.Errorf("GetScenario(%q) = %q, want %q", id, got, want)
		}
	}
}
