package clibase

import (
	"os"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestLibFlag checks that --lib is repeatable and that each value may be
// a list, as TLC's TLA-Library: --lib a:b --lib c is a, b, c.
func TestLibFlag(t *testing.T) {
	var dirs []string
	f := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddLibFlag(f, &dirs, "folders")
	sep := string(os.PathListSeparator)
	if err := f.Parse([]string{"--lib", "a" + sep + "b", "--lib", "c", "--lib", sep + "d" + sep}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(dirs, want) {
		t.Errorf("--lib gave %q, want %q", dirs, want)
	}
}
