package clibase

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/spf13/cobra"
)

var errOwn = errors.New("own: a sentinel of the program's packages")

// program is a small tree: "do" runs f with one argument, "need" has a
// required flag.
func program(f func(*cobra.Command, []string) error) Program {
	return Program{
		Name: "prog",
		New: func(stdout, stderr io.Writer) *cobra.Command {
			root := &cobra.Command{Use: "prog"}
			root.SetOut(stdout)
			root.SetErr(stderr)
			do := &cobra.Command{Use: "do ARG", Args: cobra.ExactArgs(1), RunE: f}
			do.Flags().Int("n", 0, "a number")
			need := &cobra.Command{Use: "need", RunE: func(*cobra.Command, []string) error { return nil }}
			need.Flags().String("x", "", "required")
			need.MarkFlagRequired("x")
			root.AddCommand(do, need)
			return root
		},
		Code: func(err error) (int, bool) {
			if errors.Is(err, errOwn) {
				return 7, true
			}
			return 0, false
		},
	}
}

func TestExecute(t *testing.T) {
	const hint = "Run 'prog --help' for usage.\n"
	tests := []struct {
		name   string
		args   []string
		run    error
		ctx    func() context.Context
		code   int
		stderr string
	}{
		{"ok", []string{"do", "a"}, nil, nil, ExitOK, ""},
		{"plain error", []string{"do", "a"}, errors.New("disk full"), nil, ExitFailure, "prog: disk full\n"},
		// An error that reads like cobra's is still the command's: no
		// English is matched.
		{"reads like a usage error", []string{"do", "a"}, errors.New("unknown flag: --n"), nil, ExitFailure, "prog: unknown flag: --n\n"},
		{"the program's sentinel", []string{"do", "a"}, errOwn, nil, 7, "prog: own: a sentinel of the program's packages\n"},
		{"wrapped sentinel", []string{"do", "a"}, errors.Join(errors.New("x"), errOwn), nil, 7, "prog: x\nown: a sentinel of the program's packages\n"},
		{"usage", []string{"do", "a"}, Usagef("--n %d: want more", 0), nil, ExitUsage, "prog: --n 0: want more\n"},
		{"silent status", []string{"do", "a"}, Status(12), nil, 12, ""},
		{"wrapped exit error", []string{"do", "a"}, errors.Join(Exit(4, errors.New("inner")), errors.New("outer")), nil, 4, "prog: inner\nouter\n"},
		{"unknown flag", []string{"do", "--m", "a"}, nil, nil, ExitUsage, "prog: unknown flag: --m\n" + hint},
		{"bad flag value", []string{"do", "--n", "x", "a"}, nil, nil, ExitUsage, "prog: invalid argument \"x\" for \"--n\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\n" + hint},
		{"wrong arguments", []string{"do"}, nil, nil, ExitUsage, "prog: accepts 1 arg(s), received 0\n" + hint},
		{"unknown command", []string{"dont"}, nil, nil, ExitUsage, "prog: unknown command \"dont\" for \"prog\"\n\nDid you mean this?\n\tdo\n\n" + hint},
		{"required flag", []string{"need"}, nil, nil, ExitUsage, "prog: required flag(s) \"x\" not set\n" + hint},
		{"interrupted", []string{"do", "a"}, context.Canceled, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, ExitInterrupted, "prog: interrupted\n"},
		// Canceled without an interrupt is an error of the command's.
		{"canceled inside", []string{"do", "a"}, context.Canceled, nil, ExitFailure, "prog: context canceled\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := program(func(*cobra.Command, []string) error { return tt.run })
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			var stdout, stderr bytes.Buffer
			code := p.MainContext(ctx, tt.args, &stdout, &stderr)
			if code != tt.code || stderr.String() != tt.stderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, tt.stderr)
			}
		})
	}
}
