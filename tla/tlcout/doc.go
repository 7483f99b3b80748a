// Package tlcout reads the output of TLC, the TLA+ model checker, when it
// runs with -tool. In that mode TLC wraps every message in markers that
// carry the message's code and class:
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
// traces, errors with spec positions, SANY's parse errors); Parse and
// Result.Read do both for a whole output. Result.Err says why TLC could
// not check a model, ExitStatus and Meaning explain TLC's exit codes, and
// ReadJSONTrace reads the trace TLC writes with -dumpTrace json.
//
// Following a run as it goes:
//
//	rd := tlcout.NewReader(stdout)
//	res := &tlcout.Result{}
//	for {
//		m, err := rd.Next()
//		if err != nil {
//			break // io.EOF at the end
//		}
//		res.Add(m)
//		if m.Code == tlcout.CodeProgressStats {
//			p := res.Progress[len(res.Progress)-1]
//			fmt.Printf("%d distinct states, %d on queue\n", p.Distinct, p.Queue)
//		}
//	}
//
// States in traces are tlavalue.States, values parsed from TLC's printing.
//
// The package runs nothing: finding, installing and running TLC is
// tla/tlc's (whose Run returns this package's Result), so that what
// only reads TLC's output (a report, a converter) does not pull in
// os/exec, net/http or archive/zip; internal/testing/layers tests it.
package tlcout
