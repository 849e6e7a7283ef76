package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrylab/retrylab/server/sqlite"
)

// TestCrashKeepsAcknowledgedWrites runs the real binary, shares scenarios
// from several goroutines, kills the server with SIGKILL while POSTs are in
// flight, and restarts it on the same database: every scenario the first
// server acknowledged with 201 must be served by the second, and the file
// must pass SQLite's integrity check.
//
// The POST rate limit (2/s, burst 20 per client IP) is not configurable from
// the command line and every request comes from 127.0.0.1, so the test gets
// about 20 acknowledged writes in its first second and a few more after;
// workers back off for 5 ms on a 429 so as not to spin, which still keeps
// requests on the wire when the kill comes.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGKILL and SIGTERM")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	dbPath := filepath.Join(dir, "db", "retrylab.db")

	// First life: share, then crash mid-flight.
	srv := startServer(t, bin, dbPath)
	acked, stats := postUntilKilled(t, srv, 8, 1500*time.Millisecond, 4000)
	t.Logf("first server: %d acknowledged (201), %d rate-limited (429), %d transport errors, %d other statuses; %d requests in flight at SIGKILL",
		len(acked), stats.limited, stats.transportErrs, stats.other, stats.inFlightAtKill)
	if stats.other > 0 {
		t.Errorf("%d POSTs got a status other than 201 or 429 (last: %s)\n%s", stats.other, stats.lastOther, srv.stderrTail())
	}
	if len(acked) < 10 {
		t.Fatalf("only %d acknowledged writes before the kill, want at least 10\nserver stderr (tail):\n%s", len(acked), srv.stderrTail())
	}

	// Second life: everything acknowledged is there.
	srv = startServer(t, bin, dbPath)
	client := loopbackClient()
	missing := 0
	for id, name := range acked {
		if err := checkScenario(t.Context(), client, srv.base, id, name); err != nil {
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged scenario %s (%q) after restart: %v", id, name, err)
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged scenarios lost or wrong after SIGKILL and restart\nserver stderr (tail):\n%s", missing, len(acked), srv.stderrTail())
	}
	srv.stop(t)

	// The file itself is sound and holds at least what was acknowledged.
	ctx := t.Context()
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatalf("reopening the database after the crash: %v", err)
	}
	defer db.Close()
	if err := db.IntegrityCheck(ctx); err != nil {
		t.Errorf("after SIGKILL and restart: %v", err)
	}
	n, err := db.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n < len(acked) {
		t.Errorf("database holds %d scenarios, want at least the %d acknowledged", n, len(acked))
	}
}

// buildBinary builds the retrylab command (the package in the test's
// working directory) into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	goTool := os.Getenv("GO")
	if goTool == "" {
		p, err := exec.LookPath("go")
		if err != nil {
			t.Skipf("no go command to build the binary with: %v", err)
		}
		goTool = p
	}
	bin := filepath.Join(dir, "retrylab")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// syncBuffer is a bytes.Buffer safe to write from exec's copying goroutine
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A child is a running "retrylab serve".
type child struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	stderr *syncBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's answer, set before done closes
}

// startServer starts the binary on a free loopback port and waits until
// /healthz answers. The process is killed when the test ends if it is
// still running.
func startServer(t *testing.T, bin, dbPath string) *child {
	t.Helper()
	port := freePort(t)
	c := &child{
		base:   fmt.Sprintf("http://127.0.0.1:%d", port),
		stderr: &syncBuffer{},
		done:   make(chan struct{}),
	}
	c.cmd = exec.Command(bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--db", dbPath)
	// Take client IPs from the connection whatever the environment says.
	c.cmd.Env = append(os.Environ(), "RETRYLAB_TRUST_PROXY=", "RETRYLAB_ADDR=", "RETRYLAB_DB=")
	c.cmd.Stdout = c.stderr
	c.cmd.Stderr = c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			c.cmd.Process.Kill()
			<-c.done
		}
	})

	client := loopbackClient()
	deadline := time.Now().Add(2 * time.Minute) // a bound for a broken start, not a speed test
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			t.Fatalf("server exited before answering /healthz: %v\nserver stderr (tail):\n%s", c.err, c.stderrTail())
		default:
		}
		resp, err := client.Get(c.base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		lastErr = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server at %s did not answer /healthz within 2 minutes (last: %v)\nserver stderr (tail):\n%s", c.base, lastErr, c.stderrTail())
	return nil
}

// stderrTail returns the last lines the server wrote.
func (c *child) stderrTail() string {
	const maxLines, maxBytes = 40, 8 << 10
	s := c.stderr.String()
	if len(s) > maxBytes {
		s = s[len(s)-maxBytes:]
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(nothing)"
	}
	return strings.Join(lines, "\n")
}

// kill sends SIGKILL and waits for the process to go.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		t.Fatal("server still running a minute after SIGKILL")
	}
}

// stop sends SIGTERM and expects a graceful exit with status 0.
func (c *child) stop(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-c.done:
		if c.err != nil {
			t.Errorf("server exit after SIGTERM: %v\nserver stderr (tail):\n%s", c.err, c.stderrTail())
		}
	case <-time.After(2 * time.Minute):
		c.cmd.Process.Kill()
		<-c.done
		t.Fatalf("server did not exit within 2 minutes of SIGTERM\nserver stderr (tail):\n%s", c.stderrTail())
	}
}

// loopbackClient is an HTTP client that never uses a proxy.
func loopbackClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

func crashScenario(name string) []byte {
	return fmt.Appendf(nil, `{"version":1,"name":%q,"workload":{"clients":1,"arrival":"burst"},`+
		`"dependency":{"workers":1,"service_time":{"kind":"constant","mean":"1ms"},"queue_capacity":0},`+
		`"strategies":[{"name":"s","max_attempts":1}]}`, name)
}

type postStats struct {
	limited, transportErrs, other, inFlightAtKill int64
	lastOther                                     string
}

// postUntilKilled shares distinct scenarios from workers goroutines until
// after has passed or maxRequests have been started, then kills the server
// with SIGKILL while the workers are still sending, and returns the IDs
// acknowledged with 201 and the names posted under them.
func postUntilKilled(t *testing.T, srv *child, workers int, after time.Duration, maxRequests int64) (map[string]string, *postStats) {
	t.Helper()
	client := loopbackClient()
	var (
		mu        sync.Mutex
		acked     = map[string]string{}
		stats     postStats
		started   atomic.Int64
		inFlight  atomic.Int64
		killed    atomic.Bool
		wg        sync.WaitGroup
		exhausted = make(chan struct{})
		once      sync.Once
	)
	for w := range workers {
		wg.Go(func() {
			for !killed.Load() {
				n := started.Add(1)
				if n > maxRequests {
					once.Do(func() { close(exhausted) })
					return
				}
				name := fmt.Sprintf("crash-%d-%d", w, n)
				inFlight.Add(1)
				resp, err := client.Post(srv.base+"/api/scenarios", "application/json", bytes.NewReader(crashScenario(name)))
				if err != nil {
					inFlight.Add(-1)
					mu.Lock()
					stats.transportErrs++
					mu.Unlock()
					if killed.Load() {
						return
					}
					time.Sleep(10 * time.Millisecond)
					continue
				}
				body, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				inFlight.Add(-1)
				mu.Lock()
				switch {
				case rerr != nil:
					// Cut off mid-answer: not acknowledged.
					stats.transportErrs++
				case resp.StatusCode == http.StatusCreated:
					var r struct{ ID string }
					if err := json.Unmarshal(body, &r); err != nil || r.ID == "" {
						stats.other++
						stats.lastOther = fmt.Sprintf("201 with body %q", body)
					} else {
						acked[r.ID] = name
					}
				case resp.StatusCode == http.StatusTooManyRequests:
					stats.limited++
				default:
					stats.other++
					stats.lastOther = fmt.Sprintf("%s: %s", resp.Status, body)
				}
				mu.Unlock()
				if resp.StatusCode == http.StatusTooManyRequests {
					time.Sleep(5 * time.Millisecond) // don't spin against the limiter
				}
			}
		})
	}

	select {
	case <-time.After(after):
	case <-exhausted:
	}
	// Pull the plug at a moment when requests are on the wire, if one comes
	// within a second.
	for wait := time.Now().Add(time.Second); inFlight.Load() < 2 && time.Now().Before(wait); {
		time.Sleep(100 * time.Microsecond)
	}
	mu.Lock()
	stats.inFlightAtKill = inFlight.Load()
	mu.Unlock()
	srv.kill(t)
	killed.Store(true)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	return acked, &stats
}

// checkScenario fetches /api/scenarios/{id} and checks that it is the
// scenario named name.
func checkScenario(ctx context.Context, client *http.Client, base, id, name string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/scenarios/"+id, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET status %s, body %.200q", resp.Status, body)
	}
	var got struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("body is not JSON: %v: %.200q", err, body)
	}
	if got.Name == nil {
		return errors.New("stored scenario has no name")
	}
	if *got.Name != name {
		return fmt.Errorf("stored name %q, posted %q", *got.Name, name)
	}
	return nil
}

// TestShutdownStopsTheWorkRequestsWaitFor: SIGTERM while a request waits
// for a probe (seconds of work, 20 s of timeout) stops the probe and ends
// the process gracefully, with status 0, instead of holding shutdown until
// the probe's timeout and exiting with an error.
func TestShutdownStopsTheWorkRequestsWaitFor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGTERM")
	}
	dir := t.TempDir()
	srv := startServer(t, buildBinary(t, dir), filepath.Join(dir, "db", "retrylab.db"))
	client := loopbackClient()
	probe := make(chan error, 1)
	go func() {
		resp, err := client.Get(srv.base + "/api/scenarios/metadata-storm/probe?at=61s")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		probe <- err
	}()
	// The probe holds a run slot once retrylab_runs_running says 1.
	for {
		resp, err := client.Get(srv.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "\nretrylab_runs_running 1") {
			break
		}
		select {
		case err := <-probe:
			t.Fatalf("the probe ended before shutdown (%v): pick a longer one\n%s", err, srv.stderrTail())
		default:
		}
	}
	srv.stop(t)
	if err := <-probe; strings.Contains(err.Error(), "status 200") {
		t.Errorf("the probe ran to its end after SIGTERM (%v); want it stopped", err)
	}
	if !strings.Contains(srv.stderr.String(), `"msg":"shutting down"`) || strings.Contains(srv.stderr.String(), "closing the connections still open") {
		t.Errorf("shutdown was not graceful:\n%s", srv.stderrTail())
	}
}
