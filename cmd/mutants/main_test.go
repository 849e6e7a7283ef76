package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
	if len(draw(ms, 0, 1)) != 50 || len(draw(ms, 60, 1)) != 50 {
		t.Error("n of 0, or over the count, should return every mutant")
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
// the test never reaches lives, the others are killed.
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
	got := map[string]Status{}
	for i, m := range ms {
		got[m.From+m.To] = runMutant(dir, t.TempDir(), i, m, 10*time.Minute, nil)
	}
	want := map[string]Status{"<<=": Lived, "<>=": Killed, ">>=": Lived, "><=": Killed}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	// Unmutated, the fixture's tests pass.
	bin := filepath.Join(t.TempDir(), "clamp.test")
	if out, err := compile(dir, "", bin); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runTests(context.Background(), dir, bin, []string{"-run", "TestClamp"}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
