package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const source = `package p

func f(a, b int, s []int) int {
	n := -a
	for i := 0; i < len(s); i++ {
		n += s[i] * b
	}
	switch {
	case a == b:
		return 1
	}
	g := func() bool { return a%b != 0 }
	_ = g
	return n
}
`

func TestFileMutants(t *testing.T) {
	ms, err := FileMutants("p.go", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s@%d:%d", m, m.CoverLine, m.CoverCol))
	}
	want := []string{
		"p.go:4:7 -x → +x@4:7",
		"p.go:5:16 < → <=@5:16", "p.go:5:16 < → >=@5:16",
		"p.go:5:27 ++ → --@5:27",
		"p.go:6:13 * → /@6:13",
		// A case's condition is looked up where its switch is.
		"p.go:9:9 == → !=@8:2",
		// A function literal's own place.
		"p.go:12:29 % → *@12:29", "p.go:12:32 != → ==@12:32",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := string(Apply([]byte(source), ms[0])); !strings.Contains(m, "n := +a") {
		t.Errorf("Apply(%s) =\n%s", ms[0], m)
	}
	if m := string(Apply([]byte(source), ms[2])); !strings.Contains(m, "i >= len(s)") {
		t.Errorf("Apply(%s) =\n%s", ms[2], m)
	}
}

func TestCoverage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.out")
	profile := "mode: set\nexample.com/p/p.go:3.33,5.31 2 1\nexample.com/p/p.go:5.31,7.3 1 0\n"
	if err := os.WriteFile(path, []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line, col int
		want      bool
	}{{3, 32, false}, {3, 33, true}, {5, 30, true}, {5, 31, false}, {6, 5, false}} {
		if got := c.ran("p.go", tc.line, tc.col); got != tc.want {
			t.Errorf("ran(%d:%d) = %v, want %v", tc.line, tc.col, got, tc.want)
		}
	}
}

func TestDraw(t *testing.T) {
	ms := make([]Mutant, 50)
	for i := range ms {
		ms[i].Offset = i
	}
	offsets := func(ms []Mutant) (o []int) {
		for _, m := range ms {
			o = append(o, m.Offset)
		}
		return o
	}
	a, b := draw(ms, 10, 7), draw(ms, 10, 7)
	if fmt.Sprint(offsets(a)) != fmt.Sprint(offsets(b)) || len(a) != 10 {
		t.Fatalf("draws differ or are not 10 long: %v %v", a, b)
	}
	seen := map[int]bool{}
	for _, m := range a {
		if seen[m.Offset] {
			t.Fatalf("draw repeats %d: %v", m.Offset, offsets(a))
		}
		seen[m.Offset] = true
	}
	if fmt.Sprint(offsets(draw(ms, 3, 7))) != fmt.Sprint(offsets(a[:3])) {
		t.Errorf("the first 3 of 10 drawn, %v, are not what a draw of 3 gives, %v", offsets(a[:3]), offsets(draw(ms, 3, 7)))
	}
	if fmt.Sprint(offsets(draw(ms, 10, 8))) == fmt.Sprint(offsets(a)) {
		t.Error("seed 8 drew what seed 7 drew")
	}
	for _, n := range []int{0, 50, 60} {
		all := offsets(draw(ms, n, 1))
		if fmt.Sprint(all) == fmt.Sprint(offsets(ms)) {
			t.Errorf("n of %d returns every mutant in file order: ^C would leave the first files, not a sample", n)
		}
		slices.Sort(all)
		if fmt.Sprint(all) != fmt.Sprint(offsets(ms)) {
			t.Errorf("n of %d: %v is not every mutant once", n, all)
		}
	}
}

// Wilson's interval for 90 of 100 is 82.6%–94.5% (Wilson 1927, as every
// table of it gives).
func TestWilson(t *testing.T) {
	lo, hi := Wilson(90, 100)
	if math.Abs(lo-0.8257) > 5e-4 || math.Abs(hi-0.9448) > 5e-4 {
		t.Errorf("Wilson(90, 100) = %.4f, %.4f, want 0.8257, 0.9448", lo, hi)
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = %v, %v", lo, hi)
	}
}

// TestRunMutant runs the fixture's tests on its mutants: a flipped bound
// the test never reaches lives, + on strings does not compile (and says
// why), a loop that never ends times out, the others are killed.
func TestRunMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the fixture once per mutant")
	}
	dir := filepath.Join("testdata", "clamp")
	src, err := os.ReadFile(filepath.Join(dir, "clamp.go"))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := FileMutants("clamp.go", src)
	if err != nil {
		t.Fatal(err)
	}
	const hangs = "clamp.go:22:22 ++ → --" // i++ made i--: the only mutant given a short limit, as it never ends however loaded the machine
	var got []string
	for i, m := range ms {
		limit := 10 * time.Minute
		if m.String() == hangs {
			limit = time.Second
		}
		st, why := runMutant(dir, t.TempDir(), i, m, src, limit, nil)
		got = append(got, fmt.Sprintf("%s %s", m, st))
		if st == NotViable && !strings.HasPrefix(why, "clamp.go:17:") {
			t.Errorf("%s: not viable, and the reason %q does not start with its place in clamp.go", m, why)
		}
		if st != NotViable && why != "" {
			t.Errorf("%s: %s with a reason, %q", m, st, why)
		}
	}
	want := []string{
		"clamp.go:7:7 < → <= LIVED", "clamp.go:7:7 < → >= KILLED",
		"clamp.go:10:7 > → >= LIVED", "clamp.go:10:7 > → <= KILLED",
		"clamp.go:17:50 + → - NOT VIABLE",
		"clamp.go:22:16 < → <= KILLED", "clamp.go:22:16 < → >= KILLED",
		"clamp.go:22:22 ++ → -- TIMED OUT",
		"clamp.go:23:4 ++ → -- KILLED",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Unmutated, the fixture's tests pass.
	bin := filepath.Join(t.TempDir(), "clamp.test")
	if out, err := compile(dir, "", bin); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runTests(context.Background(), dir, bin, nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestSummary: the efficacy counts the timed out as killed and leaves
// the not viable out; each file's line, and the survivors in file order.
func TestSummary(t *testing.T) {
	m := func(file string, offset int) Mutant {
		return Mutant{File: file, Offset: offset, Line: offset, Col: 1, From: "<", To: "<="}
	}
	ms := []Mutant{m("b.go", 9), m("a.go", 5), m("b.go", 2), m("a.go", 1), m("a.go", 3), m("b.go", 4)}
	st := []Status{Lived, Killed, Lived, TimedOut, NotViable, Killed}
	want := `
killed 3 (timed out 1), lived 2, not viable 1
efficacy 60.0%, 95% interval 23.1%–88.2%
  a.go                     killed   2  lived   0
  b.go                     killed   1  lived   2
LIVED      b.go:2:1 < → <=
LIVED      b.go:9:1 < → <=
`
	if got := Summary(ms, st); got != want {
		t.Errorf("Summary:\n%s\nwant:\n%s", got, want)
	}
}
