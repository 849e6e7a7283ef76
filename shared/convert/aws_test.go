package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestAWSExportProfile: a strategy from an AWS profile (based on standard
// or adaptive mode, as Import makes them, and named as a profile can be)
// exports to its profile; any other goes to [default], with an info.
func TestAWSExportProfile(t *testing.T) {
	for _, tc := range []struct {
		name, basedOn, header string
		info                  bool
	}{
		{"default", "aws-standard-2026", "[default]", false},
		{"batch", "aws-adaptive", "[profile batch]", false},
		{"prod-eu_1", "aws-standard-2026", "[profile prod-eu_1]", false},
		{"C", "", "[default]", true},
		{"batch (2)", "aws-standard-2026", "[default]", true},
		{"a]b", "aws-standard-2026", "[default]", true},
		{"", "aws-standard-2026", "[default]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := engine.Strategy{Name: tc.name, Policy: awsStandard(4)}
			st.BasedOn = tc.basedOn
			out, notes, err := Export(AWS, st)
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := strings.Cut(string(out), "\n"); got != tc.header {
				t.Errorf("section %q, want %q\n%s", got, tc.header, out)
			}
			n, ok := noteAt(notes, "")
			if ok != tc.info || ok && (n.Level != Info || !strings.Contains(n.Message, "[profile NAME]")) {
				t.Errorf("note %v (found %v), want an info on the [default] profile: %v", n, ok, tc.info)
			}
		})
	}
}

// TestAWSRoundTripProfiles: every profile of a real config file exports
// to its own section, which imports to the same strategy, name included.
func TestAWSRoundTripProfiles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "import", "aws-sdkref.ini"))
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(AWS, data)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, st := range im.Strategies {
		out, _, err := Export(AWS, st)
		if err != nil {
			t.Fatal(err)
		}
		want := "[profile " + st.Name + "]"
		if st.Name == "default" {
			want = "[default]"
		}
		if !strings.HasPrefix(string(out), want+"\n") {
			t.Errorf("%s exports as\n%s", st.Name, out)
		}
		all.Write(out)
	}
	// The sections together are one file of the same profiles.
	again, err := Import(AWS, []byte(all.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Strategies) != len(im.Strategies) {
		t.Fatalf("%d strategies imported again, not %d:\n%s", len(again.Strategies), len(im.Strategies), all.String())
	}
	for i, st := range again.Strategies {
		if st.Name != im.Strategies[i].Name || st.MaxAttempts != im.Strategies[i].MaxAttempts || st.BasedOn != im.Strategies[i].BasedOn {
			t.Errorf("profile %d imported again as %q (%d attempts, %s), not %q (%d, %s)", i, st.Name, st.MaxAttempts, st.BasedOn,
				im.Strategies[i].Name, im.Strategies[i].MaxAttempts, im.Strategies[i].BasedOn)
		}
	}
}

// TestAWSInvalidProfileLeftOut: the SDKs load a shared config file whose
// one profile is invalid and fail only when that profile is used: the
// others import, and a warning names the one left out and why; a file
// whose every profile is invalid is refused.
func TestAWSInvalidProfileLeftOut(t *testing.T) {
	doc := "[default]\nretry_mode = standard\nmax_attempts = 4\n\n[profile broken]\nretry_mode = fast\n\n[profile batch]\nmax_attempts = 8\nretry_mode = standard\n"
	im, err := Import(AWS, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range im.Strategies {
		names = append(names, st.Name)
	}
	if strings.Join(names, ",") != "default,batch" {
		t.Errorf("imported %v; want default and batch", names)
	}
	warned := false
	for _, n := range im.Notes {
		warned = warned || n.Level == Warning && n.Path == "[profile broken]" && strings.Contains(n.Message, `"fast" is not a retry mode`)
	}
	if !warned {
		t.Errorf("no warning naming [profile broken]: %v", im.Notes)
	}
	if _, err := Import(AWS, []byte("[profile broken]\nretry_mode = fast\n")); err == nil || !strings.Contains(err.Error(), `[profile broken].retry_mode: "fast" is not a retry mode`) {
		t.Errorf("a file of one invalid profile: %v", err)
	}
}

// TestAWSInlineCommentAndLongName: a comment after a value, past a space,
// is not the value's, a '#' inside one is; a profile's name over the
// limit is cut to leave room for " (N)".
func TestAWSInlineCommentAndLongName(t *testing.T) {
	long := strings.Repeat("p", engine.MaxStrategyName)
	im, err := Import(AWS, []byte("[profile "+long+"]\nretry_mode = standard ; the SDK's\nmax_attempts = 4 # four\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := im.Strategies[0].MaxAttempts; got != 4 {
		t.Errorf("max_attempts = 4 # four: imported %d", got)
	}
	if got := im.Strategies[0].Name; got != long[:engine.MaxStrategyName-8] {
		t.Errorf("a name of %d characters imported as one of %d", len(long), len(got))
	}
	if _, err := Import(AWS, []byte("[default]\nretry_mode = standard\nmax_attempts = 4#four\n")); err == nil || !strings.Contains(err.Error(), "max_attempts") {
		t.Errorf("max_attempts = 4#four: %v", err)
	}
}
