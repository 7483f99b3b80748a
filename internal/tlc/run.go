package tlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrInput is matched by errors about the files Run was given: a spec or
// cfg that does not exist.
var ErrInput = errors.New("tlc: bad input")

type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// Options say how to run TLC. The zero value of every field but Spec is a
// default.
type Options struct {
	// Jar and Java are tla2tools.jar and the java to run it; "" finds them
	// (FindJar, FindJava).
	Jar, Java string
	// Spec is the .tla file; Cfg the model file, by default the spec's
	// path with .cfg for .tla.
	Spec, Cfg string
	// Workers is TLC's -workers. 0 means 1: with one worker TLC explores
	// in a fixed order, so a run that stops at its first violation reports
	// the same counterexample and counts every time.
	Workers int
	// Continue is TLC's -continue: explore the whole state space after a
	// violation, so that the counts are those of the full space.
	Continue bool
	// Dump, when set, is a file TLC writes every distinct state to (its
	// -dump option); tlavalue.ReadDump reads it.
	Dump string
	// WorkDir is where TLC's metadir (its states folder) and its
	// temporary files go. "" means a fresh temporary folder, removed after
	// the run. Nothing is written beside the spec.
	WorkDir string
	// JavaOptions are options for the JVM, e.g. "-Xmx8g".
	JavaOptions []string
	// Progress, when set, receives every message as TLC prints it (the
	// progress reports have Code CodeProgressStats).
	Progress func(Message)
}

// Run runs TLC on a model in its -tool mode and reads its messages as
// they come. The error is for a run that could not be made or read: TLC
// unavailable (ErrUnavailable), a missing spec or cfg (ErrInput), a
// process that died without its final messages, a cancelled context
// (with the partial Result). Everything TLC reported is in the Result:
// violations, and the reasons it could not check the model (Result.Err).
func Run(ctx context.Context, opt Options) (*Result, error) {
	spec, cfg, err := inputs(opt)
	if err != nil {
		return nil, err
	}
	setup, err := Find(ctx, opt.Jar, opt.Java)
	if err != nil {
		return nil, err
	}
	work := opt.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "tlcrun-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	meta, tmp := filepath.Join(work, "meta"), filepath.Join(work, "tmp")
	for _, d := range []string{meta, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 1
	}
	args := append([]string{}, opt.JavaOptions...)
	// The parallel collector is what TLC's own launchers use; TLC's
	// temporary files (the standard modules it unpacks) go to the work
	// folder, and so do its states (-metadir). -noGenerateSpecTE: no
	// trace-explorer spec beside the user's spec. -lncheck final: temporal
	// properties are checked once, on the whole state space; by default
	// TLC also checks them on the part explored so far whenever it reports
	// progress, and a violation found that way ends the run, -continue or
	// not, so that the counts and the first violation would depend on the
	// machine's speed.
	args = append(args, "-XX:+UseParallelGC", "-Djava.io.tmpdir="+tmp, "-cp", setup.Jar, "tlc2.TLC",
		"-tool", "-workers", strconv.Itoa(workers), "-noGenerateSpecTE", "-lncheck", "final", "-metadir", meta)
	if opt.Continue {
		args = append(args, "-continue")
	}
	if opt.Dump != "" {
		dump, err := filepath.Abs(opt.Dump)
		if err != nil {
			return nil, err
		}
		args = append(args, "-dump", dump)
	}
	args = append(args, "-config", cfg, spec)
	cmd := exec.CommandContext(ctx, setup.Java, args...)
	cmd.Dir = work
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	res := &Result{Command: append([]string{setup.Java}, args...), cfg: cfg}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tlc: starting %s: %w", setup.Java, err)
	}
	readErr := read(stdout, res, opt.Progress)
	waitErr := cmd.Wait()
	res.Wall = time.Since(start)
	res.Stderr = stderr.String()
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res.PeakRSS = peakRSS(cmd.ProcessState)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		return res, fmt.Errorf("tlc: %w", waitErr)
	}
	if readErr != nil {
		return res, fmt.Errorf("tlc: reading TLC's output: %w%s", readErr, res.stderrTail())
	}
	res.readAssumptions()
	if !res.Finished && ExitStatus(res.ExitCode).Crashed() {
		return res, fmt.Errorf("tlc: TLC stopped before its end (exit %d: %s)%s", res.ExitCode, ExitStatus(res.ExitCode), res.stderrTail())
	}
	return res, nil
}

// inputs checks the spec and cfg and returns their absolute paths.
func inputs(opt Options) (spec, cfg string, err error) {
	if opt.Spec == "" {
		return "", "", &inputError{"tlc: no spec given"}
	}
	cfg = opt.Cfg
	if cfg == "" {
		cfg = strings.TrimSuffix(opt.Spec, ".tla") + ".cfg"
	}
	for _, f := range []struct{ what, path string }{{"spec", opt.Spec}, {"cfg", cfg}} {
		st, err := os.Stat(f.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", "", &inputError{fmt.Sprintf("%s %s does not exist", f.what, f.path)}
		case err != nil:
			return "", "", &inputError{err.Error()}
		case st.IsDir():
			return "", "", &inputError{fmt.Sprintf("%s %s is a folder", f.what, f.path)}
		}
	}
	if spec, err = filepath.Abs(opt.Spec); err == nil {
		cfg, err = filepath.Abs(cfg)
	}
	return spec, cfg, err
}

// read feeds TLC's messages to res and to progress as they come.
func read(r io.Reader, res *Result, progress func(Message)) error {
	rd := NewReader(r)
	var errs []error
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			// Keep draining, so that TLC is not blocked on a full pipe.
			_, _ = io.Copy(io.Discard, r)
			break
		}
		if err := res.Add(m); err != nil {
			errs = append(errs, err)
		}
		if progress != nil {
			progress(m)
		}
	}
	res.finishSANY()
	if !res.seenMessage && len(errs) == 0 {
		errs = append(errs, ErrNoMessages)
	}
	return errors.Join(errs...)
}

func (r *Result) stderrTail() string {
	s := strings.TrimSpace(r.Stderr)
	if s == "" {
		if n := len(r.Output); n > 0 {
			s = strings.TrimSpace(strings.Join(r.Output[max(0, n-10):], "\n"))
		}
	}
	if s == "" {
		return ""
	}
	return "; TLC said:\n" + s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.buf.String() }

// ExpectedExit is the exit status TLC gives a run that printed what r
// holds: ExitStatus, except that with -continue TLC exits 0 after
// violations (it reports them all and counts the whole space).
func (r *Result) ExpectedExit(continued bool) ExitStatus {
	s := r.ExitStatus()
	if continued && s.IsViolation() && s != ExitViolationAssumption {
		return ExitSuccess
	}
	return s
}

// Error is why TLC could not check a model: the spec does not parse, the
// cfg is wrong, an ASSUME is false, an expression cannot be evaluated, the
// machine ran out of memory.
type Error struct {
	Kind Kind
	// File, Line and Col say where, when TLC said; Line is 0 otherwise.
	File      string
	Line, Col int
	Msg       string
	// More counts further errors of the same run, not shown.
	More int
}

func (e *Error) Error() string {
	var sb strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&sb, "%s:%d:%d: ", e.File, e.Line, e.Col)
	case e.File != "":
		fmt.Fprintf(&sb, "%s: ", e.File)
	}
	sb.WriteString(e.Msg)
	if e.More > 0 {
		fmt.Fprintf(&sb, " (and %d more)", e.More)
	}
	return sb.String()
}

// IsInput reports whether the error is in the user's files (the spec, the
// cfg, the constants' values) rather than in the run.
func (e *Error) IsInput() bool {
	switch e.Kind {
	case KindParse, KindConfig, KindAssumption:
		return true
	}
	return false
}

// Err returns why TLC could not check the model, an *Error, or nil when
// it checked it (whatever it found). Spec errors come first, then
// configuration and evaluation errors, then false assumptions.
func (r *Result) Err() error {
	var fatal []SpecError
	for _, e := range r.SpecErrors {
		if !e.Warning {
			fatal = append(fatal, e)
		}
	}
	if len(fatal) > 0 {
		e := fatal[0]
		for _, f := range fatal {
			if f.BeginLine > 0 { // the one with a position says most
				e = f
				break
			}
		}
		file := e.File
		if f, ok := r.ModuleFiles[e.Module]; ok && (file == "" || !strings.ContainsRune(file, filepath.Separator)) {
			file = f
		}
		return &Error{Kind: KindParse, File: file, Line: e.BeginLine, Col: e.BeginCol, Msg: e.Message, More: len(fatal) - 1}
	}
	var errs []Issue
	for _, is := range r.Errors {
		if is.Severity == SeverityError || is.Severity == SeverityBug {
			errs = append(errs, is)
		}
	}
	for _, is := range r.Violations {
		if is.Kind == KindAssumption {
			errs = append(errs, is)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	is := errs[0]
	if is.Kind == KindParse {
		// SANY's log was not read (output cut short): TLC's own words.
		return &Error{Kind: KindParse, Msg: is.Message, More: len(errs) - 1}
	}
	e := &Error{Kind: is.Kind, Msg: strings.Join(strings.Fields(is.Message), " "), More: len(errs) - 1}
	if is.Kind == KindAssumption && len(is.Locations) > 0 {
		e.Msg = "ASSUME is false for the cfg's constants"
		if text, ok := r.assumptions[is.Locations[0]]; ok {
			e.Msg = "ASSUME " + text + " is false for the cfg's constants"
		}
		if r.cfg != "" {
			e.Msg += " (" + r.cfg + ")"
		}
	}
	if len(is.Locations) > 0 {
		loc := is.Locations[len(is.Locations)-1] // the innermost
		e.File, e.Line, e.Col = r.ModuleFiles[loc.Module], loc.BeginLine, loc.BeginCol
		if e.File == "" {
			e.File = "module " + loc.Module
		}
	} else if is.Kind == KindConfig {
		e.File = r.cfg
	}
	return e
}

// readAssumptions reads the text of each false ASSUME from the spec, so
// that the error can quote it.
func (r *Result) readAssumptions() {
	for _, is := range r.Violations {
		if is.Kind != KindAssumption || len(is.Locations) == 0 {
			continue
		}
		loc := is.Locations[0]
		file, ok := r.ModuleFiles[loc.Module]
		if !ok || loc.BeginLine < 1 || loc.EndLine < loc.BeginLine {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if loc.EndLine > len(lines) {
			continue
		}
		var parts []string
		for n := loc.BeginLine; n <= loc.EndLine; n++ {
			line := lines[n-1]
			if n == loc.EndLine && loc.EndCol <= len(line) {
				line = line[:loc.EndCol]
			}
			if n == loc.BeginLine && loc.BeginCol-1 <= len(line) {
				line = line[loc.BeginCol-1:]
			}
			parts = append(parts, strings.TrimSpace(line))
		}
		if r.assumptions == nil {
			r.assumptions = map[Location]string{}
		}
		r.assumptions[loc] = strings.Join(parts, " ")
	}
}
