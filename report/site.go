package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// SiteOptions say where the example pages' inputs are. Paths are relative
// to the working folder (the repository's root for `make report`); the
// zero value is the repository's layout.
type SiteOptions struct {
	// SpecDir is the spec folder (default "spec").
	SpecDir string
	// Trace is the rejected trace drawn (default
	// testdata/traces/partial/doc-example-replay.ndjson).
	Trace string
	// Profiles is the folder of conformance profiles (default
	// testdata/conformance); no conformance page when it does not exist.
	Profiles string
	// Workers for the Go engine (0: every core).
	Workers int
	// Log, when set, is told each file written.
	Log func(path string)
}

// SitePages are the pages WriteSite writes, by file name.
var SitePages = []string{"matrix.html", "redeliver.html", "trace.html", "conformance.html", "explorer.html"}

// WriteSite writes the example pages into dir, as `make report` does
// (tlcrun report site): the fault matrix at R0, the check of
// fault-redeliver (and its DOT graph), a rejected trace, the explorer and
// the conformance table. The browser test reads these same pages.
func WriteSite(ctx context.Context, dir string, opt SiteOptions) error {
	if opt.SpecDir == "" {
		opt.SpecDir = "spec"
	}
	if opt.Trace == "" {
		opt.Trace = filepath.Join("testdata", "traces", "partial", "doc-example-replay.ndjson")
	}
	if opt.Profiles == "" {
		opt.Profiles = filepath.Join("testdata", "conformance")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, p *Page) error {
		path := filepath.Join(dir, name)
		if err := p.WritePath(path); err != nil {
			return err
		}
		if opt.Log != nil {
			opt.Log(path)
		}
		return nil
	}

	res, err := matrix.Build(ctx, opt.SpecDir, matrix.Options{Workers: opt.Workers})
	if err != nil {
		return err
	}
	page, err := Matrix(res, Options{PageDir: dir})
	if err != nil {
		return err
	}
	if err := write("matrix.html", page); err != nil {
		return err
	}

	job, err := check.Load(filepath.Join(opt.SpecDir, "fault-redeliver.cfg"), "")
	if err != nil {
		return err
	}
	rep, err := job.Run(ctx, check.RunOptions{Workers: opt.Workers})
	if err != nil {
		return err
	}
	if page, err = Check(job.Params, rep, Options{PageDir: dir}); err != nil {
		return err
	}
	if err := write("redeliver.html", page); err != nil {
		return err
	}
	g, dopt, err := GraphOf(job.Params, rep, Options{})
	if err != nil {
		return err
	}
	err = atomicfile.WriteFile(filepath.Join(dir, "redeliver.dot"), func(w io.Writer) error {
		return g.WriteDOT(w, dopt)
	})
	if err != nil {
		return err
	}

	tr, err := trace.ReadFile(opt.Trace)
	if err != nil {
		return err
	}
	in, err := CheckTrace(opt.Trace, tr, tracecheck.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", opt.Trace, err)
	}
	if page, err = Trace(in, Options{PageDir: dir}); err != nil {
		return err
	}
	if err := write("trace.html", page); err != nil {
		return err
	}

	if page, err = Explore(ExploreOptions{SpecDir: opt.SpecDir}); err != nil {
		return err
	}
	if err := write("explorer.html", page); err != nil {
		return err
	}

	if _, err := os.Stat(opt.Profiles); err == nil {
		profiles, err := harness.ReadProfiles(opt.Profiles)
		if err != nil {
			return err
		}
		if page, err = Conformance(profiles, Options{PageDir: dir}); err != nil {
			return err
		}
		if err := write("conformance.html", page); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
