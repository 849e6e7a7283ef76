// What each client may make the server compute. Answers already at hand
// (cached results, pages, charts) cost nothing; work a request starts
// costs its client the time it holds a core: a run or a probe the time it
// holds a run slot, an answer built from a result (a page, a chart, a PNG,
// a CSV) the time its building took, less what it waited for runs. Each
// client earns Config.SpendRate core-seconds a second, up to
// Config.SpendBurst; a run or probe is refused with 429 and Retry-After
// when its client could not pay for its whole timeout (it reserves that
// much, and gets back what it did not use), an answer to build when its
// client owes time. GETs and POSTs alike: a GET that computes is no
// cheaper than a POST.

package server

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A spending keeps each client's account of core time.
type spending struct {
	rate  float64       // core-seconds a client earns a second; 0: no limit
	burst time.Duration // the most a client may hold
	now   func() time.Time

	mu       sync.Mutex
	accounts *lru[*account] // a forgotten account is a full one
}

// An account is what a client has: balance at the time at (refilled as
// it is read), negative when the client owes.
type account struct {
	balance time.Duration
	at      time.Time
}

// maxAccounts is how many clients' accounts are kept: past it the least
// recently seen are forgotten (as full accounts, which they soon would be).
const maxAccounts = 1 << 16

func newSpending(rate float64, burst time.Duration, now func() time.Time) *spending {
	return &spending{rate: rate, burst: burst, now: now,
		accounts: newLRU(maxAccounts, maxAccounts*64, 64, func(*account) int64 { return 48 })}
}

// An overspentError refuses work a client cannot pay for yet: it needs
// need and has have; in wait it will have earned enough.
type overspentError struct {
	need, have, wait time.Duration
	burst            time.Duration
	rate             float64
}

func (e *overspentError) Error() string {
	msg := fmt.Sprintf("this address has used the computing time the server gives one client (%s at once, then %.0f%% of a core)", e.burst, 100*e.rate)
	if e.need > 0 {
		msg += fmt.Sprintf(": the work asked for may take %s and %s is left", e.need, max(e.have, 0).Round(time.Millisecond))
	}
	return msg + "; answers already computed are still served, and the playground runs anything in your browser"
}

// get returns client's account, refilled to now, under s.mu.
func (s *spending) get(client string) *account {
	now := s.now()
	a, ok := s.accounts.get(client)
	if !ok {
		a = &account{balance: s.burst, at: now}
		s.accounts.put(client, a)
	}
	if earned := time.Duration(float64(now.Sub(a.at)) * s.rate); earned > 0 {
		a.balance = min(a.balance+earned, s.burst)
	}
	a.at = now
	return a
}

// reserve takes need from client's account for work that may take that
// long, or refuses it when the account holds less; settle, called once
// the work is done, gives back what it did not use. A request without a
// client (the server's own) and a spending without a rate pay nothing.
func (s *spending) reserve(client string, need time.Duration) (settle func(used time.Duration), err error) {
	if s == nil || s.rate <= 0 || client == "" {
		return func(time.Duration) {}, nil
	}
	need = max(need, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.get(client)
	if a.balance < need {
		return nil, &overspentError{need: need, have: a.balance, wait: s.waitFor(need - a.balance), burst: s.burst, rate: s.rate}
	}
	a.balance -= need
	var once sync.Once
	return func(used time.Duration) {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			a := s.get(client)
			a.balance = min(a.balance+need-min(max(used, 0), need), s.burst)
		})
	}, nil
}

// ready refuses work of unknown length (an answer to build) while client
// owes time; charge then takes what it used.
func (s *spending) ready(client string) error {
	if s == nil || s.rate <= 0 || client == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.get(client); a.balance <= 0 {
		return &overspentError{have: a.balance, wait: s.waitFor(-a.balance + time.Millisecond), burst: s.burst, rate: s.rate}
	}
	return nil
}

// charge takes used from client's account.
func (s *spending) charge(client string, used time.Duration) {
	if s == nil || s.rate <= 0 || client == "" || used <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.get(client).balance -= used
}

// waitFor is how long a client waits to earn d.
func (s *spending) waitFor(d time.Duration) time.Duration {
	return max(time.Second, time.Duration(float64(d)/s.rate).Round(time.Second))
}

// A request's client and the time it waited for runs it did not start,
// kept in its context: the spending charges the client, and an answer's
// building is charged without its waits.
type requestWork struct {
	client string
	mu     sync.Mutex
	waited time.Duration
}

type workKey struct{}

// withClient returns ctx carrying client's work account.
func withClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, workKey{}, &requestWork{client: client})
}

// workOf returns the request's work in ctx, or nil for the server's own.
func workOf(ctx context.Context) *requestWork {
	w, _ := ctx.Value(workKey{}).(*requestWork)
	return w
}

// clientOf is the client of the request in ctx, "" for the server's own.
func clientOf(ctx context.Context) string {
	if w := workOf(ctx); w != nil {
		return w.client
	}
	return ""
}

// waitedFor records, in the request in ctx, time spent waiting for work
// that is paid for already (a run or probe, by whoever started it).
func waitedFor(ctx context.Context, d time.Duration) {
	if w := workOf(ctx); w != nil {
		w.mu.Lock()
		w.waited += d
		w.mu.Unlock()
	}
}

// waitedSoFar is the time the request in ctx has waited for runs.
func waitedSoFar(ctx context.Context) time.Duration {
	if w := workOf(ctx); w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.waited
	}
	return 0
}
