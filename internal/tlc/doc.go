// Package tlc reads the output of TLC, the TLA+ model checker, when it runs
// with -tool. In that mode TLC wraps every message in markers that carry
// the message's code and class:
//
//	@!@!@STARTMSG 2110:1 @!@!@
//	Invariant NotSolved is violated.
//	@!@!@ENDMSG 2110 @!@!@
//
// The package goes by those codes (the constants of TLC's EC class, named
// here Code...), never by the prose, except to pull the numbers and names
// out of a message it has already identified. Reader yields the messages
// one by one as TLC writes them; Result.Add folds them into a Result (the
// version, progress reports, final counts, violations with their error
// traces, errors with spec positions, SANY's parse errors); Parse does both
// for a whole output. ExitStatus and Meaning explain TLC's exit codes, and
// ReadJSONTrace reads the trace TLC writes with -dumpTrace json.
//
// Following a run as it goes:
//
//	rd := tlc.NewReader(stdout)
//	res := &tlc.Result{}
//	for {
//		m, err := rd.Next()
//		if err != nil {
//			break // io.EOF at the end
//		}
//		res.Add(m)
//		if m.Code == tlc.CodeProgressStats {
//			p := res.Progress[len(res.Progress)-1]
//			fmt.Printf("%d distinct states, %d on queue\n", p.Distinct, p.Queue)
//		}
//	}
//
// States in traces are tlavalue.States, values parsed from TLC's printing.
//
// Running TLC: Run starts TLC in -tool mode on a spec and a cfg and reads
// its messages as they come (Options.Progress sees each one), with TLC's
// metadir and temporary files in a work folder of their own, never beside
// the spec:
//
//	res, err := tlc.Run(ctx, tlc.Options{Spec: "spec/Resume.tla", Cfg: "spec/R0.cfg", Continue: true})
//	if err != nil {
//		return err // TLC unavailable (ErrUnavailable), a missing file (ErrInput), a crash
//	}
//	if err := res.Err(); err != nil {
//		return err // the spec does not parse, the cfg is wrong: a *tlc.Error with the position
//	}
//	fmt.Println(res.Stats.Distinct, len(res.Violations))
//
// Finding TLC: the jar is the --jar flag's, else $TLA2TOOLS_JAR, else
// DefaultJar (tla2tools.jar in the user's cache folder, under
// resumecheck/), where Install puts a pinned release after checking its
// SHA-256; java is $JAVA_HOME/bin/java, else java on PATH, and must be
// Java 11 or later. Find checks both and says what is missing and how to
// fix it.
package tlc
