package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamples parses every .tla file of a tlaplus/Examples checkout
// named by TLA_EXAMPLES; it is skipped when the variable is unset, since
// nothing is downloaded at test time.
func TestExamples(t *testing.T) {
	root := os.Getenv("TLA_EXAMPLES")
	if root == "" {
		t.Skip("TLA_EXAMPLES is not set")
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".tla") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Nested modules are outside the supported fragment; every other
	// failure is a parser bug.
	failed, nested := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseModule(f, src); err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("%s: error is %T, not *Error", f, err)
			}
			if strings.HasSuffix(err.Error(), "nested modules are not supported") {
				nested++
				continue
			}
			failed++
			t.Error(err)
		}
	}
	t.Logf("parsed %d of %d files (%d with nested modules, %d failed)", len(files)-failed-nested, len(files), nested, failed)
}
