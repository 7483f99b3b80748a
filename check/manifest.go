package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/resumecontract/resumecheck/internal/jsonfile"
)

// Manifest records, for every model file of a spec, the result the
// checkers must produce (in the manner of tlaplus/Examples' manifest.json).
// The counts are those of the whole reachable state space (TLC with
// -continue), which do not depend on the order of exploration; the first
// violation is what a run that stops at the first error reports.
type Manifest struct {
	// About says in words what the manifest records.
	About string `json:"about,omitempty"`
	// Spec is the spec file, relative to the manifest.
	Spec   string  `json:"spec"`
	Models []Entry `json:"models"`
	// dir is the manifest's folder; paths are relative to it.
	dir  string
	path string
}

// Entry is one model file and its expected result.
type Entry struct {
	Cfg string `json:"cfg"`
	// Tier is "quick" (checked by every test run), "long" (checked by
	// make targets with more time) or "bench": a benchmark model too large
	// for any test or for verify's "all", checked only when asked for by
	// name of tier, on a machine made for it (spec/bench/R2B.cfg).
	Tier string `json:"tier"`
	// TLAChecker marks models small enough for the differential test
	// against the tla-checker reading of the spec.
	TLAChecker bool   `json:"tla_checker"`
	Expect     Expect `json:"expect"`
}

// Expect is a model's expected result.
type Expect struct {
	// Result is "ok" or "violation".
	Result string `json:"result"`
	// First is the property a stop-at-first-error run reports, with the
	// length (in states) of its shortest counterexample.
	First       string `json:"first,omitempty"`
	FirstKind   string `json:"first_kind,omitempty"`
	TraceLength int    `json:"trace_length,omitempty"`
	// Violated lists every property the cfg checks that fails somewhere,
	// in the cfg's order.
	Violated  []string `json:"violated"`
	Generated uint64   `json:"generated"`
	Distinct  uint64   `json:"distinct"`
	Depth     int      `json:"depth"`
}

// LoadManifest reads a manifest file.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, inputf("%v", err)
	}
	var m Manifest
	if err := jsonfile.Decode(path, b, &m, jsonfile.Options{Strict: true}); err != nil {
		return nil, inputf("%v", err)
	}
	m.dir, m.path = filepath.Dir(path), path
	if m.Spec == "" {
		return nil, inputf("%s: no spec", path)
	}
	if len(m.Models) == 0 {
		// A manifest that records nothing would let verify agree with it.
		return nil, inputf("%s: no models", path)
	}
	seen := map[string]int{}
	for i, e := range m.Models {
		switch {
		case e.Cfg == "":
			return nil, inputf("%s: model %d has no cfg", path, i+1)
		case seen[e.Cfg] > 0:
			return nil, inputf("%s: model %d: %s is listed twice (first as model %d)", path, i+1, e.Cfg, seen[e.Cfg])
		case e.Tier != "quick" && e.Tier != "long" && e.Tier != "bench":
			return nil, inputf("%s: model %d (%s): tier %q, want quick, long or bench", path, i+1, e.Cfg, e.Tier)
		}
		seen[e.Cfg] = i + 1
		if msg := e.Expect.inconsistent(e.Tier == "bench"); msg != "" {
			return nil, inputf("%s: model %d (%s): %s", path, i+1, e.Cfg, msg)
		}
	}
	return &m, nil
}

// inconsistent says what is self-contradictory in an expectation, or "".
// A run of the whole space reaches at least the initial state; a verdict
// of violation names its first violation, which is among the violated
// properties; a verdict of ok names none. A bench model (bench) may leave
// generated and depth at 0 together: not yet recorded (Unrecorded).
func (x Expect) inconsistent(bench bool) string {
	switch x.Result {
	case "ok":
		if x.First != "" || x.FirstKind != "" || x.TraceLength != 0 || len(x.Violated) > 0 {
			return "result ok with a violation recorded (first, first_kind, trace_length or violated)"
		}
	case "violation":
		switch {
		case x.First == "" || len(x.Violated) == 0:
			return "result violation without its first violation and the violated properties"
		case x.FirstKind != "invariant" && x.FirstKind != "liveness" && x.FirstKind != "deadlock":
			return fmt.Sprintf("first_kind %q, want invariant, liveness or deadlock", x.FirstKind)
		case x.TraceLength < 1:
			return fmt.Sprintf("trace_length %d, want 1 or more", x.TraceLength)
		case !slices.Contains(x.Violated, x.First):
			return fmt.Sprintf("first %s is not among the violated %v", x.First, x.Violated)
		}
	default:
		return fmt.Sprintf("result %q, want ok or violation", x.Result)
	}
	switch {
	case bench && x.Unrecorded():
		if x.Distinct < 1 {
			return fmt.Sprintf("distinct %d: a state space has at least its initial state", x.Distinct)
		}
	case x.Distinct < 1 || x.Depth < 1:
		return fmt.Sprintf("distinct %d, depth %d: a state space has at least its initial state", x.Distinct, x.Depth)
	case x.Generated < x.Distinct:
		return fmt.Sprintf("generated %d is fewer than distinct %d", x.Generated, x.Distinct)
	}
	return ""
}

// Cfgs are the paths of the cfgs of the entries of a tier ("quick",
// "long", "bench"; "" for every entry but the bench tier's), in the
// manifest's order. Tests select the models they run with it, never by a
// glob of the folder: a cfg a user copies beside the spec is not a model
// the tests know the size of.
func (m *Manifest) Cfgs(tier string) []string {
	var out []string
	for _, e := range m.Models {
		if tier == "" && e.Tier != "bench" || e.Tier == tier {
			out = append(out, m.CfgPath(e))
		}
	}
	return out
}

// CfgPath is the path of an entry's cfg.
func (m *Manifest) CfgPath(e Entry) string { return m.resolve(e.Cfg) }

// SpecPath is the path of the manifest's spec.
func (m *Manifest) SpecPath() string { return m.resolve(m.Spec) }

func (m *Manifest) resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(m.dir, p)
}

// Outcome is what the Go engine found for an entry, in the manifest's terms.
type Outcome struct {
	Cfg    string `json:"cfg"`
	Expect Expect `json:"found"`
	// Mismatches lists every difference from the manifest; empty = agrees.
	Mismatches []string `json:"mismatches"`
	Seconds    float64  `json:"seconds"`
}

// Measure runs an entry's cfg with the Go engine (see MeasureJob).
func (m *Manifest) Measure(ctx context.Context, e Entry) (Expect, float64, error) {
	job, err := Load(m.CfgPath(e), m.SpecPath())
	if err != nil {
		return Expect{}, 0, err
	}
	return MeasureJob(ctx, job, RunOptions{})
}

// MeasureJob runs a job the way the manifest records it: once exploring
// everything (the counts, every violated property) and, when something is
// violated, once stopping at the first error. opt sets the workers,
// memory and progress; Continue is set by each run. The seconds are those
// of both runs.
func MeasureJob(ctx context.Context, job *Job, opt RunOptions) (Expect, float64, error) {
	opt.Continue = true
	full, err := job.Run(ctx, opt)
	if err != nil {
		return Expect{}, 0, err
	}
	if full.Verdict == "unknown" {
		return Expect{}, 0, ctx.Err()
	}
	got := Expect{Result: full.Verdict, Generated: full.Generated, Distinct: full.Distinct, Depth: full.Depth, Violated: []string{}}
	secs := full.Seconds
	for _, name := range full.Checked {
		for _, v := range full.Violated {
			if v.Name() == name {
				got.Violated = append(got.Violated, name)
			}
		}
	}
	if len(full.Violated) > 0 {
		opt.Continue = false
		first, err := job.Run(ctx, opt)
		if err != nil {
			return Expect{}, 0, err
		}
		v := first.FirstViolation()
		if v == nil {
			return Expect{}, 0, fmt.Errorf("%s: a full run found violations but a stopping run found none", job.CfgPath)
		}
		got.First, got.FirstKind, got.TraceLength = v.Name(), v.Kind, len(v.Trace)
		secs += first.Seconds
	}
	return got, secs, nil
}

// Verify measures an entry and compares it with the manifest.
func (m *Manifest) Verify(ctx context.Context, e Entry) (Outcome, error) {
	got, secs, err := m.Measure(ctx, e)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Cfg: e.Cfg, Expect: got, Mismatches: Diff(e.Expect, got), Seconds: secs}, nil
}

// Unrecorded reports whether an expectation leaves the states generated
// and the depth unrecorded (both 0): only a bench model's may, until a
// run on a machine made for it records them (tlcrun verify --tier bench
// --print); Diff then compares the rest.
func (x Expect) Unrecorded() bool { return x.Generated == 0 && x.Depth == 0 }

// Diff lists the differences between an expected and a found result.
func Diff(want, got Expect) []string {
	var out []string
	cmp := func(field string, w, g any) {
		if fmt.Sprint(w) != fmt.Sprint(g) {
			out = append(out, fmt.Sprintf("%s: manifest says %v, found %v", field, w, g))
		}
	}
	cmp("result", want.Result, got.Result)
	cmp("first", want.First, got.First)
	cmp("first_kind", want.FirstKind, got.FirstKind)
	cmp("trace_length", want.TraceLength, got.TraceLength)
	if !slices.Equal(want.Violated, got.Violated) {
		out = append(out, fmt.Sprintf("violated: manifest says %v, found %v", want.Violated, got.Violated))
	}
	recorded := !want.Unrecorded()
	if recorded {
		cmp("generated", want.Generated, got.Generated)
	}
	cmp("distinct", want.Distinct, got.Distinct)
	if recorded {
		cmp("depth", want.Depth, got.Depth)
	}
	return out
}
