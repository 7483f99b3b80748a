package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/mirror"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

// mirrorOptions are tlcrun mirror's flags and argument.
type mirrorOptions struct {
	path       string // the manifest
	update     bool
	tier       string
	checkers   []string
	checkerDir string
	verbose    bool
	tf         tlcFlags
}

func newMirrorCmd() *cobra.Command {
	o := &mirrorOptions{}
	cmd := &cobra.Command{
		Use:   "mirror [MANIFEST]",
		Short: "Compare the Go model with the spec; with --update, record the spec text it mirrors",
		Long: `The Go engine checks only the text of Resume.tla that model/ (its Go mirror)
was last compared with: spec/mirror.json, beside the manifest, records the
digest of that text (comments and whitespace aside) and every build of
tlcrun carries it. Any other spec is checked by the TLA+ interpreter, or
refused (exit 4) by the commands only the compiled mirror runs.

tlcrun mirror compares the compiled mirror with the manifest's spec
(default spec/manifest.json) and says whether they agree and whether the
record names this text:

  interpreter  always (no Java, no Node): every model of the tier, state by
               state with the TLA+ interpreter (tla/interp), which reads the
               spec's text: the same initial states and successors of every
               reachable state, the same value of every state predicate the
               spec defines (TypeOK, every invariant, a liveness goal, listed
               by the cfg or not; one only one side defines is a difference),
               and the same actions enabled. The first state where they
               differ is printed with the path to it.
  tla-checker  every model the manifest marks tla_checker: the state graph
               of the spec as the npm package tla-checker reads it (under
               Node, no Java) against the Go model's, state by state
  tlc          every quick model with both engines: verdicts, first
               violations, violated properties, counts and state sets

tla-checker and TLC run where they are present; --checkers picks them
(one asked for that cannot run exits 3). --tier picks the models the
interpreter compares (quick by default; all includes R8, slow). With
--update, and only when every comparison agrees, the record is rewritten
for this text: when and how it was compared. Then rebuild tlcrun (go
build, make build; go run rebuilds by itself): a build carries the
record it was built with.

After an edit of spec/Resume.tla: bring model/ in line with it, run
tlcrun mirror --update, and check the manifest (tlcrun verify, and
tlcrun verify --print to rewrite it after a deliberate change).

Exit 0 when the model and the spec agree and the record names the spec
(or --update wrote it), 15 when a comparison disagrees (nothing is
recorded), 4 when they agree but the record names another text (run
--update), 3 when a checker asked for cannot run.`,
		Example: `  tlcrun mirror                         # compare, and say whether the record is current
  tlcrun mirror --update                # compare, and record the spec's digest if they agree
  tlcrun mirror --checkers interpreter  # the interpreter only: no Java, no Node
  tlcrun mirror --tier all              # the interpreter on R8 too (slow)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = "spec/manifest.json"
			if len(args) == 1 {
				o.path = args[0]
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.update, "update", false, "record the spec's digest in mirror.json beside the manifest, if every comparison agrees")
	f.StringSliceVar(&o.checkers, "checkers", nil, "checkers to compare with besides the interpreter, which always runs: tla-checker, tlc (default: every one that can run here)")
	f.StringVar(&o.tier, "tier", "quick", "the models the interpreter compares: quick, long or all")
	f.StringVar(&o.checkerDir, "tla-checker-dir", filepath.Join("tla", "tlachecker", "js"), "the folder whose node_modules holds the pinned tla-checker")
	f.BoolVar(&o.verbose, "verbose", false, "a line on stderr as each model is compared")
	o.tf.add(f)
	return cmd
}

// run compares the mirror with the spec, prints each checker's models
// on out (a line per model on errw with --verbose), and records the
// digest with --update when every comparison agrees.
func (o *mirrorOptions) run(ctx context.Context, out, errw io.Writer) error {
	opt := mirror.Options{Manifest: o.path, Checkers: o.checkers, Tier: o.tier, CheckerDir: o.checkerDir, TLC: o.tf.options(nil), Load: goLoad, Extra: mirrorExtra}
	if o.verbose {
		opt.Log = errw
	}
	res, err := mirror.Run(ctx, opt)
	if errors.Is(err, mirror.ErrNoChecker) {
		return clibase.Exit(ExitNoTLC, err)
	}
	if err != nil {
		return runError(err)
	}
	recPath := mirror.RecordPath(o.path)
	rec, recErr := mirror.ReadRecord(recPath)
	fmt.Fprintf(out, "Spec %s: digest %s\n", res.Spec, res.Digest)
	if recErr != nil {
		fmt.Fprintf(out, "Record %s: unreadable (%v)\n", recPath, recErr)
	} else {
		fmt.Fprintf(out, "Record %s: digest %s, compared %s by %s\n", recPath, rec.Digest, orUnknown(rec.Compared), orUnknown(rec.Command))
	}
	writeMirrorChecks(out, res, o.tier)
	fmt.Fprintln(out)
	if !res.Agree() {
		fmt.Fprintf(out, "The Go model does NOT mirror %s: bring model/ in line with the spec (nothing was recorded).\n", res.Spec)
		return clibase.Status(ExitDisagree)
	}
	built, _ := check.RecordFor(res.Spec)
	current := recErr == nil && rec.Digest == res.Digest
	switch {
	case o.update:
		specRel, err := filepath.Rel(filepath.Dir(recPath), res.Spec)
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		m, err := res.Record(filepath.ToSlash(specRel), time.Now(), "tlcrun mirror --update")
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		if err := mirror.WriteRecord(recPath, m); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		fmt.Fprintf(out, "The Go model mirrors %s: recorded its digest in %s.\n", res.Spec, recPath)
		if built.Digest != res.Digest {
			fmt.Fprintln(out, "This tlcrun was built with the old record: rebuild it (go build ./cmd/tlcrun, make build) before checking the spec with the Go engine.")
		}
		return nil
	case !current:
		fmt.Fprintf(out, "The Go model mirrors %s, but %s names another text: run tlcrun mirror --update to record this one.\n", res.Spec, recPath)
		return clibase.Status(ExitNotMirror)
	}
	fmt.Fprintf(out, "The Go model mirrors %s, and %s records it.\n", res.Spec, recPath)
	if built.Digest != res.Digest {
		fmt.Fprintln(out, "This tlcrun was built with another record: rebuild it (go build ./cmd/tlcrun, make build).")
	}
	return nil
}

// writeMirrorChecks prints the checkers not run and, for each that ran,
// its models: agreeing or not, and where not, the first difference.
func writeMirrorChecks(out io.Writer, res *mirror.Result, tier string) {
	for _, why := range res.Skipped {
		fmt.Fprintf(out, "Not compared with: %s\n", why)
	}
	for i, c := range res.Checks {
		models := ""
		if i == 0 {
			models = fmt.Sprintf(", the manifest's %s models", orQuick(tier))
		}
		agree := 0
		for _, m := range c.Models {
			if m.Agree {
				agree++
			}
		}
		fmt.Fprintf(out, "\n%s: %d of %d models agree%s (%s)\n", c.Checker, agree, len(c.Models), models, c.Compared)
		for _, m := range c.Models {
			status := "ok  "
			if !m.Agree {
				status = "FAIL"
			}
			fmt.Fprintf(out, "  %s %s: %s\n", status, m.Cfg, m.Summary)
			if !m.Agree && m.Detail != "" {
				fmt.Fprintf(out, "       %s\n", strings.ReplaceAll(strings.TrimRight(m.Detail, "\n"), "\n", "\n       "))
			}
		}
	}
}

// mirrorExtra are state predicates added to the Resume mirror's for
// tlcrun mirror: a seam for the tests that break a predicate on purpose;
// nil in every command.
var mirrorExtra []check.MirrorPredicate

func orQuick(tier string) string {
	if tier == "" {
		return "quick"
	}
	return tier
}
