package clibase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/spec"
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
		{"failed after an interrupt", []string{"do", "a"}, errors.New("signal: killed"), func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, ExitInterrupted, "prog: signal: killed\n"},
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

// TestInput: an input that is missing, a folder, or malformed is bad
// input (ExitUsage); one that is there and cannot be read is a failure.
func TestInput(t *testing.T) {
	dir := t.TempDir()
	_, missing := os.ReadFile(filepath.Join(dir, "nothing.json"))
	_, folder := os.ReadFile(dir)
	denied := &fs.PathError{Op: "open", Path: filepath.Join(dir, "x"), Err: syscall.EACCES}
	diskError := &fs.PathError{Op: "read", Path: filepath.Join(dir, "x"), Err: syscall.EIO}
	tests := []struct {
		name string
		err  error
		code int
	}{
		{"missing", missing, ExitUsage},
		{"missing, wrapped", fmt.Errorf("registry: %w", missing), ExitUsage},
		{"a folder", folder, ExitUsage},
		{"malformed", errors.New("x.json:3:1: unexpected end of file"), ExitUsage},
		{"permission denied", denied, ExitFailure},
		{"disk error, wrapped", fmt.Errorf("cell fd: %w", diskError), ExitFailure},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Fatalf("%s: no error to classify", tt.name)
		}
		var e *Error
		if got := Input(tt.err); !errors.As(got, &e) || e.Code != tt.code || !errors.Is(got, tt.err) {
			t.Errorf("%s: Input(%v) = %#v, want exit %d wrapping it", tt.name, tt.err, got, tt.code)
		}
	}
	if Input(nil) != nil {
		t.Error("Input(nil) is not nil")
	}
}

// Every command answers --version with its build and the mirror record it
// carries, exit 0, whatever its tree.
func TestVersion(t *testing.T) {
	p := Program{Name: "demo", New: func(stdout, stderr io.Writer) *cobra.Command {
		c := &cobra.Command{Use: "demo", RunE: func(*cobra.Command, []string) error {
			return errors.New("ran the command instead of printing the version")
		}}
		c.SetOut(stdout)
		return c
	}}
	var out, errb bytes.Buffer
	if code := p.Main([]string{"--version"}, &out, &errb); code != ExitOK {
		t.Fatalf("--version: exit %d, stderr %q", code, errb.String())
	}
	m, err := spec.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"demo (devel)", runtime.Version(), "mirrors " + m.Spec + " " + m.Digest} {
		if !strings.Contains(got, want) {
			t.Errorf("--version printed %q; want it to contain %q", got, want)
		}
	}
}

func TestBuildVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-05T16:00:00Z"},
	}}
	want := "v1.2.3, commit abc123 with uncommitted changes of 2026-12-05T16:00:00Z, go1.26.0"
	if got := buildVersion(info, true); got != want {
		t.Errorf("buildVersion: got %q, want %q", got, want)
	}
	if got := buildVersion(nil, false); got != "(no build information)" {
		t.Errorf("buildVersion without info: got %q", got)
	}
}

// A program whose engine takes other specs prints each one's mirror
// record after Resume's, in the order Records gives them.
func TestVersionRecords(t *testing.T) {
	other := []byte(`{"spec": "Other.tla", "normalisation": "n1", "digest": "sha256:0123", "compared": "2026-12-01T00:00:00Z"}`)
	p := Program{Name: "demo", Records: func() [][]byte { return [][]byte{other} }, New: func(stdout, stderr io.Writer) *cobra.Command {
		c := &cobra.Command{Use: "demo", Run: func(*cobra.Command, []string) {}}
		c.SetOut(stdout)
		return c
	}}
	var out, errb bytes.Buffer
	if code := p.Main([]string{"--version"}, &out, &errb); code != ExitOK {
		t.Fatalf("--version: exit %d, stderr %q", code, errb.String())
	}
	m, err := spec.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"mirrors " + m.Spec + " " + m.Digest + " (compared " + m.Compared + ")",
		"mirrors Other.tla sha256:0123 (compared 2026-12-01T00:00:00Z)",
	}
	if len(lines) != 3 {
		t.Fatalf("--version printed %q; want the build and two records", out.String())
	}
	if d := cmp.Diff(want, lines[1:]); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}
