// Package clibase is what the five commands (tlcrun, tracecheck,
// trace2tla, seqctl, conformance) have in common: one Main, one error
// type carrying an exit code, usage errors found through cobra's own
// hooks, and the exit codes of the failures every command can meet
// (docs/cli.md has the table, and internal/testing/doctest checks it against the
// built commands).
//
// A command line is a Program: its name, the function that builds its
// cobra tree, and how to read the errors of its own packages. Main builds
// the tree, marks the errors cobra raises while it reads the flags and
// the arguments as usage errors (SetFlagErrorFunc, a wrapper around every
// command's Args), and gives every error a command's RunE returns its
// exit code: the code it carries (an *Error), ExitInterrupted for a run
// stopped by Ctrl-C, what the Program says of it, else ExitFailure. An
// error that went through neither a hook nor a RunE can only be one cobra
// raised before any command ran (an unknown command, a required flag not
// given): a usage error too. No error is recognised by its English text.
package clibase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
)

// The exit codes every command gives for the same failure.
const (
	ExitOK      = 0 // done; what was checked holds
	ExitFailure = 1 // could not run: an I/O error, a store or an adapter failing, an internal error
	// ExitUsage: bad flags or arguments, or an input named on the command
	// line that is missing, a folder, or malformed (a cfg, a trace, a
	// manifest, a profile).
	ExitUsage = 2
	// ExitNoTLC: TLC is needed and cannot run (no tla2tools.jar, no Java,
	// Java too old, a jar that is not TLC). Only the commands that can run
	// TLC (tlcrun, trace2tla --run) give it; seqctl's 3 is its own.
	ExitNoTLC       = 3
	ExitInterrupted = 130 // stopped by Ctrl-C (SIGINT), as a shell reports it
)

// Error is an error with the exit code it gives.
type Error struct {
	Code int
	// Err is what to print; nil when the command has already said why.
	Err error
	// hint: cobra found the flags or arguments wrong; Main follows the
	// message with where the usage is.
	hint bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Exit returns err with the exit code; nil err makes a silent exit.
func Exit(code int, err error) error { return &Error{Code: code, Err: err} }

// Status is a silent exit with the code: the command already printed
// why (a violation's report, a table of mismatches).
func Status(code int) error { return &Error{Code: code} }

// Fail is err as a failure to run (ExitFailure).
func Fail(err error) error { return &Error{Code: ExitFailure, Err: err} }

// Usage is err as a usage error (ExitUsage): a bad flag value, arguments
// that do not go together, an input that is missing or malformed.
func Usage(err error) error { return &Error{Code: ExitUsage, Err: err} }

// Usagef is Usage of a formatted error.
func Usagef(format string, args ...any) error { return Usage(fmt.Errorf(format, args...)) }

// Input is err, an error of reading an input the command line names (a
// file or a folder, given or by default: a cfg, a trace, a registry, a
// profile), as bad input (ExitUsage) when the input is missing, a folder
// where a file is wanted, or not what it should be (malformed, invalid);
// a failure to read one that is there (a permission, a disk error) is a
// failure (ExitFailure). nil stays nil.
func Input(err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && !Missing(err) {
		return Fail(err)
	}
	return Usage(err)
}

// Missing reports whether err says that a file is not there to be read:
// it does not exist, or it is a folder.
func Missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR)
}

// Program is one command line.
type Program struct {
	Name string
	// New builds the command tree writing to stdout and stderr.
	New func(stdout, stderr io.Writer) *cobra.Command
	// Code gives the exit code of an error a command returned without
	// one (an error of the packages it calls, such as a sentinel the
	// command's table lists); ok false leaves it to the shared rules.
	Code func(err error) (code int, ok bool)
	// Records gives the mirror records of the specs besides Resume that
	// the program's Go engine takes (check.Records), which --version
	// prints after Resume's; nil for a program of Resume only.
	Records func() [][]byte
	// StopOnInterrupt: the commands watch their context, so Main catches
	// Ctrl-C and cancels it, and they stop and say so (ExitInterrupted).
	// Without it Ctrl-C ends the process at once, as it ends any program
	// (a shell reports that as 130 too).
	StopOnInterrupt bool
}

// Main runs the program with args (without the program's name) and
// returns the exit code. With StopOnInterrupt, Ctrl-C cancels the
// context the commands run with.
func (p Program) Main(args []string, stdout, stderr io.Writer) int {
	if !p.StopOnInterrupt {
		return p.MainContext(context.Background(), args, stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The first Ctrl-C asks the command to stop (a command that checks
	// no context goes on); a second one ends the process as a signal does.
	go func() {
		<-ctx.Done()
		stop()
	}()
	return p.MainContext(ctx, args, stdout, stderr)
}

// MainContext is Main with the context a run stops on.
func (p Program) MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return p.Execute(ctx, p.New(stdout, stderr), args, stderr)
}

// Execute runs a tree built by p.New (a test may set its standard input
// first) and returns the exit code, having printed the error on stderr.
func (p Program) Execute(ctx context.Context, root *cobra.Command, args []string, stderr io.Writer) int {
	p.prepare(ctx, root)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var e *Error
	if !errors.As(err, &e) {
		// Neither a hook nor a command saw it: cobra refused the command
		// line before running anything (an unknown command, a required
		// flag missing).
		e = &Error{Code: ExitUsage, Err: err, hint: true}
	}
	if e.Err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
	}
	if e.hint {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", p.Name)
	}
	return e.Code
}

// Run is a command's main: Main on the process's arguments and streams,
// and exit with its code.
func Run(p Program) {
	removeTemporariesOnSignal(p.StopOnInterrupt)
	os.Exit(p.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// removeTemporariesOnSignal makes a signal that ends the process (SIGTERM,
// SIGHUP, and Ctrl-C where the commands do not stop on it themselves) first
// remove the temporaries of the files being written (internal/atomicfile),
// then end it as the signal does by default, so that its exit status is
// the signal's as before.
func removeTemporariesOnSignal(stopOnInterrupt bool) {
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if !stopOnInterrupt {
		sigs = append(sigs, os.Interrupt)
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		sig := <-ch
		atomicfile.RemoveTemporaries()
		signal.Reset(sig)
		if self, err := os.FindProcess(os.Getpid()); err == nil && self.Signal(sig) == nil {
			time.Sleep(time.Second) // the signal ends the process meanwhile
		}
		code := 128 + 15
		if n, ok := sig.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}()
}

// prepare installs the hooks on every command of the tree.
func (p Program) prepare(ctx context.Context, root *cobra.Command) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	if root.Version == "" {
		var records [][]byte
		if p.Records != nil {
			records = p.Records()
		}
		root.Version = Version(p.Name, records...)
		root.SetVersionTemplate("{{.Version}}")
		root.InitDefaultVersionFlag()
		if f := root.Flags().Lookup("version"); f != nil {
			f.Usage = versionUsage
		}
	}
	// The help and completion commands exist from here on (cobra would
	// add them while executing), so that the walk below gives them
	// --version too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &Error{Code: ExitUsage, Err: err, hint: true}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(c *cobra.Command, a []string) error {
				if err := args(c, a); err != nil {
					return &Error{Code: ExitUsage, Err: err, hint: true}
				}
				return nil
			}
		}
		// pflag writes the notice of a deprecated flag (MarkDeprecated)
		// to its flag set's output, which cobra would print on the
		// command's stdout, into the JSON or table a script reads.
		c.Flags().SetOutput(c.ErrOrStderr())
		if c != root {
			versionFlag(c, root.Version)
		}
		c.RunE = p.classifying(ctx, c.RunE)
		c.PreRunE = p.classifying(ctx, c.PreRunE)
		c.PersistentPreRunE = p.classifying(ctx, c.PersistentPreRunE)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// versionUsage is the help line of --version, on every command.
const versionUsage = "print the build, its commit and the spec text it mirrors"

// versionFlag gives a subcommand --version, printing the root's version
// as the root does (cobra gives it to the root only): whatever command a
// user has typed, adding --version says what build runs it. -v is its
// short form where the command has no other -v. A command with a
// --version flag of its own (an old spelling kept for a release) prints
// the version itself (PrintVersion).
func versionFlag(c *cobra.Command, version string) {
	if c.LocalFlags().Lookup("version") != nil || c.InheritedFlags().Lookup("version") != nil {
		return
	}
	c.Version = version
	short := "v"
	if c.LocalFlags().ShorthandLookup(short) != nil || c.InheritedFlags().ShorthandLookup(short) != nil {
		short = ""
	}
	c.Flags().BoolP("version", short, false, versionUsage)
}

// PrintVersion prints what --version prints, for a command that reads
// its --version flag itself.
func PrintVersion(c *cobra.Command) {
	fmt.Fprint(c.OutOrStdout(), c.Root().Version)
}

// classifying wraps a RunE so that every error it returns carries its
// exit code.
func (p Program) classifying(ctx context.Context, run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	if run == nil {
		return nil
	}
	return func(c *cobra.Command, args []string) error {
		err := run(c, args)
		if err == nil {
			return nil
		}
		return p.classify(ctx, err)
	}
}

// classify gives err its exit code: the one it carries, ExitInterrupted
// when the run was stopped, the Program's for its packages' errors, else
// ExitFailure (ExitInterrupted after Ctrl-C).
func (p Program) classify(ctx context.Context, err error) error {
	var e *Error
	if errors.As(err, &e) {
		if e == err {
			return e
		}
		return &Error{Code: e.Code, Err: err, hint: e.hint}
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return &Error{Code: ExitInterrupted, Err: errors.New("interrupted")}
	}
	if p.Code != nil {
		if code, ok := p.Code(err); ok {
			return &Error{Code: code, Err: err}
		}
	}
	if ctx.Err() != nil {
		// A run that failed after Ctrl-C failed because of it (a child
		// process killed, a connection closed).
		return &Error{Code: ExitInterrupted, Err: err}
	}
	return &Error{Code: ExitFailure, Err: err}
}
