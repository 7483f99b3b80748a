package tlagen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/tla/tlc"
)

// JarEnv is the environment variable that locates tla2tools.jar.
const JarEnv = tlc.JarEnv

// ErrNoTLC says TLC is not available: no jar, or no java. Errors matching
// it also match tlc.ErrUnavailable.
var ErrNoTLC = errors.New("tlagen: TLC not available")

// FindTLC returns the path of tla2tools.jar as tlcrun finds it (see
// FindJar): $TLA2TOOLS_JAR, else where tlcrun install puts it.
func FindTLC() (string, error) { return FindJar("") }

// FindJar returns the tla2tools.jar to use, looked up as tlcrun looks it
// up (tla/tlc's FindJar: the flag's value, else $TLA2TOOLS_JAR, else
// the default location where tlcrun install puts it), after checking that
// it and a java exist (tla/tlc's FindJava: $JAVA_HOME, else PATH).
func FindJar(flag string) (string, error) {
	jar, _, err := tlc.FindJar(flag)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoTLC, err)
	}
	if _, _, err := tlc.FindJava(""); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoTLC, err)
	}
	return jar, nil
}

// CheckTLC is FindJar with the checks tlcrun makes before it runs TLC
// (tla/tlc's Find, given the --jar and --java flags' values): the
// jar holds TLC, and the java is Java 11 or later. trace2tla --run uses
// it, so that a jar that is not TLC or a Java too old is "TLC cannot run
// here" (ErrNoTLC) as it is to tlcrun, not a failure of TLC's. It
// returns the jar and the java to give RunTLC.
func CheckTLC(ctx context.Context, jarFlag, javaFlag string) (jar, java string, err error) {
	s, err := tlc.Find(ctx, jarFlag, javaFlag)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrNoTLC, err)
	}
	return s.Jar, s.Java, nil
}

// TLCResult is TLC's verdict on a trace-validation module.
type TLCResult struct {
	Accepted bool
	// Matched is the number of events some behaviour matched: the depth
	// of TLC's search minus one (the initial state).
	Matched int
	// Elapsed is the wall time of the java process, CPU its user and
	// system time (all of the JVM's threads: JIT, GC, the worker).
	Elapsed, CPU time.Duration
	Output       string
}

var (
	depthRE   = regexp.MustCompile(`The depth of the complete state graph search is (\d+)\.`)
	acceptRE  = regexp.MustCompile(`(?m)^Model checking completed\. No error has been found\.`)
	rejectRE  = regexp.MustCompile(`(?m)^Error: Postcondition TraceAccepted .* is false\.`)
	javaFlags = []string{"-XX:+UseParallelGC"}
)

// RunTLC runs TLC on <dir>/<module>.tla with its cfg, the one way this
// project runs TLC on trace modules: one worker (the verdict does not
// depend on it and one worker keeps timings comparable), no trace
// explorer spec (nothing to explore), and its metadata in a temporary
// folder. Resume.tla must be in dir. java is the java to run (as
// CheckTLC returns it); "" finds one as tlcrun does ($JAVA_HOME, else
// PATH).
func RunTLC(ctx context.Context, jar, java, dir, module string) (*TLCResult, error) {
	meta, err := os.MkdirTemp("", "tlagen-meta-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(meta)
	cp := jar
	if deps := filepath.Join(filepath.Dir(jar), "CommunityModules-deps.jar"); fileExists(deps) {
		cp += string(os.PathListSeparator) + deps
	}
	args := append(append([]string{}, javaFlags...), "-cp", cp, "tlc2.TLC",
		"-workers", "1", "-noGenerateSpecTE", "-metadir", meta,
		"-config", module+".cfg", module+".tla")
	java, _, err = tlc.FindJava(java)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoTLC, err)
	}
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	r := &TLCResult{Elapsed: time.Since(start), Output: out.String()}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	if m := depthRE.FindStringSubmatch(r.Output); m != nil {
		d, _ := strconv.Atoi(m[1])
		r.Matched = d - 1
	}
	switch {
	case acceptRE.MatchString(r.Output):
		r.Accepted = true
	case rejectRE.MatchString(r.Output):
	default:
		if runErr == nil {
			runErr = errors.New("no verdict in the output")
		}
		return r, fmt.Errorf("tlagen: TLC on %s: %v\n%s", module, runErr, tail(r.Output, 40))
	}
	return r, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
