// Package sqlstore stores shared scenarios through database/sql in any
// database that speaks SQLite's SQL: a SQLite file (package server/sqlite,
// which opens it and applies the schema), and Cloudflare D1, where package
// server/d1 runs the same statements (PutSQL, GetSQL) through D1's own API.
// The SQL lives here only. The schema is server/sqlite/migrations.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"
)

// The store's two statements, shared with package server/d1, which runs
// them through D1's own API: PutSQL binds id, body and the Unix time;
// GetSQL binds id and reads body.
const (
	PutSQL = `INSERT INTO scenarios(id, body, created_at) VALUES(?, ?, ?) ON CONFLICT(id) DO NOTHING`
	GetSQL = `SELECT body FROM scenarios WHERE id = ?`
)

// A Store keeps shared scenarios in the table scenarios(id, body,
// created_at). It keeps the contract of server.Store (checked by
// server/storetest) and is safe for concurrent use.
type Store struct {
	read, write *sql.DB
	writeError  func(error) error
}

// New returns a store that reads through read and writes through write,
// which may be the same *sql.DB. A nil write makes a read-only store, whose
// writes fail with an error wrapping syscall.EROFS. writeError, when not
// nil, tells apart a driver's errors of a write that say the database cannot
// take writes now (wrapping them with syscall.ENOSPC, EROFS or EIO).
func New(read, write *sql.DB, writeError func(error) error) *Store {
	if writeError == nil {
		writeError = func(err error) error { return err }
	}
	return &Store{read: read, write: write, writeError: writeError}
}

// PutScenario stores body under id unless id is stored already, in which
// case the first body is kept and PutScenario reports success.
func (s *Store) PutScenario(ctx context.Context, id string, body []byte) error {
	if s.write == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("sqlstore: the database was opened read-only: %w", syscall.EROFS)
	}
	if body == nil {
		body = []byte{} // a nil slice would bind as NULL
	}
	_, err := s.write.ExecContext(ctx, PutSQL, id, body, time.Now().Unix())
	return s.writeError(err)
}

// GetScenario returns the body stored under id. A missing id is reported
// with an *fs.PathError wrapping fs.ErrNotExist.
func (s *Store) GetScenario(ctx context.Context, id string) ([]byte, error) {
	var body []byte
	err := s.read.QueryRowContext(ctx, GetSQL, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &fs.PathError{Op: "get", Path: id, Err: fs.ErrNotExist}
	}
	if err != nil {
		return nil, err
	}
	return body, nil
}

// Count returns the number of stored scenarios.
func (s *Store) Count(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM scenarios`).Scan(&n)
	return n, err
}
