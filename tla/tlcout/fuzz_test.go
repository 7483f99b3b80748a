package tlcout

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var messageRE = regexp.MustCompile(`(?s)@!@!@STARTMSG [^\n]*\n.*?@!@!@ENDMSG [^\n]*\n`)

// FuzzParse checks that Parse never panics, always returns a Result, and
// reports trouble only through errors it documents. Seeds: every sample in
// testdata and the corpus in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.out")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		// Each message alone too: small inputs fuzz faster.
		for _, part := range messageRE.FindAll(b, -1) {
			f.Add(part)
		}
	}
	f.Add([]byte(msg(CodeStatePrint2, 4, "1: <Initial predicate>\n/\\ x = <<1, 2>>\n/\\ y = {}")))
	f.Add([]byte(msg(CodeBackToState, 4, "2: Back to state: <Down line 7, col 9 to line 7, col 23 of module Lasso>")))
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := Parse(bytes.NewReader(out))
		if r == nil {
			t.Fatal("no Result")
		}
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoMessages) {
			t.Fatalf("undocumented error %v", err)
		}
		if err != nil && errors.Is(err, ErrMalformed) && !strings.Contains(err.Error(), "line ") {
			t.Fatalf("error names no line: %v", err)
		}
		_ = r.ExitStatus()
		if tr := r.Trace(); tr != nil {
			_ = tr.Last()
		}
	})
}
