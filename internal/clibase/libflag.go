package clibase

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// libFlag is --lib: the folders searched for the modules a spec extends
// or instantiates. It is repeatable, and each value may also be a list
// separated by the system's path list separator (':' on Unix), as TLC's
// TLA-Library is written: --lib a --lib b and --lib a:b are the same.
type libFlag struct{ dirs *[]string }

var _ pflag.Value = libFlag{}

func (l libFlag) String() string {
	if l.dirs == nil {
		return ""
	}
	return strings.Join(*l.dirs, string(os.PathListSeparator))
}

func (l libFlag) Set(v string) error {
	for _, d := range filepath.SplitList(v) {
		if d != "" {
			*l.dirs = append(*l.dirs, d)
		}
	}
	return nil
}

func (libFlag) Type() string { return "folders" }

// AddLibFlag defines --lib on f, into dirs, with the command's own help.
func AddLibFlag(f *pflag.FlagSet, dirs *[]string, usage string) {
	f.Var(libFlag{dirs}, "lib", usage+" (repeatable, or a list separated by '"+string(os.PathListSeparator)+"', as TLC's TLA-Library)")
}
