package tlcout_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/resumecontract/resumecheck/tla/tlcout"
)

func ExampleParse() {
	out, err := os.ReadFile("testdata/diehard_violation_tool.out")
	if err != nil {
		panic(err)
	}
	// The sample ends with the exit status the test data records.
	text, status, _ := strings.Cut(string(out), "exit ")
	res, err := tlcout.Parse(strings.NewReader(text))
	if err != nil {
		panic(err)
	}
	v := res.Violations[0]
	fmt.Println(v.Kind, v.Names)
	last := v.Trace.Last()
	fmt.Printf("state %d after %s:\n%s", last.Number, last.Action.Name, last.Vars)
	fmt.Println(res.ExitStatus(), "/ TLC exited with", strings.TrimSpace(status))
	// Output:
	// invariant [NotSolved]
	// state 7 after BigToSmall:
	// /\ big = 4
	// /\ small = 3
	// violation: an invariant is violated / TLC exited with 12
}

func ExampleMeaning() {
	fmt.Println(tlcout.Meaning(11))
	fmt.Println(tlcout.Meaning(13))
	fmt.Println(tlcout.Meaning(150))
	// Output:
	// violation: deadlock reached
	// violation: a temporal or action property is violated
	// error: the spec could not be parsed
}
