package syntax

import (
	"bytes"
	"strings"
)

// addDocs gives each top-level definition of m the comment just above it
// in src: a run of \* lines or one (* ... *) block ending on the line
// before the definition (a blank line between them detaches it).
func addDocs(m *Module, src []byte) {
	var lines []string
	for _, u := range m.Units {
		d, ok := u.(*OpDef)
		if !ok {
			continue
		}
		if lines == nil {
			lines = strings.Split(string(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))), "\n")
		}
		d.Doc = commentAbove(lines, d.Pos.Line-1)
	}
}

// commentAbove is the comment that ends on the line before lines[at]
// (0-based), as one line of text.
func commentAbove(lines []string, at int) string {
	if at <= 0 || at > len(lines) {
		return ""
	}
	var parts []string
	i := at - 1
	switch t := strings.TrimSpace(lines[i]); {
	case strings.HasPrefix(t, `\*`):
		for ; i >= 0; i-- {
			t := strings.TrimSpace(lines[i])
			if !strings.HasPrefix(t, `\*`) {
				break
			}
			parts = append([]string{strings.TrimPrefix(t, `\*`)}, parts...)
		}
	case strings.HasSuffix(t, "*)"):
		// One block over several lines, or a box of one-line blocks
		// ("(* text *)" lines, rules of stars included).
		if !strings.HasPrefix(t, "(*") {
			if strings.Contains(t, "(*") {
				return "" // a comment at the end of a line of code
			}
			for ; i >= 0; i-- {
				t := strings.TrimSpace(lines[i])
				if i < at-1 && strings.Contains(t, "*)") {
					return "" // the end of another comment: not one block
				}
				parts = append([]string{t}, parts...)
				if strings.HasPrefix(t, "(*") || t == "" {
					break
				}
			}
		} else {
			for ; i >= 0; i-- {
				t := strings.TrimSpace(lines[i])
				if !strings.HasPrefix(t, "(*") || !strings.HasSuffix(t, "*)") {
					break
				}
				parts = append([]string{t}, parts...)
			}
		}
		if len(parts) == 0 || !strings.HasPrefix(parts[0], "(*") {
			return ""
		}
		for k, p := range parts {
			p = strings.TrimPrefix(p, "(*")
			p = strings.TrimSuffix(p, "*)")
			parts[k] = strings.Trim(p, "* ")
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}
