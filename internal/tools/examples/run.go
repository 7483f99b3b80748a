package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Runner runs the two checkers on a model. A zero path disables that
// checker.
type Runner struct {
	// Examples is the tlaplus/Examples root.
	Examples string
	// Tlcrun is the tlcrun binary whose --engine interp is measured.
	Tlcrun string
	// Java runs TLC (default "java"); Jar is tla2tools.jar.
	Java, Jar string
	// Jars go on TLC's classpath after Jar (CommunityModules.jar); Lib
	// are folders of more modules (TLAPS.tla, ...), TLC's TLA-Library.
	Jars, Lib []string
	// Timeout bounds each run (default 300s).
	Timeout time.Duration
}

func (r Runner) timeout() time.Duration {
	if r.Timeout <= 0 {
		return 300 * time.Second
	}
	return r.Timeout
}

// paths gives the model's folder (absolute) and the cfg and spec as seen
// from it.
func (r Runner) paths(m Model) (dir, cfg, spec string, err error) {
	dir, err = filepath.Abs(filepath.Join(r.Examples, filepath.FromSlash(m.Dir())))
	if err != nil {
		return "", "", "", err
	}
	spec, err = filepath.Rel(dir, filepath.Join(r.Examples, filepath.FromSlash(m.Spec)))
	if err != nil {
		return "", "", "", err
	}
	return dir, filepath.Base(m.Name), spec, nil
}

// Interp runs the interpreter on m: tlcrun check --engine interp, one
// worker so that its time compares with TLC's.
func (r Runner) Interp(ctx context.Context, m Model) Observed {
	if r.Tlcrun == "" {
		return Observed{}
	}
	dir, cfg, spec, err := r.paths(m)
	if err != nil {
		return Observed{Ran: true, StartErr: err.Error()}
	}
	args := []string{"check", "--engine", "interp", "--spec", spec, "--json", "--continue", "--progress", "0", "--workers", "1"}
	for _, l := range r.Lib {
		args = append(args, "--lib", l)
	}
	args = append(args, cfg)
	o, stdout, stderr := r.run(ctx, dir, r.Tlcrun, args)
	o.Message = stderr
	if o.StartErr == "" && !o.TimedOut {
		o.Counts = parseInterp(o.Exit, stdout)
	}
	return o
}

// TLC runs TLC on m as the manifest recorded it (-config CFG SPEC, TLC's
// default options) but with one worker, so that its time compares with
// the interpreter's, and its files in a temporary metadir, never beside
// the spec.
func (r Runner) TLC(ctx context.Context, m Model) Observed {
	if r.Jar == "" {
		return Observed{}
	}
	dir, cfg, spec, err := r.paths(m)
	if err != nil {
		return Observed{Ran: true, StartErr: err.Error()}
	}
	meta, err := os.MkdirTemp("", "examples-tlc-")
	if err != nil {
		return Observed{Ran: true, StartErr: err.Error()}
	}
	defer os.RemoveAll(meta)
	java := r.Java
	if java == "" {
		java = "java"
	}
	args := tlcArgs(r.Jar, r.Jars, r.Lib, m.Features, meta, cfg, spec)
	o, stdout, stderr := r.run(ctx, dir, java, args)
	out := stdout + stderr
	if o.StartErr == "" && !o.TimedOut {
		o.Counts = parseTLC(o.Exit, out)
		o.Message = tlcMessage(out)
	}
	return o
}

// tlcArgs is java's command line for TLC.
func tlcArgs(jar string, jars, lib, features []string, meta, cfg, spec string) []string {
	// The Examples CI's garbage collector; the default one costs TLC time.
	args := []string{"-XX:+UseParallelGC"}
	if len(lib) > 0 {
		args = append(args, "-DTLA-Library="+strings.Join(lib, string(os.PathListSeparator)))
	}
	if slices.Contains(features, "action composition") {
		// The manifest's feature: TLC evaluates \cdot only when asked.
		args = append(args, "-Dtlc2.tool.impl.Tool.cdot=true")
	}
	cp := append([]string{jar}, jars...)
	args = append(args, "-cp", strings.Join(cp, string(os.PathListSeparator)), "tlc2.TLC",
		"-workers", "1", "-metadir", meta, "-config", cfg, spec)
	return args
}

// run runs name with args in dir under the timeout, timing it with the
// wall clock.
func (r Runner) run(ctx context.Context, dir, name string, args []string) (o Observed, stdout, stderr string) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	killGroup(cmd)
	// A child that keeps the pipes open (a script's sleep) must not hold
	// the run past its timeout.
	cmd.WaitDelay = 5 * time.Second
	o.Ran = true
	start := time.Now()
	err := cmd.Run()
	o.Seconds = time.Since(start).Seconds()
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		o.TimedOut = true
	case errors.As(err, &exit):
		o.Exit = exit.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		o.StartErr = err.Error()
	}
	return o, out.String(), errb.String()
}

// interpReport is the part of tlcrun check --json's report (check.Report)
// read here.
type interpReport struct {
	Verdict   string `json:"verdict"`
	Generated int64  `json:"generated"`
	Distinct  int64  `json:"distinct"`
	Depth     int64  `json:"depth"`
}

// parseInterp reads tlcrun's JSON report when the run finished: exit 0,
// or a violation (10 to 13); nil otherwise.
func parseInterp(exit int, stdout string) *Counts {
	if exit != 0 && (exit < 10 || exit > 13) {
		return nil
	}
	var rep interpReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &rep); err != nil || rep.Verdict == "" {
		return nil
	}
	return &Counts{Verdict: rep.Verdict, Distinct: rep.Distinct, Generated: rep.Generated, Depth: rep.Depth}
}

var (
	tlcStates = regexp.MustCompile(`(?m)^([\d,]+) states generated, ([\d,]+) distinct states found`)
	tlcDepth  = regexp.MustCompile(`The depth of the complete state graph search is ([\d,]+)`)
	tlcModule = regexp.MustCompile(`Cannot find source file for module (\w+)`)
	tlcError  = regexp.MustCompile(`(?m)^(Error: .*|.*[Ee]rror.*)$`)
)

// parseTLC reads TLC's final counts from its plain output. TLC exits 0
// when no error was found and 10 to 13 on a violation (assumption,
// deadlock, safety, liveness); anything else is a failure.
func parseTLC(exit int, out string) *Counts {
	var verdict string
	switch {
	case exit == 0:
		verdict = "ok"
	case exit >= 10 && exit <= 13:
		verdict = "violation"
	default:
		return nil
	}
	ms := tlcStates.FindAllStringSubmatch(out, -1)
	if ms == nil {
		return nil
	}
	last := ms[len(ms)-1]
	c := &Counts{Verdict: verdict, Generated: atoi(last[1]), Distinct: atoi(last[2])}
	if ds := tlcDepth.FindAllStringSubmatch(out, -1); ds != nil {
		c.Depth = atoi(ds[len(ds)-1][1])
	}
	return c
}

// tlcMessage picks the line that says why TLC failed.
func tlcMessage(out string) string {
	if m := tlcModule.FindStringSubmatch(out); m != nil {
		return "missing module " + m[1]
	}
	if m := tlcError.FindString(out); m != "" {
		return m
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("examples: %q matched a digits pattern: %v", s, err))
	}
	return n
}
