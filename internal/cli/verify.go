package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
)

func newVerifyCmd() *cobra.Command {
	var (
		tier   string
		only   []string
		asJSON bool
		print  bool
	)
	cmd := &cobra.Command{
		Use:   "verify [MANIFEST]",
		Short: "Check every model of the manifest against its recorded result",
		Long: `Run every cfg listed in the manifest (default spec/manifest.json) with the Go
engine and compare the verdict, the first violated property and its
counterexample length, every violated property, and the full state-space
counts with what the manifest records. Any difference exits 14.

--print writes the manifest as found instead (to review and commit after a
deliberate change to the spec).`,
		Example: `  tlcrun verify
  tlcrun verify --tier all            # include the long models (R8)
  tlcrun verify --only fault-replay.cfg --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "spec/manifest.json"
			if len(args) == 1 {
				path = args[0]
			}
			if tier != "quick" && tier != "long" && tier != "all" {
				return usageError(fmt.Errorf("--tier %q: want quick, long or all", tier))
			}
			man, err := check.LoadManifest(path)
			if err != nil {
				return inputError(err)
			}
			for _, o := range only {
				if !slices.ContainsFunc(man.Models, func(e check.Entry) bool { return e.Cfg == o }) {
					return usageError(fmt.Errorf("--only %s: not in %s", o, path))
				}
			}
			out := cmd.OutOrStdout()
			var outcomes []check.Outcome
			bad := 0
			for i, e := range man.Models {
				if (tier != "all" && e.Tier != tier) || (len(only) > 0 && !slices.Contains(only, e.Cfg)) {
					continue
				}
				o, err := man.Verify(cmd.Context(), e)
				if err != nil {
					return inputError(fmt.Errorf("%s: %w", e.Cfg, err))
				}
				if print {
					man.Models[i].Expect = o.Expect
				}
				outcomes = append(outcomes, o)
				if len(o.Mismatches) > 0 {
					bad++
				}
				if !asJSON && !print {
					status := "ok  "
					if len(o.Mismatches) > 0 {
						status = "FAIL"
					}
					fmt.Fprintf(out, "%s %-28s %-9s %s\n", status, e.Cfg, o.Expect.Result, describe(o.Expect))
					for _, m := range o.Mismatches {
						fmt.Fprintf(out, "     %s\n", m)
					}
				}
			}
			switch {
			case print:
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(man); err != nil {
					return &exitError{code: ExitFailure, err: err}
				}
				return nil
			case asJSON:
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(outcomes); err != nil {
					return &exitError{code: ExitFailure, err: err}
				}
			default:
				fmt.Fprintf(out, "%d models checked, %d agree with %s, %d differ\n", len(outcomes), len(outcomes)-bad, path, bad)
			}
			if bad > 0 {
				return exitCode(ExitMismatch)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tier, "tier", "quick", "which models: quick, long or all")
	f.StringSliceVar(&only, "only", nil, "check only these cfgs (as named in the manifest)")
	f.BoolVar(&asJSON, "json", false, "print the outcomes as JSON")
	f.BoolVar(&print, "print", false, "print the manifest as found (to update it)")
	return cmd
}

func describe(e check.Expect) string {
	var sb strings.Builder
	if e.First != "" {
		fmt.Fprintf(&sb, "first %s (%d states); violated %s; ", e.First, e.TraceLength, strings.Join(e.Violated, " "))
	}
	fmt.Fprintf(&sb, "%d generated, %d distinct, depth %d", e.Generated, e.Distinct, e.Depth)
	return sb.String()
}
