// Package mirror is the comparison behind tlcrun mirror: it decides
// whether the compiled Go mirror (model/, or another mirrored spec)
// mirrors the spec of a manifest. It always compares it with the TLA+
// interpreter (tla/interp, which reads the spec's text; no Java, no
// Node), state by state: the state graph, the value of every state
// predicate both define and the actions enabled
// (check.CompareWithInterpreter). Where they are present, tla-checker
// (the differential test of package tlachecker, under Node) and TLC (both
// engines, figures and state sets) compare it too. A comparison that
// passed becomes the record the Go engine checks every spec against
// (package spec, mirror.json beside the manifest).
package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlachecker"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// The checkers a comparison can use. The interpreter always runs.
const (
	Interpreter = "interpreter"
	TLAChecker  = "tla-checker"
	TLC         = "tlc"
)

// InterpreterCompared says what the interpreter's comparison compares.
const InterpreterCompared = "state by state with the TLA+ interpreter: initial states, successors, " +
	"the value of every state predicate (one only one side defines is a difference) and the actions enabled, in every reachable state"

// ErrNoChecker is wrapped when no checker asked for (or none at all) can
// run here; the error says what is missing.
var ErrNoChecker = errors.New("mirror: a checker to compare the Go model with cannot run here")

// Options say which checkers to use and how.
type Options struct {
	// Manifest is the manifest whose spec and models are compared.
	Manifest string
	// Checkers are the checkers to use besides the interpreter, which
	// always runs; empty means every one that can run here.
	Checkers []string
	// Tier is the manifest's tier whose models the interpreter compares:
	// "" or "quick", "long", or "all" (R8's millions of states compared
	// as TLA+ values take long). TLC compares the quick models and
	// tla-checker those marked tla_checker, whatever the tier.
	Tier string
	// Extra are state predicates added to the Resume mirror's (a seam for
	// the tests that break a predicate on purpose; no command sets it).
	Extra []check.MirrorPredicate
	// CheckerDir is tla-checker's folder (tla/tlachecker/js).
	CheckerDir string
	// TLC says how to run TLC (jar, java, workers, JVM options).
	TLC tlc.Options
	// Load loads a model for the Go engine; nil means check.Load. The jobs
	// are made Unverified: this comparison is what decides whether the
	// model mirrors the spec. (Tests give a Load that mutates the model.)
	Load func(cfgPath, specPath string) (*check.Job, error)
	// Log, when set, receives a line per model compared.
	Log io.Writer
}

// Result is a comparison of the Go model with a spec.
type Result struct {
	// Spec is the spec compared and Digest the digest of its normal form.
	Spec   string `json:"spec"`
	Digest string `json:"digest"`
	// Checks are the checkers' comparisons, in the order they ran: the
	// interpreter's first.
	Checks []Check `json:"checks"`
	// Skipped say why a checker besides the interpreter did not run.
	Skipped []string `json:"skipped,omitempty"`
}

// Check is one checker's comparison.
type Check struct {
	// Checker names the checker and its version.
	Checker string `json:"checker"`
	// Compared says what the checker compared.
	Compared string  `json:"compared"`
	Models   []Model `json:"models"`
}

// Model is one model's comparison.
type Model struct {
	Cfg   string `json:"cfg"`
	Agree bool   `json:"agree"`
	// Summary is a line for people ("59 states" or the first difference);
	// Detail the whole report of a disagreement.
	Summary string `json:"summary"`
	Detail  string `json:"detail,omitempty"`
}

// Agree reports whether every model of every check agrees (and something
// was compared).
func (r *Result) Agree() bool {
	n := 0
	for _, c := range r.Checks {
		for _, m := range c.Models {
			if !m.Agree {
				return false
			}
			n++
		}
	}
	return n > 0
}

// Run compares the Go model with the manifest's spec: with tla-checker on
// every model the manifest marks tla_checker, with TLC on every quick
// model; and always, first, with the interpreter on every model of the
// tier. A checker that was asked for and cannot run is an error; one that
// was not asked for and cannot run is in Skipped; a checker that finds a
// difference is not an error: it is in the Result.
func Run(ctx context.Context, opt Options) (*Result, error) {
	man, err := check.LoadManifest(opt.Manifest)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(man.SpecPath())
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	digest, err := tlanorm.Digest(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s:%v", check.ErrInput, man.SpecPath(), err)
	}
	if opt.Tier != "" && opt.Tier != "quick" && opt.Tier != "long" && opt.Tier != "all" {
		return nil, fmt.Errorf("%w: --tier %q: want quick, long or all", check.ErrInput, opt.Tier)
	}
	useChecker, useTLC, missing, err := opt.checkers(ctx)
	if err != nil {
		return nil, err
	}
	load := opt.Load
	if load == nil {
		load = check.Load
	}
	loadJob := func(e check.Entry) (*check.Job, error) {
		job, err := load(man.CfgPath(e), man.SpecPath())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Cfg, err)
		}
		job.Unverified = true
		return job, nil
	}
	res := &Result{Spec: man.SpecPath(), Digest: digest, Skipped: missing}
	c := Check{Checker: Interpreter + " (tla/interp)", Compared: InterpreterCompared}
	for _, e := range man.Models {
		if !inTier(e, opt.Tier) {
			continue
		}
		job, err := loadJob(e)
		if err != nil {
			return nil, err
		}
		cmp, err := check.CompareWithInterpreter(ctx, job, check.MirrorCompareOptions{Extra: opt.Extra})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Cfg, err)
		}
		m := Model{Cfg: e.Cfg, Agree: cmp.Agree(), Summary: cmp.Summary()}
		if !cmp.Agree() {
			var sb strings.Builder
			cmp.WritePath(&sb)
			m.Detail = sb.String()
		}
		opt.logf("%s %s: %s", Interpreter, e.Cfg, m.Summary)
		c.Models = append(c.Models, m)
	}
	res.Checks = append(res.Checks, c)
	if useChecker != "" {
		c := Check{Checker: useChecker, Compared: "state graphs equal: the same states, initial states, successors of every state, and actions"}
		for _, e := range man.Models {
			if !e.TLAChecker {
				continue
			}
			job, err := loadJob(e)
			if err != nil {
				return nil, err
			}
			m, err := compareChecker(ctx, job, opt)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Cfg, err)
			}
			m.Cfg = e.Cfg
			opt.logf("%s %s: %s", useChecker, e.Cfg, m.Summary)
			c.Models = append(c.Models, m)
		}
		res.Checks = append(res.Checks, c)
	}
	if useTLC != "" {
		c := Check{Checker: useTLC, Compared: "verdicts, first violations and their lengths, violated properties, counts (generated, distinct, depth) and state sets equal"}
		for _, e := range man.Models {
			if e.Tier != "quick" {
				continue
			}
			job, err := loadJob(e)
			if err != nil {
				return nil, err
			}
			m, err := compareTLC(ctx, job, opt)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Cfg, err)
			}
			m.Cfg = e.Cfg
			opt.logf("%s %s: %s", useTLC, e.Cfg, m.Summary)
			c.Models = append(c.Models, m)
		}
		res.Checks = append(res.Checks, c)
	}
	return res, nil
}

// inTier reports whether the tier asked for ("" for quick, or all)
// holds the model, as tlcrun verify's --tier: "all" is quick and long,
// never the bench tier (a billion states, check.Entry).
func inTier(e check.Entry, tier string) bool {
	if tier == "" {
		tier = "quick"
	}
	return tier == "all" && e.Tier != "bench" || e.Tier == tier
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// checkers returns the names (with versions) of the checkers to use, ""
// for one not used.
func (o Options) checkers(ctx context.Context) (checker, tlcName string, missing []string, err error) {
	want := map[string]bool{}
	for _, c := range o.Checkers {
		switch c {
		case TLAChecker, TLC:
			want[c] = true
		case Interpreter:
		default:
			return "", "", nil, fmt.Errorf("%w: unknown checker %q (want %s, %s or %s)", check.ErrInput, c, Interpreter, TLAChecker, TLC)
		}
	}
	auto := len(o.Checkers) == 0
	if auto || want[TLAChecker] {
		v, err := tlachecker.Version(tlachecker.Options{Dir: o.CheckerDir})
		switch {
		case err == nil:
			checker = "tla-checker " + v
		case errors.Is(err, tlachecker.ErrNotInstalled) && auto:
			missing = append(missing, err.Error()+" (install it with: npm ci --prefix tla/tlachecker/js)")
		default:
			return "", "", nil, fmt.Errorf("%w: %v (install it with: npm ci --prefix tla/tlachecker/js)", ErrNoChecker, err)
		}
	}
	if auto || want[TLC] {
		s, err := tlc.Find(ctx, o.TLC.Jar, o.TLC.Java)
		if err == nil {
			tlcName, err = s.TLCVersion(ctx)
		}
		switch {
		case err == nil:
		case auto && errors.Is(err, tlc.ErrUnavailable):
			missing = append(missing, err.Error())
		default:
			return "", "", nil, err
		}
	}
	return checker, tlcName, missing, nil
}

// compareChecker compares the Go model's state graph with tla-checker's.
func compareChecker(ctx context.Context, job *check.Job, opt Options) (Model, error) {
	mm, err := job.Machine()
	if err != nil {
		return Model{}, err
	}
	g, err := tlachecker.ExploreModel(mm, 0)
	if err != nil {
		return Model{}, err
	}
	cfg, err := tlachecker.StepCfg(job.Cfg)
	if err != nil {
		return Model{}, err
	}
	run, err := tlachecker.Explore(ctx, job.SpecPath, cfg, tlachecker.Options{Dir: opt.CheckerDir})
	if err != nil {
		return Model{}, err
	}
	c := tlachecker.Compare(run.Graph, g)
	if c.Equal() {
		return Model{Agree: true, Summary: fmt.Sprintf("the same %d states, the same successors", g.Distinct)}, nil
	}
	d := c.Diffs[0]
	summary := fmt.Sprintf("%d differences; the first: %s", len(c.Diffs), d.Kind)
	if d.Msg != "" {
		summary += ": " + d.Msg
	}
	return Model{Summary: summary, Detail: c.String()}, nil
}

// compareTLC measures the model with both engines, state sets included.
func compareTLC(ctx context.Context, job *check.Job, opt Options) (Model, error) {
	c, err := crosscheck.Both(ctx, job, crosscheck.Options{TLC: opt.TLC, CompareStates: true})
	if err != nil {
		return Model{}, err
	}
	if c.Agree() {
		return Model{Agree: true, Summary: fmt.Sprintf("%s; %d generated, %d distinct, depth %d; the same %d states",
			c.Go.Found.Result, c.Go.Found.Generated, c.Go.Found.Distinct, c.Go.Found.Depth, c.States.Go)}, nil
	}
	var sb strings.Builder
	for _, d := range c.Differences {
		sb.WriteString(d + "\n")
	}
	if c.States != nil && !c.States.Equal() {
		c.States.Write(&sb)
	}
	summary := strings.Join(c.Differences, "; ")
	if c.States != nil && !c.States.Equal() {
		if summary != "" {
			summary += "; "
		}
		summary += fmt.Sprintf("state sets differ: %d only in TLC's dump, %d only in the Go engine's search", c.States.OnlyTLCCount, c.States.OnlyGoCount)
	}
	return Model{Summary: summary, Detail: sb.String()}, nil
}

// Record is the record of a comparison that agreed, for the spec at
// specRel (relative to the record), made at now by command.
func (r *Result) Record(specRel string, now time.Time, command string) (spec.Mirror, error) {
	if !r.Agree() {
		return spec.Mirror{}, errors.New("mirror: the comparison did not agree: nothing to record")
	}
	m := spec.Mirror{
		About: "The text of " + specRel + " that the Go model (model/) mirrors: the digest of its normal form " +
			"(comments and insignificant whitespace do not count; tla/tlanorm, docs/tlcrun.md), recorded by " +
			"'tlcrun mirror --update' after the Go model and the spec were compared and agreed. The Go engine refuses " +
			"any other spec (exit 4); every build embeds this file.",
		Spec: specRel, Normalisation: tlanorm.Version, Digest: r.Digest,
		Compared: now.UTC().Format(time.RFC3339), Command: command,
	}
	for _, c := range r.Checks {
		rc := spec.Check{Checker: c.Checker, Compared: c.Compared}
		for _, mod := range c.Models {
			rc.Models = append(rc.Models, mod.Cfg)
		}
		m.Checks = append(m.Checks, rc)
	}
	return m, nil
}

// RecordPath is where the record of a manifest's spec lives: beside it.
func RecordPath(manifest string) string {
	return filepath.Join(filepath.Dir(manifest), spec.MirrorFile)
}

// ReadRecord reads a record file.
func ReadRecord(path string) (spec.Mirror, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return spec.Mirror{}, err
	}
	return spec.ParseMirror(b)
}

// WriteRecord writes a record file (through a temporary file, so that a
// failed write leaves the old record whole).
func WriteRecord(path string, m spec.Mirror) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mirror-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
