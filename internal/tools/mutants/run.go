package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// Model is a spec and a cfg to mutate: the spec file's text is mutated,
// the cfg is kept.
type Model struct {
	// Name is how the report names it ("spec/R0.cfg",
	// "Examples:specifications/ewd840/EWD840.cfg").
	Name string
	// Spec and Cfg are the files' paths.
	Spec, Cfg string
}

// Runner runs the two checkers on a mutant.
type Runner struct {
	// Tlcrun is the built tlcrun whose interpreter is tested.
	Tlcrun string
	// Jar is tla2tools.jar, Java the java that runs it ("" finds it as
	// tlcrun does).
	Jar, Java string
	// Timeout bounds each run of each checker.
	Timeout time.Duration
}

// Stage copies the folder of m's spec (its .tla files, and m's cfg) into
// a fresh temporary folder, and writes text over the spec there. It
// returns the folder, the spec and cfg paths in it, and a function that
// removes it.
func Stage(m Model, text []byte) (dir, spec, cfg string, done func(), err error) {
	dir, err = os.MkdirTemp("", "mutant-")
	if err != nil {
		return "", "", "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	copyFile := func(src, dst string, data []byte) error {
		if data == nil {
			var err error
			if data, err = os.ReadFile(src); err != nil {
				return err
			}
		}
		return atomicfile.WriteFile(dst, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	tlas, err := filepath.Glob(filepath.Join(filepath.Dir(m.Spec), "*.tla"))
	if err == nil {
		for _, f := range tlas {
			var data []byte
			if filepath.Base(f) == filepath.Base(m.Spec) {
				data = text
			}
			if err = copyFile(f, filepath.Join(dir, filepath.Base(f)), data); err != nil {
				break
			}
		}
	}
	if err == nil && filepath.Dir(m.Cfg) != filepath.Dir(m.Spec) {
		// The cfg's folder may hold modules too (an MC spec's).
		var more []string
		if more, err = filepath.Glob(filepath.Join(filepath.Dir(m.Cfg), "*.tla")); err == nil {
			for _, f := range more {
				if _, serr := os.Stat(filepath.Join(dir, filepath.Base(f))); serr == nil {
					continue
				}
				if err = copyFile(f, filepath.Join(dir, filepath.Base(f)), nil); err != nil {
					break
				}
			}
		}
	}
	if err == nil {
		err = copyFile(m.Cfg, filepath.Join(dir, filepath.Base(m.Cfg)), nil)
	}
	if err != nil {
		done()
		return "", "", "", nil, err
	}
	return dir, filepath.Join(dir, filepath.Base(m.Spec)), filepath.Join(dir, filepath.Base(m.Cfg)), done, nil
}

// refusal matches the interpreter's message for a construct it declines
// (docs/interpreter.md, "The fragment": refused with the construct's
// name and position, exit 2).
var refusal = regexp.MustCompile(`not supported|is refused|cannot be enumerated`)

// Interp runs tlcrun check --engine interp on the staged spec and cfg, one
// worker; cont adds --continue (every violation, the whole space).
func (r Runner) Interp(ctx context.Context, dir, spec, cfg string, cont bool) Result {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	args := []string{"check", "--engine", "interp", "--spec", filepath.Base(spec), "--json", "--progress", "0", "--workers", "1"}
	if cont {
		args = append(args, "--continue")
	}
	args = append(args, filepath.Base(cfg))
	cmd := exec.CommandContext(ctx, r.Tlcrun, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Seconds: time.Since(start).Seconds()}
	if ctx.Err() == context.DeadlineExceeded {
		res.Status = TimedOut
		return res
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		res.Status, res.Message = Failed, err.Error()
		return res
	}
	var rep check.Report
	if code == 0 || code >= 11 && code <= 13 {
		if jerr := json.Unmarshal(out.Bytes(), &rep); jerr == nil && rep.Verdict != "" {
			fromReport(&res, &rep)
			if c, err := tlacfg.ParseFileAny(cfg); err == nil {
				markProperties(&res, c)
			}
			return res
		}
	}
	res.Message = firstLine(strings.TrimPrefix(strings.TrimSpace(errb.String()), "tlcrun: "))
	if res.Message == "" {
		res.Message = fmt.Sprintf("exit %d", code)
	}
	res.Status = Failed
	if code == 2 && refusal.MatchString(res.Message) {
		res.Status = Refused
	}
	return res
}

// TLC runs TLC on the staged spec and cfg through package tla/tlc: one
// worker (a fixed order of exploration), stopping at the first
// violation.
func (r Runner) TLC(ctx context.Context, dir, spec, cfg string) Result {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	start := time.Now()
	out, err := tlc.Run(ctx, tlc.Options{Jar: r.Jar, Java: r.Java, Spec: spec, Cfg: cfg, Workers: 1, WorkDir: filepath.Join(dir, "tlc")})
	res := Result{Seconds: time.Since(start).Seconds()}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.Status = TimedOut
		return res
	case err != nil:
		res.Status, res.Message = Failed, firstLine(err.Error())
		return res
	}
	if err := out.Err(); err != nil {
		res.Status, res.Message = Failed, firstLine(err.Error())
		return res
	}
	c, err := tlacfg.ParseFileAny(cfg)
	if err != nil {
		res.Status, res.Message = Failed, err.Error()
		return res
	}
	fromTLC(&res, out, c)
	markProperties(&res, c)
	if res.Status == Holds && (!out.Finished || out.Stats == nil) {
		res.Status, res.Message = Failed, "TLC stopped before its end"
	}
	return res
}

// fromTLC fills res from a finished TLC run, its violations named as
// check.Report names them (tla/crosscheck reads them the same way, for
// the Go engine's comparisons): a false ASSUME is an error (Result.Err),
// not a violation.
func fromTLC(res *Result, out *tlcout.Result, cfg *tlacfg.Config) {
	if out.Stats != nil {
		res.Distinct, res.Generated, res.Depth = out.Stats.Distinct, out.Stats.Generated, int64(out.Depth)
	}
	res.Status, res.Complete = Holds, out.Stats != nil
	for _, is := range out.Violations {
		kind, ok := is.Kind.ViolationKind()
		if !ok {
			continue
		}
		v := Violation{Kind: kind}
		if is.Trace != nil {
			v.Length = len(is.Trace.States)
		}
		// One violation per property named: TLC names all the
		// temporal properties one lasso violates in one message.
		var names []string
		switch {
		case v.Kind == "deadlock":
		case len(is.Names) > 0:
			names = is.Names
		case v.Kind == "liveness":
			names = []string{strings.Join(cfg.Properties, " ")}
		case is.Kind == tlcout.KindAssert:
			names = []string{"Assert"}
		}
		if len(names) == 0 {
			names = []string{""}
		}
		for _, n := range names {
			w := v
			w.Property = n
			if res.Status == Holds {
				res.Status, res.First = Violated, w
			}
			res.All = append(res.All, w)
		}
		// TLC checks temporal properties once the search is complete,
		// but action properties ([][A]_v) and properties of the
		// initial states on the way, stopping it; the interpreter
		// checks all of them after its search.
		if is.Code != tlcout.CodeTemporalPropertyViolated {
			res.Complete = false
		}
	}
}

// markProperties marks the invariant violations that are not of the
// cfg's invariants: a PROPERTY []P checked as one (Violation.OfProperty).
func markProperties(res *Result, cfg *tlacfg.Config) {
	mark := func(v *Violation) {
		if v.Kind == "invariant" && !slices.Contains(cfg.Invariants, v.Property) && v.Property != "Assert" {
			v.OfProperty = true
		}
	}
	mark(&res.First)
	for i := range res.All {
		mark(&res.All[i])
	}
}

// fromReport fills res from a finished run's report.
func fromReport(res *Result, rep *check.Report) {
	res.Distinct, res.Generated, res.Depth = int64(rep.Distinct), int64(rep.Generated), int64(rep.Depth)
	res.Status, res.Complete = Holds, true
	for k, v := range rep.Violated {
		w := Violation{Kind: v.Kind, Property: v.Property, Length: len(v.Trace)}
		if v.Kind == "deadlock" {
			w.Property = ""
		}
		if k == 0 {
			res.Status, res.First = Violated, w
		}
		res.All = append(res.All, w)
	}
	// A safety violation stops a search without --continue; a temporal
	// property is checked once the search is complete.
	for _, v := range res.All {
		if v.Kind != "liveness" {
			res.Complete = false
		}
	}
}

func (r Runner) timeout() time.Duration {
	if r.Timeout <= 0 {
		return 60 * time.Second
	}
	return r.Timeout
}

// firstLine is the first non-blank line of s, cut to fit a table cell.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 160 {
				l = l[:160] + "..."
			}
			return l
		}
	}
	return ""
}
