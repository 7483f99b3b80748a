package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// doctorOptions are tlcrun doctor's flags: the jar and the java to check
// instead of the ones found.
type doctorOptions struct {
	jar, java string
}

func newDoctorCmd() *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say whether TLC can run here: the Java and the TLC jar found, or what is missing",
		Long: `Look for what --engine tlc and --engine both need, the way they look, and
say what was found and what is missing, with how to fix it. With a Java,
it also says whether its JDK's javac is there: check --distributed's server
needs it (it compiles a small plug-in against the jar); nothing else does.

tla2tools.jar: --jar, else $TLA2TOOLS_JAR, else the default location
(tla2tools.jar under resumecheck/ in the user's cache folder:
$XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS), which is
where tlcrun install puts it. Java: --java, else $JAVA_HOME/bin/java, else
java on PATH; TLC needs Java 11 or later.

When both are found, doctor runs TLC on a tiny spec that extends
Naturals, Sequences, FiniteSets and TLC (in a temporary folder): a jar
that answers -version but lacks its standard modules fails every real
run, and is not ready.

Exit 0 when TLC can run, 3 when something is missing. The Go engine (the
default of check, verify and sweep) needs neither.`,
		Example: `  tlcrun doctor
  tlcrun doctor --jar ~/Downloads/tla2tools.jar`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.jar, "jar", "", "tla2tools.jar to check (default: $TLA2TOOLS_JAR, else the default location)")
	f.StringVar(&o.java, "java", "", "java to check (default: $JAVA_HOME/bin/java, else java on PATH)")
	return cmd
}

func from(where string) string {
	switch where {
	case tlc.FromFlag:
		return "from the flag"
	case tlc.FromEnv:
		return "from " + tlc.JarEnv
	case tlc.FromDefault:
		return "the default location"
	case tlc.FromJavaHome:
		return "from JAVA_HOME"
	case tlc.FromPath:
		return "found on PATH"
	}
	return where
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// doctorReport is what doctor prints: one line per thing looked at, and
// the problems counted.
type doctorReport struct {
	out      io.Writer
	problems int
}

func (r *doctorReport) line(what, text string) {
	fmt.Fprintf(r.out, "%-8s %s\n", what+":", strings.ReplaceAll(text, "\n", "\n         "))
}

// problem prints a line that counts as a problem.
func (r *doctorReport) problem(what, text string) {
	r.problems++
	r.line(what, text)
}

// run looks for Java, javac, the jar, runs TLC on the probe spec, and
// says where the default jar goes; exit 3 when TLC cannot run.
func (o *doctorOptions) run(ctx context.Context, out io.Writer) error {
	r := &doctorReport{out: out}
	s := &tlc.Setup{}
	javaOK := o.checkJava(ctx, r, s)
	o.checkJar(ctx, r, s, javaOK)
	if def, err := tlc.DefaultJar(); err != nil {
		r.line("Default", err.Error())
	} else {
		state := "present"
		if _, err := os.Stat(def); errors.Is(err, os.ErrNotExist) {
			state = "absent; tlcrun install --release V --sha256 H puts a release there"
		}
		r.line("Default", fmt.Sprintf("%s (%s)", def, state))
	}
	fmt.Fprintln(out)
	if r.problems > 0 {
		fmt.Fprintf(out, "Not ready: --engine tlc and --engine both cannot run TLC (%d problem%s above). The Go engine needs neither.\n", r.problems, plural(r.problems))
		return clibase.Status(ExitNoTLC)
	}
	fmt.Fprintln(out, "Ready: --engine tlc and --engine both will run this TLC.")
	return nil
}

// checkJava finds and checks the java into s, and says whether its JDK's
// javac is there: only the distributed server needs it (it compiles a
// plug-in against the jar), so its absence is said, not counted.
func (o *doctorOptions) checkJava(ctx context.Context, r *doctorReport, s *tlc.Setup) bool {
	var err error
	if s.Java, s.JavaFrom, err = tlc.FindJava(o.java); err == nil {
		s.JavaInfo, err = tlc.CheckJava(ctx, s.Java)
	}
	if err != nil {
		r.problem("Java", "MISSING: "+err.Error())
		return false
	}
	r.line("Java", fmt.Sprintf("%s (%s)\n%s: Java %d, ok (TLC needs %d or later)", s.Java, from(s.JavaFrom), s.JavaInfo.Description, s.JavaInfo.Major, tlc.MinJava))
	if javac, jerr := tlc.FindJavac(s.Java); jerr == nil {
		r.line("javac", javac+" (check --distributed's server needs it; nothing else does)")
	} else {
		r.line("javac", "none beside "+s.Java+" nor on PATH: check --distributed's server will not start "+
			"(it compiles a plug-in against the jar); everything else runs without it. To add it: "+tlc.JDKHint)
	}
	return true
}

// checkJar finds and checks the jar into s and, with a java, asks TLC its
// version and runs it on the probe spec: a jar can answer -version and
// fail every run (its standard modules missing), and only a run of a spec
// says it works.
func (o *doctorOptions) checkJar(ctx context.Context, r *doctorReport, s *tlc.Setup, javaOK bool) {
	var err error
	if s.Jar, s.JarFrom, err = tlc.FindJar(o.jar); err == nil {
		s.JarInfo, err = tlc.CheckJar(s.Jar)
	}
	if err != nil {
		r.problem("TLC", "MISSING: "+err.Error())
		return
	}
	desc := "a TLC jar"
	if s.JarInfo.Version != "" || s.JarInfo.Revision != "" {
		desc = fmt.Sprintf("release %s, revision %s", orUnknown(s.JarInfo.Version), orUnknown(s.JarInfo.Revision))
	}
	probe := javaOK
	if javaOK {
		if v, verr := s.TLCVersion(ctx); verr == nil {
			desc = v + ", " + desc
		} else {
			r.problems++
			probe = false
			desc = "BROKEN: " + verr.Error()
		}
	}
	r.line("TLC", fmt.Sprintf("%s (%s)\n%s", s.Jar, from(s.JarFrom), desc))
	if !probe {
		return
	}
	took, err := s.Probe(ctx)
	if err != nil {
		r.problem("Probe", "FAILED: "+err.Error())
		return
	}
	r.line("Probe", fmt.Sprintf("TLC checked a %d-state spec that extends %s: ok (%s)",
		tlc.ProbeStates, tlc.ProbeModules, took.Round(100*time.Millisecond)))
}
