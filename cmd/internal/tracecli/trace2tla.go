package tracecli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/tlagen"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// trace2tlaOptions are trace2tla's flags.
type trace2tlaOptions struct {
	outDir, module, spec string
	run                  bool
	jar, java            string
}

func newTrace2tla(stdout, stderr io.Writer) *cobra.Command {
	o := &trace2tlaOptions{}
	cmd := &cobra.Command{
		Use:   "trace2tla [flags] TRACE",
		Short: "Turn a recorded trace into a TLA+ trace-validation module and cfg",
		Long: `trace2tla writes a TLA+ module that EXTENDS Resume and accepts exactly the
behaviours of the spec that match the trace (one predicate per event, a cursor
over them, and the POSTCONDITION TraceAccepted), and a cfg with the trace
header's constants. It copies Resume.tla beside them, so that TLC runs in the
output folder:

  java -cp tla2tools.jar tlc2.TLC -workers 1 -config M.cfg M.tla

With --run it runs TLC itself (the jar from --jar, else TLA2TOOLS_JAR, else
where tlcrun install puts it, as tlcrun finds it), replays
the trace with tracecheck too, and prints both verdicts and times.

Exit codes (docs/cli.md):
  0  files written (with --run: TLC and tracecheck accept the trace)
  1  could not run (I/O, TLC failed)
  2  bad flags or arguments; the trace is missing or malformed, or cannot
     be written as TLA+
  3  with --run: TLC cannot run here (no tla2tools.jar, a jar that is not
     TLC, no Java, Java older than 11)
  4  with --run: both reject the trace
  6  with --run: TLC and tracecheck disagree
130  interrupted (Ctrl-C)`,
		Example: `  trace2tla -o /tmp/tv run.ndjson
  TLA2TOOLS_JAR=/opt/tla/tla2tools.jar trace2tla --run -o /tmp/tv run.ndjson`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(args[0]); err != nil {
				return err
			}
			return o.runCmd(cmd, args[0])
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.StringVarP(&o.outDir, "out", "o", ".", "folder to write the module, the cfg and Resume.tla to")
	f.StringVar(&o.module, "module", "", "module name (default: Trace_ and the trace file's name)")
	f.StringVar(&o.spec, "spec", "spec/Resume.tla", "the spec to copy beside the module")
	f.BoolVar(&o.run, "run", false, "run TLC on the module and compare with tracecheck")
	f.StringVar(&o.jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR, else where tlcrun install puts it)")
	f.StringVar(&o.java, "java", "", "the java to run TLC with (default: $JAVA_HOME/bin/java, else java on PATH)")
	return cmd
}

// validate checks --module, naming it after the trace at path when not
// given.
func (o *trace2tlaOptions) validate(path string) error {
	if o.module == "" {
		o.module = tlagen.ModuleName(path)
	} else if err := tlagen.CheckModule(o.module); err != nil {
		return clibase.Usage(fmt.Errorf("--module: %v", strings.TrimPrefix(err.Error(), "tlagen: ")))
	}
	return nil
}

// runCmd writes the module of the trace at path and, with --run, checks
// it with TLC and tracecheck and compares their verdicts.
func (o *trace2tlaOptions) runCmd(cmd *cobra.Command, path string) error {
	w := cmd.OutOrStdout()
	n, err := writeModule(path, o.outDir, o.spec, o.module)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s.cfg (%s)\n", filepath.Join(o.outDir, o.module+".tla"), o.module, plural(n, "event"))
	if !o.run {
		return nil
	}
	jarPath, javaPath, err := tlagen.CheckTLC(cmd.Context(), o.jar, o.java)
	if err != nil {
		return tlcError(err)
	}
	tr2, err := tlagen.RunTLC(cmd.Context(), jarPath, javaPath, o.outDir, o.module)
	if err != nil {
		return tlcError(err)
	}
	res, tc, err := timeCheck(path)
	if err != nil {
		return inputError(err)
	}
	tlcVerdict := "rejected"
	if tr2.Accepted {
		tlcVerdict = "accepted"
	}
	fmt.Fprintf(w, "TLC:        %-8s after %s in %v (CPU %v)\n", tlcVerdict, plural(tr2.Matched, "event"),
		tr2.Elapsed.Round(time.Millisecond), tr2.CPU.Round(time.Millisecond))
	fmt.Fprintf(w, "tracecheck: %-8s after %s in %v (decoding and checking)\n", res.Verdict, plural(res.Matched, "event"), tc)
	fmt.Fprintf(w, "tracecheck is %.0f times faster\n", float64(tr2.Elapsed)/float64(max(tc, 1)))
	switch {
	case tr2.Accepted != (res.Verdict == tracecheck.Accepted) || tr2.Matched != res.Matched:
		return clibase.Exit(ExitDisagree, errors.New("TLC and tracecheck disagree"))
	case !tr2.Accepted:
		return clibase.Status(ExitRejected)
	}
	return nil
}

// writeModule writes the module of the trace at path into dir, with its
// cfg, and copies the spec beside them. It returns the number of events.
//
// Nothing is created before the trace has been read to its end and found
// well formed: a first pass reads it (and the spec), a second writes the
// module as the events are read again. Every file goes to a temporary
// name in dir and is renamed into place (internal/atomicfile), so that a
// run that fails, is interrupted or killed leaves the old files or none.
//
// The module and the cfg are one unit: both are written to temporaries and
// renamed only after both are complete, the cfg first and then the module,
// under a lock on dir, so that two runs writing the same module leave both
// files of one run. A rename pair is not atomic, though: a reader that
// reads between the two renames, or a writer without the lock, could see
// a cfg of one run beside a module of another. So the pair also carries the
// trace's digest (tlagen's Options.Pair, the same in both files): TLC
// refuses a mixed pair, an ASSUME violated, and never checks one trace
// against another's constants.
func writeModule(path, dir, spec, module string) (int, error) {
	src, err := os.ReadFile(spec)
	if err != nil {
		return 0, clibase.Usage(fmt.Errorf("--spec: %v (run in the repository root or give the spec's path)", err))
	}
	pair, err := checkTrace(path, module)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	if err := copySpec(src, spec, dir); err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, inputError(err)
	}
	defer f.Close()
	sum := sha256.New()
	d := trace.NewDecoder(io.TeeReader(f, sum))
	h, err := d.Header()
	if err != nil {
		return 0, inputError(fmt.Errorf("%s: %w", path, err))
	}
	tla, err := atomicfile.Create(filepath.Join(dir, module+".tla"))
	if err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	defer tla.Abort() // after the commit, a no-op
	g, err := tlagen.NewWriter(tla, h, tlagen.Options{Module: module, Source: filepath.Base(path), Pair: pair})
	if err != nil {
		return 0, clibase.Exit(ExitBadInput, fmt.Errorf("%s: %w", path, err))
	}
	var ev trace.Event
	for {
		err := d.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, inputError(fmt.Errorf("%s: %w", path, err))
		}
		if err := g.Event(&ev); err != nil {
			return 0, clibase.Exit(ExitFailure, err)
		}
	}
	if _, err := io.Copy(sum, f); err != nil {
		return 0, inputError(err)
	}
	if digest(sum) != pair {
		return 0, clibase.Exit(ExitFailure, fmt.Errorf("%s changed while trace2tla read it", path))
	}
	c, err := g.Cfg()
	if err == nil {
		err = g.Close()
	}
	if err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	cfg, err := atomicfile.Create(filepath.Join(dir, module+".cfg"))
	if err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	defer cfg.Abort()
	if _, err := cfg.Write(c); err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	if err := atomicfile.Commit(cfg, tla); err != nil {
		return 0, clibase.Exit(ExitFailure, err)
	}
	return g.Events(), nil
}

// checkTrace reads the trace at path to its end, as writeModule will,
// and returns its digest (the pair of the module and cfg): an error if
// the trace is missing or malformed, or its header cannot be written as
// TLA+.
func checkTrace(path, module string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", inputError(err)
	}
	defer f.Close()
	sum := sha256.New()
	d := trace.NewDecoder(io.TeeReader(f, sum))
	h, err := d.Header()
	if err != nil {
		return "", inputError(fmt.Errorf("%s: %w", path, err))
	}
	if _, err := tlagen.NewWriter(io.Discard, h, tlagen.Options{Module: module}); err != nil {
		return "", clibase.Exit(ExitBadInput, fmt.Errorf("%s: %w", path, err))
	}
	var ev trace.Event
	for {
		err := d.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", inputError(fmt.Errorf("%s: %w", path, err))
		}
	}
	// What follows the last event (nothing the decoder refuses) counts
	// in the digest too.
	if _, err := io.Copy(sum, f); err != nil {
		return "", inputError(err)
	}
	return digest(sum), nil
}

// digest is the pair of a trace: the first 16 hex digits of its SHA-256.
func digest(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:8]) }

// tlcError gives an error of finding or running TLC its exit code:
// ExitNoTLC when TLC cannot run here, ExitFailure otherwise.
func tlcError(err error) error {
	if errors.Is(err, tlagen.ErrNoTLC) {
		return clibase.Exit(ExitNoTLC, err)
	}
	return clibase.Exit(ExitFailure, err)
}

// timeCheck replays the trace at path with tracecheck, streaming from the
// file, and returns the result and the fastest of a few runs (up to 21,
// within about two seconds): the best estimate of its time on an idle
// core when the machine is shared.
func timeCheck(path string) (*tracecheck.Result, time.Duration, error) {
	var res *tracecheck.Result
	var best, total time.Duration
	for i := 0; i < 21 && total < 2*time.Second; i++ {
		start := time.Now()
		r, err := checkFile(path)
		took := time.Since(start)
		if err != nil {
			return nil, 0, err
		}
		res, total = r, total+took
		if i == 0 || took < best {
			best = took
		}
	}
	return res, best, nil
}

// checkFile decodes and checks the trace at path, streaming.
func checkFile(path string) (*tracecheck.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := trace.NewDecoder(f)
	h, err := d.Header()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := h.Params()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := tracecheck.New(p, tracecheck.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := tracecheck.Stream(d, c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c.Result(), nil
}

// copySpec puts the spec (src, read from spec) beside the generated
// module, refusing to overwrite a different Resume.tla there.
func copySpec(src []byte, spec, dir string) error {
	dst := filepath.Join(dir, "Resume.tla")
	if old, err := os.ReadFile(dst); err == nil {
		if bytes.Equal(old, src) {
			return nil
		}
		if abs1, _ := filepath.Abs(spec); abs1 == absPath(dst) {
			return nil
		}
		return clibase.Usage(fmt.Errorf("%s exists and differs from %s; remove it or write elsewhere with -o", dst, spec))
	}
	err := atomicfile.WriteFile(dst, func(w io.Writer) error {
		_, err := w.Write(src)
		return err
	})
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	return nil
}

func absPath(p string) string {
	a, _ := filepath.Abs(p)
	return a
}
