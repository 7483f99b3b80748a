package tlcruncli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// oldRelease is install's --version: alone, it prints the build as
// --version does on every command; with a value (--version=V, or
// --version V, which the parser reads as the flag and an argument) it is
// the old spelling of --release V. It says it is a bool so that the
// help shows it as the other commands' --version.
type oldRelease struct {
	print   bool
	release string
}

func (o *oldRelease) Set(s string) error {
	if s == "true" {
		o.print = true
	} else {
		o.release = s
	}
	return nil
}

func (o *oldRelease) String() string { return o.release }
func (o *oldRelease) Type() string   { return "bool" }

func newInstallCmd() *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install --release V --sha256 H [--url U]",
		Short: "Download a pinned TLC release into the default location",
		Long: `Download tla2tools.jar of TLC release V, check that its SHA-256 is H and
that it holds TLC, and only then put it in the default location, where
tlcrun finds it when neither --jar nor TLA2TOOLS_JAR is given (tlcrun
doctor prints that path). A checksum that does not match is refused and
nothing is installed.

The jar comes from TLC's GitHub releases,
  ` + fmt.Sprintf(tlc.ReleaseURL, "V") + `
unless --url says otherwise (a mirror, a file server of your own). On a
machine without a network, download the jar elsewhere, check its SHA-256,
and give its path with --jar or TLA2TOOLS_JAR instead.

v1.7.4's tla2tools.jar has the SHA-256 in the first example (as other
projects pin it; not verified by this project, which measured with a 1.8.0
build). v1.8.0 is a rolling pre-release whose jar is rebuilt as TLC
changes, so its checksum is that of the build you checked.`,
		Example: `  tlcrun install --release 1.7.4 --sha256 936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88
  tlcrun install --release 1.8.0 --sha256 <the SHA-256 of a 1.8.0 jar you checked; see docs/tlcrun.md>
  tlcrun install --release 1.7.4 --sha256 <H> --url https://mirror.example/tla2tools-1.7.4.jar`,
		// One argument only for the old spelling "--version V", which
		// the flag parser reads as --version and an argument.
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			done, err := o.validate(cmd, args)
			if err != nil || done {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opt.Version, "release", "", "the TLC release, e.g. 1.8.0")
	// --version was the release here while it prints the build everywhere
	// else; it keeps working as the release for one release (docs/cli.md,
	// "Names changed"), and alone it prints the build as elsewhere.
	f.VarP(&o.old, "version", "v", "print the build, its commit and the spec text it mirrors (--version V: the old spelling of --release V)")
	f.Lookup("version").NoOptDefVal = "true"
	f.StringVar(&o.opt.SHA256, "sha256", "", "the SHA-256 of the release's tla2tools.jar, in hex: the pin")
	f.StringVar(&o.opt.URL, "url", "", "where to download the jar (default: the release on GitHub)")
	return cmd
}

// installOptions are tlcrun install's flags.
type installOptions struct {
	opt tlc.InstallOptions
	old oldRelease // --version
}

// validate checks the flags and args before anything is downloaded; done
// is true when it has done what was asked (printed the build).
func (o *installOptions) validate(cmd *cobra.Command, args []string) (done bool, err error) {
	switch {
	case o.old.print && len(args) == 0:
		clibase.PrintVersion(cmd)
		return true, nil
	case o.old.print:
		o.old.release = args[0]
	case len(args) > 0:
		return false, clibase.Usagef("install takes no argument (%q); the release is --release V", args[0])
	}
	if o.old.release != "" {
		if cmd.Flags().Changed("release") {
			return false, clibase.Usagef("--version %s and --release %s: give the release once, as --release", o.old.release, o.opt.Version)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "tlcrun install: --version V for the TLC release is deprecated: give it as --release %s\n", o.old.release)
		o.opt.Version = o.old.release
	}
	if err := o.opt.Validate(); err != nil {
		return false, clibase.Usage(err)
	}
	return false, nil
}

// run downloads, checks and installs the jar.
func (o *installOptions) run(cmd *cobra.Command) error {
	url := o.opt.URL
	if url == "" {
		url = fmt.Sprintf(tlc.ReleaseURL, strings.TrimPrefix(o.opt.Version, "v"))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "Downloading %s\n", url)
	path, err := tlc.Install(cmd.Context(), o.opt)
	if err != nil {
		// A refused checksum, an unreachable server, a file that is not
		// TLC: the install failed, whatever the cause.
		return clibase.Exit(ExitFailure, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Installed TLC %s at %s (SHA-256 %s).\n", o.opt.Version, path, strings.ToLower(o.opt.SHA256))
	fmt.Fprintf(cmd.OutOrStdout(), "tlcrun finds it there unless --jar or %s names another jar; tlcrun doctor checks it runs.\n", tlc.JarEnv)
	return nil
}
