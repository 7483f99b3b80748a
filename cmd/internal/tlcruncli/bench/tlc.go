package bench

import (
	"context"
	"fmt"

	"github.com/resumecontract/resumecheck/tla/tlc"
)

// TLC runs TLC for the benchmark through tla/tlc, the project's one
// TLC runner: found the way every tlcrun command finds it, run in its
// -tool mode (temporal properties checked once, on the whole graph) with
// its messages parsed, so the benchmark measures what `tlcrun check
// --engine tlc` runs.
type TLC struct {
	Setup *tlc.Setup
	// JavaOptions are extra options for TLC's JVM.
	JavaOptions []string
}

// FindTLC locates TLC and java (empty flags: TLA2TOOLS_JAR, the cache
// folder, JAVA_HOME, PATH; see tlc.Find), or says why there is none.
func FindTLC(ctx context.Context, jar, java string) (*TLC, error) {
	s, err := tlc.Find(ctx, jar, java)
	if err != nil {
		return nil, err
	}
	return &TLC{Setup: s}, nil
}

// Run checks cfg against spec with TLC at the given worker count.
func (t *TLC) Run(ctx context.Context, cfg, spec string, workers int) Run {
	r := Run{Cfg: cfg, Engine: "tlc", Workers: workers}
	res, err := tlc.Run(ctx, tlc.Options{Jar: t.Setup.Jar, Java: t.Setup.Java, Spec: spec, Cfg: cfg,
		Workers: workers, JavaOptions: t.JavaOptions})
	if res != nil {
		r.Wall, r.CPU, r.PeakRSS, r.PeakRSSAtMost = res.Wall, res.CPU, res.PeakRSS, res.PeakRSSAtMost
	}
	if err == nil {
		err = res.Err()
	}
	if err == nil && res.Stats == nil {
		err = fmt.Errorf("TLC reported no final counts (exit %d)", res.ExitCode)
	}
	if err != nil {
		r.Err = err
		return r
	}
	r.Generated, r.Distinct, r.Depth = res.Stats.Generated, res.Stats.Distinct, res.Depth
	r.Verdict = "ok"
	if len(res.Violations) > 0 {
		r.Verdict = "violation"
	}
	return r
}
