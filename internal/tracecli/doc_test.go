package tracecli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocRecording keeps docs/trace.md's "Recording your own system"
// true: a fenced block after <!-- file: PATH --> must be the file's
// content, and a block of "$ " lines is a transcript whose commands
// (tracecheck, trace2tla, echo $?) are run from the repository's root and
// must print the lines shown, in order; a line "..." stands for any lines.
func TestDocRecording(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "trace.md"))
	if err != nil {
		t.Fatal(err)
	}
	sec := docSection(string(doc), "## Recording your own system")
	if sec == "" {
		t.Fatal(`docs/trace.md has no section "## Recording your own system"`)
	}
	t.Chdir(root)
	files, transcripts := 0, 0
	for _, b := range fencedBlocks(sec) {
		switch {
		case strings.HasPrefix(b.marker, "file: "):
			files++
			path := strings.TrimPrefix(b.marker, "file: ")
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if b.body != string(want) {
				t.Errorf("the block after <!-- file: %s --> is not the file's content", path)
			}
		case strings.HasPrefix(b.body, "$ "):
			transcripts++
			runTranscript(t, b.body)
		}
	}
	if files < 2 || transcripts < 4 {
		t.Errorf("%d file blocks and %d transcripts; the section has 2 and 4", files, transcripts)
	}
}

// docSection is the text of the section that starts with heading, up to
// the next heading of its level.
func docSection(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+1:]
	if j := strings.Index(rest[len(heading):], "\n## "); j >= 0 {
		return rest[:len(heading)+j+1]
	}
	return rest
}

type fenced struct {
	marker string // the <!-- ... --> just before the block
	body   string
}

func fencedBlocks(sec string) []fenced {
	var out []fenced
	lines := strings.SplitAfter(sec, "\n")
	marker := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		switch {
		case strings.HasPrefix(l, "<!-- ") && strings.HasSuffix(l, " -->"):
			marker = strings.TrimSuffix(strings.TrimPrefix(l, "<!-- "), " -->")
		case strings.HasPrefix(l, "```"):
			var body strings.Builder
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				body.WriteString(lines[i])
			}
			out = append(out, fenced{marker: marker, body: body.String()})
			marker = ""
		case strings.TrimSpace(l) != "":
			marker = ""
		}
	}
	return out
}

// runTranscript runs each "$ " command of a transcript and matches its
// output with the lines that follow it.
func runTranscript(t *testing.T, body string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	last := 0
	for i := 0; i < len(lines); {
		cmd := strings.TrimPrefix(lines[i], "$ ")
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "$ ") {
			j++
		}
		want := lines[i+1 : j]
		var out bytes.Buffer
		args := strings.Fields(cmd)
		switch {
		case cmd == "echo $?":
			fmt.Fprintln(&out, last)
		case args[0] == "tracecheck":
			last = Tracecheck(args[1:], &out, &out)
		case args[0] == "trace2tla":
			last = Trace2tla(args[1:], &out, &out)
		default:
			t.Fatalf("the transcript runs %q; the test knows tracecheck, trace2tla and echo $?", cmd)
		}
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if err := matchLines(got, want); err != nil {
			t.Errorf("$ %s: %v\noutput:\n%s", cmd, err, out.String())
		}
		i = j
	}
}

// matchLines reports whether got is want, where a want line "..." stands
// for any number of lines.
func matchLines(got, want []string) error {
	var segs [][]string
	open := []bool{false}
	cur := []string{}
	for _, w := range want {
		if w == "..." {
			segs = append(segs, cur)
			cur = []string{}
			open = append(open, true)
			continue
		}
		cur = append(cur, w)
	}
	segs = append(segs, cur)
	pos := 0
	for k, seg := range segs {
		if len(seg) == 0 {
			continue
		}
		found := -1
		for at := pos; at+len(seg) <= len(got); at++ {
			if equalLines(got[at:at+len(seg)], seg) {
				found = at
				break
			}
			if !open[k] {
				break
			}
		}
		if found < 0 {
			return fmt.Errorf("the lines\n  %s\nare not in the output where the doc shows them", strings.Join(seg, "\n  "))
		}
		pos = found + len(seg)
	}
	if len(segs[len(segs)-1]) > 0 && pos != len(got) {
		return fmt.Errorf("the output goes on after the lines the doc shows (end the block with ... to abridge it)")
	}
	return nil
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
