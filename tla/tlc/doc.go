// Package tlc finds, installs and runs TLC, the TLA+ model checker;
// reading what it prints is package tlcout's.
//
// Run starts TLC in -tool mode on a spec and a cfg and reads its messages
// as they come (Options.Progress sees each one), with TLC's metadir and
// temporary files in a work folder of their own, never beside the spec:
//
//	res, err := tlc.Run(ctx, tlc.Options{Spec: "spec/Resume.tla", Cfg: "spec/R0.cfg", Continue: true})
//	if err != nil {
//		return err // TLC unavailable (ErrUnavailable), a missing file (ErrInput), a crash
//	}
//	if err := res.Err(); err != nil {
//		return err // the spec does not parse, the cfg is wrong: a *tlcout.Error with the position
//	}
//	fmt.Println(res.Stats.Distinct, len(res.Violations))
//
// Finding TLC: the jar is the --jar flag's, else $TLA2TOOLS_JAR, else
// DefaultJar (tla2tools.jar in the user's cache folder, under
// resumecheck/), where Install puts a pinned release after checking its
// SHA-256; java is $JAVA_HOME/bin/java, else java on PATH, and must be
// Java 11 or later. Find checks both and says what is missing and how to
// fix it; Setup.Probe runs a tiny spec to prove the jar is a whole TLC.
package tlc
