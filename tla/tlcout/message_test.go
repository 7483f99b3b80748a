package tlcout

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAll reads every message and renders each as
// "line:code:severity:body" (body lines joined by "|").
func readAll(src string) ([]string, error) {
	rd := NewReader(strings.NewReader(src))
	var out []string
	for {
		m, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		lines := make([]string, len(m.Lines))
		for i, l := range m.Lines {
			lines[i] = fmt.Sprintf("%s@%d", l, m.LineOf(i))
		}
		out = append(out, fmt.Sprintf("%d:%d:%d:%s", m.InputLine, m.Code, m.Severity, strings.Join(lines, "|")))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"messages and text", "@!@!@STARTMSG 2262:0 @!@!@\nTLC2 Version 1\n@!@!@ENDMSG 2262 @!@!@\nParsing file X.tla\n",
			[]string{"1:2262:0:TLC2 Version 1@2", "4:0:0:Parsing file X.tla@4"}},
		{"empty body and blank lines", "@!@!@STARTMSG 2189:0 @!@!@\n@!@!@ENDMSG 2189 @!@!@\n\n",
			[]string{"1:2189:0:", "3:0:0:@3"}},
		{"nested", "@!@!@STARTMSG 2105:1 @!@!@\nouter\n@!@!@STARTMSG 2154:0 @!@!@\ninner\n@!@!@ENDMSG 2154 @!@!@\nmore\n@!@!@ENDMSG 2105 @!@!@\n",
			[]string{"3:2154:0:inner@4", "1:2105:1:outer@2|more@6"}},
		{"marker after text without newline", "\"printed\"@!@!@STARTMSG 2185:0 @!@!@\nStarting...\n@!@!@ENDMSG 2185 @!@!@",
			[]string{"1:0:0:\"printed\"@1", "1:2185:0:Starting...@2"}},
		{"CRLF", "@!@!@STARTMSG 2186:0 @!@!@\r\nFinished\r\n@!@!@ENDMSG 2186 @!@!@\r\n",
			[]string{"1:2186:0:Finished@2"}},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		got, err := readAll(tt.src)
		if err != nil || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\nx = 1\n",
			"tlc: malformed output: line 3: message 2217 started at line 1 has no end marker"},
		{"@!@!@STARTMSG 2217:4 @!@!@\nx\n@!@!@ENDMSG 2218 @!@!@\n",
			"tlc: malformed output: line 3: end marker of message 2218 inside message 2217 started at line 1"},
		{"text\n@!@!@ENDMSG 2186 @!@!@\n",
			"tlc: malformed output: line 2: end marker of message 2186 without a start marker"},
		{"@!@!@STARTMSG 22x7:4 @!@!@\n", `tlc: malformed output: line 1: bad start marker "@!@!@STARTMSG 22x7:4 @!@!@"`},
		{"@!@!@STARTMSG 2217 @!@!@\n", `tlc: malformed output: line 1: bad start marker "@!@!@STARTMSG 2217 @!@!@"`},
		{"@!@!@STARTMSG 2217:4\n", `tlc: malformed output: line 1: bad start marker "@!@!@STARTMSG 2217:4"`},
		{"@!@!@STARTMSG 1:1 @!@!@\n@!@!@ENDMSG one @!@!@\n", `tlc: malformed output: line 2: bad end marker "@!@!@ENDMSG one @!@!@"`},
		{"a\nb\n@!@!@BOGUS\n", `tlc: malformed output: line 3: unknown marker "@!@!@BOGUS"`},
	}
	for _, tt := range tests {
		_, err := readAll(tt.src)
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: error = %v, want %s", tt.src, err, tt.want)
		}
	}
}

// TestReaderStreams checks that messages come out while TLC is still
// writing, which is what lets a caller show progress.
func TestReaderStreams(t *testing.T) {
	pr, pw := io.Pipe()
	rd := NewReader(pr)
	r := &Result{}
	firstRead := make(chan struct{})
	go func() {
		io.WriteString(pw, msg(CodeProgressStats, 0, "Progress(1) at 2026-12-02 13:11:49: 10 states generated, 5 distinct states found, 2 states left on queue."))
		// Nothing more is written until the first message has come out:
		// a reader that waited for more input would hang here.
		<-firstRead
		io.WriteString(pw, msg(CodeProgressStats, 0, "Progress(2) at 2026-12-02 13:12:49: 20 states generated, 9 distinct states found, 0 states left on queue."))
		pw.Close()
	}()
	for want := int64(10); want <= 20; want += 10 {
		m, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want == 10 {
			close(firstRead)
		}
		if err := r.Add(m); err != nil {
			t.Fatal(err)
		}
		if p := r.Progress[len(r.Progress)-1]; p.Generated != want {
			t.Errorf("progress %+v, want %d generated", p, want)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the last message: %v", err)
	}
}

func TestMessageText(t *testing.T) {
	m := Message{Lines: []string{"a", "b", "", "  "}}
	if m.Text() != "a\nb" || m.LineOf(7) != 0 {
		t.Errorf("Text = %q", m.Text())
	}
}
