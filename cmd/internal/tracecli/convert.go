package tracecli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/traceconv"
	"github.com/resumecontract/resumecheck/trace"
)

// convertOptions are tracecheck convert's flags.
type convertOptions struct {
	from, to, cfg, spec, out string
	violation                int
}

func newConvert(stdout, stderr io.Writer) *cobra.Command {
	o := &convertOptions{}
	cmd := &cobra.Command{
		Use:   "convert [flags] INPUT",
		Short: "Convert traces to and from ITF, and counterexamples into traces",
		Long: `convert reads a behaviour in one format and writes it in another.

--from (the input):
  trace   a trace (NDJSON, docs/trace.md)
  itf     the Informal Trace Format of Apalache and Quint
  tlc     TLC's error trace: its output with -tool, or its -dumpTrace json file
  tlcrun  the report of "tlcrun check --json" (the Go engine's counterexample)
--to (the output): trace or itf.

A counterexample becomes a fully observed trace whose header has the cfg's
constants and faults, so it can be replayed against an implementation.
TLC's output does not carry the constants: give the cfg TLC ran with --cfg.
ITF written by convert keeps the trace's header in "#meta"; ITF from other
tools needs --cfg. A partially observed trace is completed with one
behaviour of the spec that matches it when written as ITF; a trace the spec
rejects cannot be.

Exit codes (docs/cli.md): 0 converted, 1 could not run, 2 bad flags or bad input
(a missing or malformed file, a trace that cannot be written as asked).`,
		Example: `  tracecheck convert --to itf run.ndjson > run.itf.json
  tracecheck convert --from itf run.itf.json
  tlcrun check --json spec/fault-replay.cfg > cex.json; tracecheck convert --from tlcrun cex.json -o cex.ndjson
  tracecheck convert --from tlc --cfg spec/fault-replay.cfg tlc-output.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd, args[0])
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	fl := cmd.Flags()
	fl.StringVar(&o.from, "from", "trace", "input format: trace, itf, tlc or tlcrun")
	fl.StringVar(&o.to, "to", "trace", "output format: trace or itf")
	fl.StringVar(&o.cfg, "cfg", "", "the TLC cfg whose constants the input has (for tlc, itf from other tools)")
	fl.StringVar(&o.spec, "spec", "", "the spec the cfg belongs to (default: Resume.tla beside the cfg)")
	fl.StringVarP(&o.out, "out", "o", "", "write to this file instead of standard output")
	fl.IntVar(&o.violation, "violation", 1, "tlcrun: which counterexample of the report (from 1)")
	return cmd
}

// validate checks --from and --to.
func (o *convertOptions) validate() error {
	if !oneOf(o.from, "trace", "itf", "tlc", "tlcrun") {
		return clibase.Usage(fmt.Errorf("--from %q: want trace, itf, tlc or tlcrun", o.from))
	}
	if !oneOf(o.to, "trace", "itf") {
		return clibase.Usage(fmt.Errorf("--to %q: want trace or itf", o.to))
	}
	return nil
}

// run reads the input at path in --from's format and writes it in --to's.
func (o *convertOptions) run(cmd *cobra.Command, path string) error {
	raw, err := readInput(cmd, path)
	if err != nil {
		return inputError(err)
	}
	tr, err := o.read(cmd, raw)
	if err != nil {
		return err
	}
	// -o F goes through a temporary renamed into place when complete: a
	// run killed or failing midway leaves the old F or none, never a
	// shorter trace that reads as whole.
	w := cmd.OutOrStdout()
	var f *atomicfile.File
	if o.out != "" && o.out != "-" {
		if f, err = atomicfile.Create(o.out); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		defer f.Abort() // after the commit, a no-op
		w = f
	}
	bw := bufio.NewWriter(w)
	switch o.to {
	case "trace":
		err = tr.Encode(bw)
	case "itf":
		err = traceconv.WriteITF(bw, tr, filepath.Base(path))
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f != nil {
		err = f.Commit()
	}
	if err != nil {
		return convertError(err)
	}
	return nil
}

// read decodes raw in --from's format, with the constants of --cfg (or,
// for a tlcrun report, of the cfg it names), printing the notes of the
// conversion on stderr.
func (o *convertOptions) read(cmd *cobra.Command, raw []byte) (*trace.Trace, error) {
	var p *model.Params
	if o.cfg != "" {
		job, err := check.Load(o.cfg, o.spec)
		if err != nil {
			return nil, clibase.Usage(fmt.Errorf("--cfg: %v", err))
		}
		p = &job.Params
	}
	var tr *trace.Trace
	var notes []string
	var err error
	switch o.from {
	case "trace":
		tr, err = trace.Decode(bytes.NewReader(raw))
	case "itf":
		tr, notes, err = traceconv.ReadITF(bytes.NewReader(raw), p, trace.Producer{})
	case "tlc":
		if p == nil {
			return nil, clibase.Usage(errors.New("--from tlc needs --cfg: TLC's output does not carry the constants"))
		}
		tr, notes, err = traceconv.FromTLC(bytes.NewReader(raw), *p)
	case "tlcrun":
		if p == nil {
			path, rerr := traceconv.ReportConfig(raw)
			if rerr != nil {
				return nil, clibase.Exit(ExitBadInput, rerr)
			}
			if path == "" {
				return nil, clibase.Usage(errors.New("the report names no cfg: give it with --cfg"))
			}
			job, lerr := check.Load(path, o.spec)
			if lerr != nil {
				return nil, clibase.Usage(fmt.Errorf("the report's cfg %s: %v (give it with --cfg)", path, lerr))
			}
			p = &job.Params
		}
		tr, notes, err = traceconv.FromReport(raw, *p, o.violation-1)
	}
	if err != nil {
		return nil, convertError(err)
	}
	for _, n := range notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracecheck convert: note: %s\n", n)
	}
	return tr, nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

func readInput(cmd *cobra.Command, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	return os.ReadFile(path)
}

func convertError(err error) error {
	if badInput(err) || errors.Is(err, traceconv.ErrInput) || errors.Is(err, model.ErrParams) {
		return clibase.Exit(ExitBadInput, err)
	}
	return clibase.Exit(ExitFailure, err)
}
