package bench

// A minimal TLC runner for the benchmark's TLC columns, kept apart on
// purpose: it finds the jar through TLA2TOOLS_JAR only, runs TLC in its
// plain output mode, and reads the final counts with three patterns. The
// project's TLC integration (internal/tlc) reads TLC's -tool messages in
// full; this only needs the numbers a benchmark compares.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// TLC runs the TLC jar.
type TLC struct {
	Java, Jar string
}

// FindTLC returns the TLC found through the TLA2TOOLS_JAR environment
// variable and java on PATH, or why there is none.
func FindTLC() (*TLC, error) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		return nil, fmt.Errorf("TLA2TOOLS_JAR is not set")
	}
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("TLA2TOOLS_JAR: %v", err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("no java on PATH")
	}
	return &TLC{Java: java, Jar: jar}, nil
}

var (
	tlcCountsRE = regexp.MustCompile(`(?m)^([0-9,]+) states generated, ([0-9,]+) distinct states found, ([0-9,]+) states left on queue\.`)
	tlcDepthRE  = regexp.MustCompile(`(?m)^The depth of the complete state graph search is ([0-9,]+)\.`)
	tlcErrorRE  = regexp.MustCompile(`(?m)^Error: `)
)

// Run checks cfg against spec with TLC and the given worker count. The
// parallel collector suits TLC's throughput best; -noGenerateSpecTE keeps
// it from writing a trace spec next to the model.
func (t *TLC) Run(ctx context.Context, cfg, spec string, workers int) Run {
	r := Run{Cfg: cfg, Engine: "tlc", Workers: workers}
	meta, err := os.MkdirTemp("", "tlcrun-bench-tlc-")
	if err != nil {
		r.Err = err
		return r
	}
	defer os.RemoveAll(meta)
	cmd := exec.CommandContext(ctx, t.Java, "-XX:+UseParallelGC", "-cp", t.Jar, "tlc2.TLC",
		"-workers", strconv.Itoa(workers), "-noGenerateSpecTE", "-metadir", meta, "-config", cfg, spec)
	out, wall, cpu, rss, err := runChild(ctx, cmd)
	r.Wall, r.CPU, r.PeakRSS = wall, cpu, rss
	if err != nil {
		r.Err = err
		return r
	}
	text := string(out)
	m := tlcCountsRE.FindAllStringSubmatch(text, -1)
	d := tlcDepthRE.FindStringSubmatch(text)
	if m == nil || d == nil {
		r.Err = fmt.Errorf("TLC printed no final counts: %s", lastLine(text))
		return r
	}
	last := m[len(m)-1]
	r.Generated, r.Distinct = atoi(last[1]), atoi(last[2])
	r.Depth = int(atoi(d[1]))
	r.Verdict = "ok"
	if tlcErrorRE.MatchString(text) {
		r.Verdict = "violation"
	}
	return r
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}
