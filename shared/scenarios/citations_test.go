package scenarios

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPrivateCitations keeps the product's text standing alone: the team's
// private domain notes are not shipped, so no source, document or comment
// may send a reader to them. Cite the published source instead.
func TestNoPrivateCitations(t *testing.T) {
	needle := strings.ToLower("DOMAIN" + ".md") // written in two parts so that this file passes
	root := filepath.Join("..", "..")
	skip := map[string]bool{".git": true, "node_modules": true, "bin": true, "data": true, "build": true}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".json", ".templ", ".js", ".html":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(strings.ToLower(line), needle) {
				t.Errorf("%s:%d cites the private domain notes; cite the published source instead:\n\t%s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files under %s; is the walk looking at the repository?", checked, root)
	}
}
