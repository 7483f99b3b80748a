package interp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"golang.org/x/tools/txtar"
)

// TestScenarios runs each testdata/*.txtar: a spec (Spec.tla, and any
// module it uses) with its cfg (Spec.cfg), checked by the interpreter
// end to end as tlcrun does, against the expectations in the archive's
// comment, one "key: value" a line (after the prose):
//
//	verdict: ok | violated       the run's verdict
//	property: Inv                the violated property ("deadlock")
//	trace: 3                     the counterexample's number of states
//	lasso: stutters | loop | none  how a liveness counterexample ends
//	generated, distinct, depth   TLC's counts (worked out by hand)
//	error: text                  the run fails with an error containing text
//	unsupported: text            ... an *eval.UnsupportedError containing text
//	at: Spec.tla:7:9             the error's position
//
// The counts and verdicts are TLC's: each archive was also checked with
// "tlcrun check --engine tlc" when it was written (TLC's lasso for a
// liveness violation may differ in length, so "trace" is given for
// invariants and deadlocks only). The test does not need TLC.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no scenarios", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			t.Parallel()
			sc := readScenario(t, f)
			rep, err := runInterp(t, sc)
			sc.verify(t, rep, err)
		})
	}
}

type scenario struct {
	file string
	dir  string
	want map[string]string
}

func readScenario(t *testing.T, path string) *scenario {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario{file: path, dir: t.TempDir(), want: map[string]string{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && !strings.Contains(k, " ") && k != "" {
			sc.want[k] = strings.TrimSpace(v)
		}
	}
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(sc.dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sc
}

func runInterp(t *testing.T, sc *scenario) (*check.Report, error) {
	job, err := check.LoadInterpreted(filepath.Join(sc.dir, "Spec.cfg"), filepath.Join(sc.dir, "Spec.tla"))
	if err != nil {
		return nil, err
	}
	return job.Run(context.Background(), check.RunOptions{Workers: 1})
}

func (sc *scenario) verify(t *testing.T, rep *check.Report, err error) {
	t.Helper()
	if msg, ok := sc.want["unsupported"]; ok {
		if err == nil {
			t.Fatalf("%s: ran (%s), want refused as unsupported: %s", sc.file, rep.Summary(), msg)
		}
		// check.LoadInterpreted wraps front-end errors as input errors
		// with the same text; the package-level error is checked by
		// TestRefusals.
		if !strings.Contains(err.Error(), "not supported: ") || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s: error %q, want \"not supported\" and %q", sc.file, err, msg)
		}
		// The front end's own error is an *eval.UnsupportedError naming
		// the construct and where it is.
		cfg, cerr := tlacfg.ParseFile(filepath.Join(sc.dir, "Spec.cfg"))
		if cerr != nil {
			t.Fatal(cerr)
		}
		_, lerr := interp.Load(filepath.Join(sc.dir, "Spec.tla"), nil, interp.Config(cfg))
		var ue *eval.UnsupportedError
		if !errors.As(lerr, &ue) || !eval.IsUnsupported(lerr) {
			t.Fatalf("%s: interp.Load: %v (%T), want an *eval.UnsupportedError", sc.file, lerr, lerr)
		}
		if !strings.Contains(ue.Construct, msg) || ue.File != filepath.Join(sc.dir, "Spec.tla") || ue.Pos.Line == 0 {
			t.Fatalf("%s: %+v, want the construct %q in Spec.tla", sc.file, ue, msg)
		}
	}
	if msg, ok := sc.want["error"]; ok {
		if err == nil {
			t.Fatalf("%s: ran (%s), want an error containing %q", sc.file, rep.Summary(), msg)
		}
		if !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s: error %q, want one containing %q", sc.file, err, msg)
		}
	}
	if at, ok := sc.want["at"]; ok && (err == nil || !strings.Contains(err.Error(), filepath.Join(sc.dir, at))) {
		t.Fatalf("%s: error %v, want it at %s", sc.file, err, at)
	}
	if err != nil {
		_, e := sc.want["error"]
		_, u := sc.want["unsupported"]
		if !e && !u {
			t.Fatalf("%s: %v", sc.file, err)
		}
		return
	}
	if v := sc.want["verdict"]; v != "" && rep.Verdict != v {
		t.Errorf("%s: verdict %s, want %s (%s)", sc.file, rep.Verdict, v, rep.Summary())
	}
	if p := sc.want["property"]; p != "" {
		v := rep.FirstViolation()
		if v == nil || v.Name() != p {
			t.Errorf("%s: %s, want %s violated", sc.file, rep.Summary(), p)
		} else if n := sc.want["trace"]; n != "" && strconv.Itoa(len(v.Trace)) != n {
			t.Errorf("%s: counterexample of %d states, want %s:\n%s", sc.file, len(v.Trace), n, v.TraceText())
		} else if l := sc.want["lasso"]; l != "" {
			got := "none"
			switch {
			case v.Stutters:
				got = "stutters"
			case v.LoopTo != nil:
				got = "loop"
			}
			if got != l {
				t.Errorf("%s: counterexample ends with %s, want %s:\n%s", sc.file, got, l, v.TraceText())
			}
		}
	}
	for _, k := range []string{"generated", "distinct", "depth"} {
		want, ok := sc.want[k]
		if !ok {
			continue
		}
		var got int
		switch k {
		case "generated":
			got = int(rep.Generated)
		case "distinct":
			got = int(rep.Distinct)
		case "depth":
			got = rep.Depth
		}
		if strconv.Itoa(got) != want {
			t.Errorf("%s: %s %d, want %s", sc.file, k, got, want)
		}
	}
}
