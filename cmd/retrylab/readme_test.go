package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"unicode"
)

var update = flag.Bool("update", false, "rewrite docs/images/e03b.svg instead of comparing with it")

// TestREADMEChart: the README's picture is what retrylab chart draws.
func TestREADMEChart(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "images", "e03b.svg")
	code, out, errs := run(t, "", "chart", "e03b-synchronized-recovery", "--theme", "light")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out {
		os.WriteFile(path+".actual", []byte(out), 0o644)
		t.Errorf("%s is not what retrylab chart draws now; the output is in %s.actual (go test -run TestREADMEChart -update accepts it)", path, path)
	}
}

// TestREADMETour runs the README's five-minute tour: the gRPC service
// config it shows is written to service.json, then every "$ retrylab"
// line of its shell blocks runs in order in one directory, and what the
// README shows under a line (up to the next one or the block's end) must
// be what the line prints. A line may write its output to a file
// ("> FILE") or keep the lines grep keeps ("| grep 'RE'", "| grep -E
// 'RE'"); the tour's file names are the directory's.
func TestREADMETour(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	blocks := fencedBlocks(string(data))
	var config string
	for _, b := range blocks {
		if b.lang == "json" && strings.Contains(b.text, "methodConfig") {
			config = b.text
			break
		}
	}
	if config == "" {
		t.Fatal("the README shows no gRPC service config")
	}
	if err := os.WriteFile(filepath.Join(dir, "service.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		lines := strings.Split(strings.TrimRight(b.text, "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			cmd, ok := strings.CutPrefix(lines[i], "$ retrylab ")
			if !ok {
				continue
			}
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "$ ") {
				j++
			}
			want := strings.Join(lines[i+1:j], "\n")
			got := tourLine(t, dir, cmd)
			if strings.TrimRight(got, "\n") != want {
				t.Errorf("$ retrylab %s\nprints\n%s\nthe README shows\n%s", cmd, got, want)
			}
			ran++
			i = j - 1
		}
	}
	if ran < 5 {
		t.Errorf("the tour ran %d lines; the README's tour has at least 5", ran)
	}
}

// tourLine runs one line of the tour in dir and returns what it prints.
func tourLine(t *testing.T, dir, line string) string {
	t.Helper()
	words := shellWords(t, line)
	var keep *regexp.Regexp
	var to string
	for k := 0; k < len(words); k++ {
		switch words[k] {
		case ">":
			to, words = words[k+1], append(words[:k:k], words[k+2:]...)
			k--
		case "|":
			rest := words[k+1:]
			if len(rest) == 3 && rest[0] == "grep" && rest[1] == "-E" {
				rest = rest[1:]
			}
			if len(rest) < 2 || rest[0] != "grep" && rest[0] != "-E" {
				t.Fatalf("%q: the tour pipes only into grep 'RE' or grep -E 'RE'", line)
			}
			keep = regexp.MustCompile(rest[len(rest)-1])
			words = words[:k]
		}
	}
	for k, w := range words {
		if !strings.HasPrefix(w, "-") && strings.HasSuffix(w, ".json") {
			words[k] = filepath.Join(dir, w)
		}
	}
	var out, errb bytes.Buffer
	if code := cli(context.Background(), words, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("$ retrylab %s: exit %d: %s", line, code, errb.String())
	}
	if to != "" {
		if err := os.WriteFile(filepath.Join(dir, to), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return ""
	}
	if keep == nil {
		return out.String()
	}
	var kept []string
	for _, l := range strings.Split(out.String(), "\n") {
		if keep.MatchString(l) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// shellWords splits a line as sh does for the tour's lines: words apart by
// spaces, quoted with '...' or "..." (no escapes within).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("%q: an unclosed quote", line)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// A block is a fenced code block of Markdown: its info string's language
// and its lines, without the indentation of its fence.
type block struct{ lang, text string }

// fencedBlocks returns the fenced code blocks of a Markdown document.
func fencedBlocks(doc string) []block {
	var out []block
	var cur *block
	indent := ""
	for _, l := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "```") {
			if cur == nil {
				indent = l[:len(l)-len(trimmed)]
				cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
				continue
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur != nil {
			cur.text += strings.TrimPrefix(l, indent) + "\n"
		}
	}
	return out
}
