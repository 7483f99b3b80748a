package tracecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocRecording keeps docs/trace.md's "Recording your own system"
// true: a fenced block after <!-- file: PATH --> must be the file's
// content (the log and the trace the section shows), and the section's
// commands are ```console sessions, which internal/testing/doctest's TestDocs runs
// and compares line by line (this test requires that there are four, so
// that none is turned into an untested block).
func TestDocRecording(t *testing.T) {
	root, err := filepath.Abs("../../..")
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
	files, sessions := 0, 0
	for _, b := range fencedBlocks(sec) {
		switch {
		case strings.HasPrefix(b.marker, "file: "):
			files++
			path := strings.TrimPrefix(b.marker, "file: ")
			want, err := os.ReadFile(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			if b.body != string(want) {
				t.Errorf("the block after <!-- file: %s --> is not the file's content", path)
			}
		case b.info == "console":
			sessions++
			if !strings.Contains(b.body, "$ tracecheck ") {
				t.Errorf("a console session without tracecheck:\n%s", b.body)
			}
		}
	}
	if files != 2 || sessions != 4 {
		t.Errorf("%d file blocks and %d console sessions; the section has 2 and 4", files, sessions)
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
	info   string // the fence's info string ("console")
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
			info := strings.TrimPrefix(l, "```")
			var body strings.Builder
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				body.WriteString(lines[i])
			}
			out = append(out, fenced{marker: marker, info: info, body: body.String()})
			marker = ""
		case strings.TrimSpace(l) != "":
			marker = ""
		}
	}
	return out
}
