package tracecli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/tlagen"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

func newTrace2tla(stdout, stderr io.Writer) *cobra.Command {
	var (
		outDir, module, spec, jar string
		run                       bool
	)
	cmd := &cobra.Command{
		Use:   "trace2tla [flags] TRACE",
		Short: "Turn a recorded trace into a TLA+ trace-validation module and cfg",
		Long: `trace2tla writes a TLA+ module that EXTENDS Resume and accepts exactly the
behaviours of the spec that match the trace (one predicate per event, a cursor
over them, and the POSTCONDITION TraceAccepted), and a cfg with the trace
header's constants. It copies Resume.tla beside them, so that TLC runs in the
output folder:

  java -cp tla2tools.jar tlc2.TLC -workers 1 -config M.cfg M.tla

With --run it runs TLC itself (the jar from --jar or TLA2TOOLS_JAR), replays
the trace with tracecheck too, and prints both verdicts and times.

Exit codes:
  0  files written (with --run: TLC and tracecheck accept the trace)
  1  could not run (I/O, TLC failed)
  2  bad flags or arguments
  3  the trace is malformed, or cannot be written as TLA+
  4  with --run: both reject the trace
  6  with --run: TLC and tracecheck disagree`,
		Example: `  trace2tla -o /tmp/tv run.ndjson
  TLA2TOOLS_JAR=/opt/tla/tla2tools.jar trace2tla --run -o /tmp/tv run.ndjson`,
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			tr, err := readTrace(path)
			if err != nil {
				return inputError(err)
			}
			if module == "" {
				module = tlagen.ModuleName(path)
			}
			out, err := tlagen.Generate(tr, tlagen.Options{Module: module, Source: filepath.Base(path)})
			if err != nil {
				return &exitError{code: ExitBadInput, err: err}
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			if err := copySpec(spec, outDir); err != nil {
				return err
			}
			if err := out.WriteDir(outDir); err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			w := cmd.OutOrStdout()
			tlaPath := filepath.Join(outDir, out.Module+".tla")
			fmt.Fprintf(w, "wrote %s and %s.cfg (%d events)\n", tlaPath, out.Module, len(tr.Events))
			if !run {
				return nil
			}
			if jar != "" {
				os.Setenv(tlagen.JarEnv, jar)
			}
			jarPath, err := tlagen.FindTLC()
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			tr2, err := tlagen.RunTLC(cmd.Context(), jarPath, outDir, out.Module)
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			// tracecheck's time: the fastest of a few runs of decoding and
			// checking the file, the best estimate of its time on an idle
			// core when the machine is shared.
			raw, err := os.ReadFile(path)
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			var res *tracecheck.Result
			times := make([]time.Duration, 21)
			for i := range times {
				start := time.Now()
				res, err = checkBytes(raw)
				times[i] = time.Since(start)
				if err != nil {
					return inputError(err)
				}
			}
			tc := slices.Min(times)
			tlcVerdict := "rejected"
			if tr2.Accepted {
				tlcVerdict = "accepted"
			}
			fmt.Fprintf(w, "TLC:        %-8s after %d events in %v (CPU %v)\n", tlcVerdict, tr2.Matched,
				tr2.Elapsed.Round(time.Millisecond), tr2.CPU.Round(time.Millisecond))
			fmt.Fprintf(w, "tracecheck: %-8s after %d events in %v (decoding and checking)\n", res.Verdict, res.Matched, tc)
			fmt.Fprintf(w, "tracecheck is %.0f times faster\n", float64(tr2.Elapsed)/float64(max(tc, 1)))
			switch {
			case tr2.Accepted != (res.Verdict == tracecheck.Accepted) || tr2.Matched != res.Matched:
				return &exitError{code: ExitDisagree, err: errors.New("TLC and tracecheck disagree")}
			case !tr2.Accepted:
				return exitCode(ExitRejected)
			}
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.StringVarP(&outDir, "out", "o", ".", "folder to write the module, the cfg and Resume.tla to")
	f.StringVar(&module, "module", "", "module name (default: Trace_ and the trace file's name)")
	f.StringVar(&spec, "spec", "spec/Resume.tla", "the spec to copy beside the module")
	f.BoolVar(&run, "run", false, "run TLC on the module and compare with tracecheck")
	f.StringVar(&jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR)")
	return cmd
}

func checkBytes(raw []byte) (*tracecheck.Result, error) {
	tr, err := decodeBytes(raw)
	if err != nil {
		return nil, err
	}
	return tracecheck.Check(tr, tracecheck.Options{})
}

func decodeBytes(raw []byte) (*trace.Trace, error) { return trace.Decode(bytes.NewReader(raw)) }

// copySpec puts the spec beside the generated module, refusing to
// overwrite a different Resume.tla there.
func copySpec(spec, dir string) error {
	src, err := os.ReadFile(spec)
	if err != nil {
		return usageError(fmt.Errorf("--spec: %v (run in the repository root or give the spec's path)", err))
	}
	dst := filepath.Join(dir, "Resume.tla")
	if old, err := os.ReadFile(dst); err == nil {
		if bytes.Equal(old, src) {
			return nil
		}
		if abs1, _ := filepath.Abs(spec); abs1 == absPath(dst) {
			return nil
		}
		return usageError(fmt.Errorf("%s exists and differs from %s; remove it or write elsewhere with -o", dst, spec))
	}
	if err := os.WriteFile(dst, src, 0o644); err != nil {
		return &exitError{code: ExitFailure, err: err}
	}
	return nil
}

func absPath(p string) string {
	a, _ := filepath.Abs(p)
	return a
}
