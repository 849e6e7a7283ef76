// Command mutants measures a package's mutation efficacy on a uniform
// random sample of its covered mutants, for packages whose tests take too
// long to run once per mutant (shared/engine: ~4,000 mutants against
// 10–30 s of tests).
//
//	mutants [-n 300] [-seed 1] [-workers 1] [-timeout 5] [-files RE] ./shared/engine [go test flags]
//
// It makes the mutants gremlins v0.5.0 makes by default (docs/
// CONTRIBUTING.md, "Mutation testing"): a comparison's boundary (< and <=,
// > and >=) or its negation (== and !=, < and >=, > and <=), an
// arithmetic operator (+ and -, * and /, % to *), ++ and --, and a unary
// minus dropped. A mutant is covered when a test runs its statement: the
// package's tests run once with -coverprofile, and a mutant counts when a
// block that ran holds it; the condition of a switch case, which no block
// holds, counts when its switch ran.
//
// It then draws -n of the covered mutants (all of them, shuffled, when -n
// is 0 or larger than their number), with a PCG seeded by -seed so that
// the same covered mutants (the same code, tests and flags: the first line
// printed names them by a hash) give the same sample, and in the order
// drawn, so that an interrupt (^C) leaves a smaller sample and its
// summary, and -from k goes on with a sample whose first k a run of -n k
// tested (add up both summaries), and runs the package's tests on each
// through go test's -overlay, which compiles the mutated file in place of
// the real one and leaves the working tree alone. The sources are read
// once, at the start: an edit during the run changes nothing. The flags
// after the package are the test binary's (-short, -skip, -run, as go test
// takes them), never build flags, and reach every run. Each mutant is
//
//	KILLED      a test failed
//	TIMED OUT   the tests ran -timeout times as long as unmutated (10 s
//	            at least), and twice that on a second try: killed
//	LIVED       every test passed
//	NOT VIABLE  it does not compile (+ on strings made -): left out, the
//	            compiler's first line beside it
//
// and efficacy is killed / (killed + lived), the timed out among the
// killed, with its 95% Wilson score interval: the range the efficacy of
// every covered mutant lies in, 19 samples in 20. A file's own line counts
// its mutants in the sample only, too few for an interval.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mutants: ")
	n := flag.Int("n", 300, "how many covered mutants to run, drawn at random (0: all)")
	seed := flag.Uint64("seed", 1, "the seed of the draw")
	workers := flag.Int("workers", 1, "mutants tested at once")
	coef := flag.Float64("timeout", 5, "a mutant whose tests run this many times as long as unmutated has timed out (more than 1)")
	files := flag.String("files", "", "mutate only the files whose names match this regular expression")
	dry := flag.Bool("dry-run", false, "count the mutants and draw the sample, run none")
	from := flag.Int("from", 0, "skip the first `k` mutants drawn: go on with a sample a run of -n k already tested")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutants [flags] PACKAGE-DIR [go test flags]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	dir, testArgs := flag.Arg(0), flag.Args()[1:]
	for _, c := range []struct {
		name  string
		bad   bool
		value any
		allow string
	}{
		{"-n", *n < 0, *n, "0 (every covered mutant) or more"},
		{"-from", *from < 0, *from, "0 or more"},
		{"-workers", *workers < 1, *workers, "1 or more"},
		{"-timeout", !(*coef > 1), *coef, "more than 1 (a multiple of the unmutated tests' time; go test's -timeout 0 has no equivalent here)"},
	} {
		if c.bad {
			log.Fatalf("%s %v is out of range; allowed %s", c.name, c.value, c.allow)
		}
	}
	var only *regexp.Regexp
	if *files != "" {
		var err error
		if only, err = regexp.Compile(*files); err != nil {
			log.Fatalf("-files %q: %v", *files, err)
		}
	}

	tmp, err := os.MkdirTemp("", "mutants-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	// The test binaries run in the package's directory: every path given
	// to them is absolute.
	if tmp, err = filepath.Abs(tmp); err != nil {
		log.Fatal(err)
	}

	profile := filepath.Join(tmp, "cover.out")
	bin := filepath.Join(tmp, "unmutated.test")
	if out, err := compile(dir, "", bin, "-cover"); err != nil {
		log.Fatalf("%s", out)
	}
	coverArgs := append([]string{"-test.coverprofile", profile}, testArgs...)
	start := time.Now()
	if out, err := runTests(context.Background(), dir, bin, coverArgs); err != nil {
		log.Fatalf("the tests fail unmutated:\n%s", out)
	}
	baseline := time.Since(start)
	blocks, err := readProfile(profile)
	if err != nil {
		log.Fatal(err)
	}

	all, sources, err := packageMutants(dir, only)
	if err != nil {
		log.Fatal(err)
	}
	var covered []Mutant
	for _, m := range all {
		if blocks.ran(m.File, m.CoverLine, m.CoverCol) {
			covered = append(covered, m)
		}
	}
	sample := draw(covered, *n, *seed)
	fmt.Printf("%s: %d mutants, %d covered (%s), %d drawn (seed %d); tests unmutated %.1f s\n",
		dir, len(all), len(covered), listHash(covered), len(sample), *seed, baseline.Seconds())
	if *from > 0 {
		sample = sample[min(*from, len(sample)):]
		fmt.Printf("the first %d drawn skipped: %d to test\n", *from, len(sample))
	}
	if *dry {
		for _, m := range sample {
			fmt.Printf("%-10s %s\n", "DRAWN", m)
		}
		return
	}

	// An interrupt stops the run between mutants: the mutants being tested
	// finish, and those tested, the first of the draw and a sample of
	// their own, are summed up. A second interrupt ends it at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// At least 10 s: a package whose tests take milliseconds would
	// otherwise time out on a process's start on a busy machine.
	timeout := max(time.Duration(*coef*float64(baseline)), 10*time.Second)
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		tested  []Mutant
		results []Status
	)
	jobs := make(chan int)
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				m := sample[i]
				st, why := runMutant(dir, tmp, i, m, sources[m.File], timeout, testArgs)
				mu.Lock()
				tested = append(tested, m)
				results = append(results, st)
				if why != "" {
					why = "  " + why
				}
				fmt.Printf("%-10s %s  (%d/%d)%s\n", st, m, len(tested), len(sample), why)
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range sample {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	interrupted := ctx.Err() != nil
	stop()
	wg.Wait()
	if interrupted {
		fmt.Printf("\ninterrupted after %d of %d mutants\n", len(tested), len(sample))
	}
	fmt.Print(Summary(tested, results))
}

// A Mutant is one operator of a file replaced by another.
type Mutant struct {
	File      string // base name, in the package's directory
	Offset    int    // byte offset of the operator
	Line, Col int
	From, To  string
	// CoverLine and CoverCol are where coverage is looked up: the mutant's
	// own place, or its switch's for a case condition.
	CoverLine, CoverCol int
}

func (m Mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s → %s", m.File, m.Line, m.Col, m.From, m.To)
}

// swaps are the default mutations of gremlins v0.5.0, by operator.
var swaps = map[token.Token][]token.Token{
	token.LSS: {token.LEQ, token.GEQ},
	token.LEQ: {token.LSS, token.GTR},
	token.GTR: {token.GEQ, token.LEQ},
	token.GEQ: {token.GTR, token.LSS},
	token.EQL: {token.NEQ},
	token.NEQ: {token.EQL},
	token.ADD: {token.SUB},
	token.SUB: {token.ADD},
	token.MUL: {token.QUO},
	token.QUO: {token.MUL},
	token.REM: {token.MUL},
	token.INC: {token.DEC},
	token.DEC: {token.INC},
}

// packageMutants lists the mutants of every non-test file the default
// build compiles in dir, in file then offset order, and the files'
// sources by base name.
func packageMutants(dir string, only *regexp.Regexp) ([]Mutant, map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []Mutant
	sources := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || (only != nil && !only.MatchString(name)) {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		ms, err := FileMutants(name, src)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, ms...)
		sources[name] = src
	}
	return out, sources, nil
}

// listHash names a list of mutants: two runs that print the same hash
// drew their samples from the same mutants, so -from can go on with one.
func listHash(ms []Mutant) string {
	h := sha256.New()
	for _, m := range ms {
		fmt.Fprintln(h, m)
	}
	return fmt.Sprintf("list %x", h.Sum(nil)[:6])
}

// FileMutants lists the mutants of one Go source file.
func FileMutants(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	// cover is where coverage is looked up while inside a case's condition:
	// its switch, whose header a block holds.
	var cover token.Pos
	add := func(pos token.Pos, from, to string) {
		p, c := fset.Position(pos), fset.Position(pos)
		if cover != token.NoPos {
			c = fset.Position(cover)
		}
		out = append(out, Mutant{File: name, Offset: p.Offset, Line: p.Line, Col: p.Column,
			From: from, To: to, CoverLine: c.Line, CoverCol: c.Column})
	}
	var walk func(n ast.Node) bool
	inspect := func(n ast.Node, at token.Pos) {
		saved := cover
		cover = at
		ast.Inspect(n, walk)
		cover = saved
	}
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			if n.Init != nil {
				ast.Inspect(n.Init, walk)
			}
			if n.Tag != nil {
				ast.Inspect(n.Tag, walk)
			}
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					inspect(e, n.Pos())
				}
				for _, s := range c.(*ast.CaseClause).Body {
					inspect(s, token.NoPos)
				}
			}
			return false
		case *ast.FuncLit:
			// A function literal's body has blocks of its own.
			inspect(n.Body, token.NoPos)
			return false
		case *ast.BinaryExpr:
			for _, to := range swaps[n.Op] {
				add(n.OpPos, n.Op.String(), to.String())
			}
		case *ast.IncDecStmt:
			for _, to := range swaps[n.Tok] {
				add(n.TokPos, n.Tok.String(), to.String())
			}
		case *ast.UnaryExpr:
			if n.Op == token.SUB {
				add(n.OpPos, "-x", "+x")
			}
		}
		return true
	}
	for _, d := range f.Decls {
		ast.Inspect(d, walk)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out, nil
}

// Apply returns src with m's operator replaced.
func Apply(src []byte, m Mutant) []byte {
	from, to := m.From, m.To
	if from == "-x" {
		from, to = "-", "+"
	}
	if !bytes.HasPrefix(src[m.Offset:], []byte(from)) {
		panic(fmt.Sprintf("%s: the source has %q there", m, src[m.Offset:min(len(src), m.Offset+len(from))]))
	}
	out := make([]byte, 0, len(src)+1)
	out = append(out, src[:m.Offset]...)
	out = append(out, to...)
	return append(out, src[m.Offset+len(from):]...)
}

// coverage holds, per file base name, the blocks a test ran.
type coverage map[string][][4]int

func (c coverage) ran(file string, line, col int) bool {
	for _, b := range c[file] {
		after := line > b[0] || line == b[0] && col >= b[1]
		before := line < b[2] || line == b[2] && col < b[3]
		if after && before {
			return true
		}
	}
	return false
}

// readProfile reads a go test -coverprofile file, keeping the blocks that ran.
func readProfile(path string) (coverage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := coverage{}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		// name.go:12.3,14.5 2 1
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 || fields[2] == "0" {
			continue
		}
		var b [4]int
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &b[0], &b[1], &b[2], &b[3]); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path, line, err)
		}
		file := filepath.Base(line[:colon])
		c[file] = append(c[file], b)
	}
	return c, nil
}

// draw returns n of ms at random, in the order drawn, so that the first k
// of them are a sample of k too (all of them, shuffled, when n is 0 or at
// least len(ms)).
func draw(ms []Mutant, n int, seed uint64) []Mutant {
	if n <= 0 || n >= len(ms) {
		n = len(ms)
	}
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]Mutant, n)
	for i, p := range r.Perm(len(ms))[:n] {
		out[i] = ms[p]
	}
	return out
}

// A Status is what the tests did to one mutant.
type Status string

const (
	Killed    Status = "KILLED"
	TimedOut  Status = "TIMED OUT"
	Lived     Status = "LIVED"
	NotViable Status = "NOT VIABLE"
)

// runMutant tests mutant i, m of src (its file as the run read it), in
// tmp, and says why when it is not viable: the compiler's first line.
func runMutant(dir, tmp string, i int, m Mutant, src []byte, timeout time.Duration, testArgs []string) (Status, string) {
	path, err := filepath.Abs(filepath.Join(dir, m.File))
	if err != nil {
		log.Fatal(err)
	}
	mutated := filepath.Join(tmp, strconv.Itoa(i)+"-"+m.File)
	overlay := filepath.Join(tmp, strconv.Itoa(i)+".json")
	bin := filepath.Join(tmp, strconv.Itoa(i)+".test")
	spec, _ := json.Marshal(map[string]map[string]string{"Replace": {path: mutated}})
	if err := os.WriteFile(mutated, Apply(src, m), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(overlay, spec, 0o644); err != nil {
		log.Fatal(err)
	}
	defer os.Remove(mutated)
	defer os.Remove(overlay)
	defer os.Remove(bin)

	// Compiling is not the tests' time: the test binary is built first,
	// without a limit; a mutant that does not build is not viable.
	if out, err := compile(dir, overlay, bin); err != nil {
		// The compiler names the overlay's copy, by an absolute or a
		// relative path: name the file instead.
		why := firstError(out)
		if k := strings.Index(why, filepath.Base(mutated)+":"); k >= 0 {
			why = m.File + why[k+len(filepath.Base(mutated)):]
		}
		return NotViable, why
	}
	// A loaded machine can stretch one run past its limit: a mutant is
	// timed out when a second try, with twice the limit, is too.
	st := testMutant(dir, bin, timeout, testArgs)
	if st == TimedOut {
		st = testMutant(dir, bin, 2*timeout, testArgs)
	}
	return st, ""
}

// testMutant runs a mutant's test binary with a limit of timeout. The
// binary is given a limit of its own past it (-test.timeout), so that it
// ends even when this program dies first (a second ^C).
func testMutant(dir, bin string, timeout time.Duration, testArgs []string) Status {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	own := "-test.timeout=" + (timeout + time.Minute).String()
	_, err := runTests(ctx, dir, bin, append([]string{"-test.failfast", own}, testArgs...))
	switch {
	case ctx.Err() != nil:
		return TimedOut
	case err != nil:
		return Killed
	}
	return Lived
}

// firstError is the first line of a failed build's output that is not
// the "# package" heading go prints above its errors.
func firstError(out []byte) string {
	for line := range strings.Lines(string(out)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return "the build failed without a message"
}

// compile builds dir's test binary into bin, with overlay when it is not
// "" and go test's build flags.
func compile(dir, overlay, bin string, flags ...string) ([]byte, error) {
	a := append([]string{"test", "-c", "-o", bin}, flags...)
	if overlay != "" {
		a = append(a, "-overlay", overlay)
	}
	pkg := filepath.Clean(dir)
	if !filepath.IsAbs(pkg) {
		pkg = "./" + pkg // a relative package path, not an import path
	}
	cmd := exec.Command("go", append(a, pkg)...)
	detach(cmd)
	return cmd.CombinedOutput()
}

// runTests runs a test binary in its package's directory, as go test does,
// with go test's flags written as the binary's (-short as -test.short).
func runTests(ctx context.Context, dir, bin string, args []string) ([]byte, error) {
	a := make([]string, len(args))
	for i, arg := range args {
		if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "-test.") {
			arg = "-test." + strings.TrimLeft(arg, "-")
		}
		a[i] = arg
	}
	cmd := exec.CommandContext(ctx, bin, a...)
	cmd.Dir = dir
	detach(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// Summary says how many of the sample each status took, the efficacy with
// its 95% Wilson interval, and each file's counts and survivors.
func Summary(ms []Mutant, st []Status) string {
	var b strings.Builder
	count := map[Status]int{}
	type tally struct{ killed, lived int }
	byFile := map[string]*tally{}
	var files []string
	for i, s := range st {
		count[s]++
		t := byFile[ms[i].File]
		if t == nil {
			t = &tally{}
			byFile[ms[i].File] = t
			files = append(files, ms[i].File)
		}
		switch s {
		case Killed, TimedOut:
			t.killed++
		case Lived:
			t.lived++
		}
	}
	killed := count[Killed] + count[TimedOut]
	fmt.Fprintf(&b, "\nkilled %d (timed out %d), lived %d, not viable %d\n", killed, count[TimedOut], count[Lived], count[NotViable])
	lo, hi := Wilson(killed, killed+count[Lived])
	fmt.Fprintf(&b, "efficacy %.1f%%, 95%% interval %.1f%%–%.1f%%\n", 100*float64(killed)/float64(max(1, killed+count[Lived])), 100*lo, 100*hi)
	sort.Strings(files)
	for _, f := range files {
		t := byFile[f]
		fmt.Fprintf(&b, "  %-24s killed %3d  lived %3d\n", f, t.killed, t.lived)
	}
	var lived []Mutant
	for i, s := range st {
		if s == Lived {
			lived = append(lived, ms[i])
		}
	}
	sort.Slice(lived, func(i, j int) bool {
		return lived[i].File < lived[j].File || lived[i].File == lived[j].File && lived[i].Offset < lived[j].Offset
	})
	for _, m := range lived {
		fmt.Fprintf(&b, "LIVED      %s\n", m)
	}
	return b.String()
}

// Wilson returns the 95% Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return max(0, c-h), min(1, c+h)
}
