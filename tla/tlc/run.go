package tlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/internal/childmem"
	"github.com/resumecontract/resumecheck/tla/tlcout"
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
	// progress reports have Code tlcout.CodeProgressStats).
	Progress func(tlcout.Message)
}

// Run runs TLC on a model in its -tool mode and reads its messages as
// they come. The error is for a run that could not be made or read: TLC
// unavailable (ErrUnavailable), a missing spec or cfg (ErrInput), a
// process that died without its final messages, a cancelled context
// (with the partial Result). Everything TLC reported is in the tlcout.Result:
// violations, and the reasons it could not check the model (Result.Err).
func Run(ctx context.Context, opt Options) (*tlcout.Result, error) {
	spec, cfg, err := inputs(opt)
	if err != nil {
		return nil, err
	}
	setup, err := Find(ctx, opt.Jar, opt.Java)
	if err != nil {
		return nil, err
	}
	work, meta, tmp, done, err := workDirs(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	defer done()
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
	return runTool(ctx, setup.Java, args, work, cfg, opt.Progress)
}

// runTool runs java with args (a TLC program in -tool mode) in the folder
// dir and reads its messages as they come; cfg is the model file, for
// errors that name it. The error is for a run that could not be made or
// read, as Run's.
func runTool(ctx context.Context, java string, args []string, dir, cfg string, progress func(tlcout.Message)) (*tlcout.Result, error) {
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Dir = dir
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	res := &tlcout.Result{Command: append([]string{java}, args...), Cfg: cfg}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tlc: starting %s: %w", java, err)
	}
	watch := childmem.Start(cmd.Process)
	readErr := res.Read(stdout, progress)
	waitErr := cmd.Wait()
	res.Wall = time.Since(start)
	res.Stderr = stderr.String()
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res.PeakRSS, res.PeakRSSAtMost = watch.Peak(cmd.ProcessState)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		return res, fmt.Errorf("tlc: %w", waitErr)
	}
	if readErr != nil {
		return res, fmt.Errorf("tlc: reading TLC's output: %w%s", readErr, res.StderrTail())
	}
	res.ReadAssumptions()
	if !res.Finished && tlcout.ExitStatus(res.ExitCode).Crashed() {
		return res, fmt.Errorf("tlc: TLC stopped before its end (exit %d: %s)%s", res.ExitCode, tlcout.ExitStatus(res.ExitCode), res.StderrTail())
	}
	return res, nil
}

// workDirs makes the folders of a run: the work folder (dir, else a fresh
// temporary one that done removes), and in it TLC's metadir and its
// temporary folder.
func workDirs(dir string) (work, meta, tmp string, done func(), err error) {
	work, done = dir, func() {}
	if work == "" {
		if work, err = os.MkdirTemp("", "tlcrun-"); err != nil {
			return "", "", "", nil, err
		}
		done = func() { os.RemoveAll(work) }
	}
	meta, tmp = filepath.Join(work, "meta"), filepath.Join(work, "tmp")
	for _, d := range []string{meta, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			done()
			return "", "", "", nil, err
		}
	}
	return work, meta, tmp, done, nil
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
