package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/sweep"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// tlcFlags are the flags of every command that may run TLC.
type tlcFlags struct {
	jar, java string
	workers   int
	javaOpts  []string
}

func (f *tlcFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR, else the default location; see tlcrun doctor)")
	fs.StringVar(&f.java, "java", "", "the java to run TLC with (default: $JAVA_HOME/bin/java, else java on PATH)")
	fs.IntVar(&f.workers, "tlc-workers", 1, "TLC's worker threads (1: TLC explores in a fixed order, so its counterexamples repeat)")
	fs.StringArrayVar(&f.javaOpts, "java-opt", nil, "an option for TLC's JVM, e.g. --java-opt=-Xmx8g (repeatable)")
}

// options are the TLC options the flags give, with TLC's progress
// messages copied to w when it is not nil.
func (f *tlcFlags) options(w io.Writer) tlc.Options {
	o := tlc.Options{Jar: f.jar, Java: f.java, Workers: f.workers, JavaOptions: f.javaOpts}
	if w != nil {
		o.Progress = func(m tlcout.Message) {
			switch m.Code {
			case tlcout.CodeInitGenerated1, tlcout.CodeProgressStats, tlcout.CodeCheckingTemporalProps:
				fmt.Fprintf(w, "tlc: %s\n", strings.Join(strings.Fields(m.Text()), " "))
			}
		}
	}
	return o
}

// preflight checks, before anything runs, that TLC can run when engine
// needs it.
func (f *tlcFlags) preflight(ctx context.Context, engine string) error {
	if engine == "go" || engine == "interp" {
		return nil
	}
	if _, err := tlc.Find(ctx, f.jar, f.java); err != nil {
		return runError(err)
	}
	return nil
}

// mirrorPreflight refuses, before anything runs, a spec the Go engine
// does not mirror when engine runs the Go engine (exit 4).
func mirrorPreflight(engine, specPath string) error {
	if engine == "tlc" {
		return nil
	}
	if err := check.VerifySpec(specPath); err != nil {
		return runError(err)
	}
	return nil
}

// validEngine checks --engine.
func validEngine(e string) error {
	switch e {
	case "go", "interp", "tlc", "both":
		return nil
	}
	return clibase.Usage(fmt.Errorf("--engine %q: want go (the Go engine: the compiled mirror, or the TLA+ interpreter for any other spec), interp (the interpreter always), tlc (TLC) or both (and compare them)", e))
}

// runError maps an error of a run to its exit code: TLC missing (3), the
// user's files (2), an interrupt (130), anything else (1).
func runError(err error) error {
	var te *tlcout.Error
	var ie *crosscheck.InputError
	var se *sweep.InputError
	switch {
	case errors.Is(err, check.ErrNotMirrored):
		return clibase.Exit(ExitNotMirror, err)
	case errors.Is(err, tlc.ErrUnavailable):
		return clibase.Exit(ExitNoTLC, fmt.Errorf("%w\n(tlcrun doctor shows what is found; --engine go needs neither TLC nor Java)", err))
	case errors.Is(err, context.Canceled):
		return clibase.Exit(ExitCancelled, errors.New("interrupted"))
	case errors.Is(err, check.ErrInput), errors.Is(err, tlc.ErrInput), errors.As(err, &ie), errors.As(err, &se),
		errors.As(err, &te) && te.IsInput():
		return clibase.Usage(err)
	}
	return clibase.Exit(ExitFailure, err)
}

// expectCode is the exit code for what a measurement found: that of its
// first violation's kind.
func expectCode(e check.Expect) int {
	if e.Result != "violation" {
		return ExitOK
	}
	switch e.FirstKind {
	case "deadlock":
		return ExitDeadlock
	case "liveness":
		return ExitLiveness
	}
	return ExitSafety
}
