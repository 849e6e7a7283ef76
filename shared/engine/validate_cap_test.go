package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestSweepProblemsStopAtTheCap: a sweep's values are checked one by one
// and each value's problems join the scenario's list, which keeps the
// first MaxErrors and then says, in one entry without a path, how many
// more there were. Each value here breaks two fields, so 25 values fill
// the list exactly and a 26th overflows it by two.
func TestSweepProblemsStopAtTheCap(t *testing.T) {
	sweep := func(n int) string {
		values := strings.TrimSuffix(strings.Repeat(`{"name": "a", "max_attempts": 101, "deadline": "-1s"},`, n), ",")
		return strings.Replace(valid, `"max_attempts": 3}]`, `"max_attempts": 3}], "sweep": {"path": "strategies[0]", "values": [`+values+`]}`, 1)
	}
	for _, tc := range []struct {
		values int
		listed int    // problems with a path
		more   string // the closing entry, "" for none
	}{
		{1, 2, ""},
		{MaxErrors/2 - 1, MaxErrors - 2, ""},
		{MaxErrors / 2, MaxErrors, ""},
		{MaxErrors/2 + 1, MaxErrors, "and 2 more problems; only the first 50 are listed"},
		{MaxErrors/2 + 5, MaxErrors, "and 10 more problems; only the first 50 are listed"},
	} {
		t.Run(fmt.Sprint(tc.values, " values"), func(t *testing.T) {
			_, err := Parse([]byte(sweep(tc.values)))
			es := AsErrors(err)
			want := tc.listed
			if tc.more != "" {
				want++
			}
			if len(es) != want {
				t.Fatalf("%d problems, want %d listed and %q after them:\n%v", len(es), tc.listed, tc.more, err)
			}
			for i, e := range es[:tc.listed] {
				if p := fmt.Sprintf("sweep.values[%d]", i/2); e.Path != p {
					t.Errorf("problem %d is at %q, want %q: %s", i, e.Path, p, e.Error())
				}
			}
			if tc.more != "" {
				if last := es[len(es)-1]; last.Path != "" || last.Message != tc.more {
					t.Errorf("the last entry is %q at %q, want %q without a path", last.Message, last.Path, tc.more)
				}
			}
		})
	}
}
