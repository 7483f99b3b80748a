package doctest

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Link is one link target of a Markdown file.
type Link struct {
	// Line is where the link is (1-based).
	Line int
	// Target is the link's destination as written.
	Target string
}

var (
	// [text](target) and ![alt](target), with an optional "title".
	inlineLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// [id]: target at the start of a line.
	refDefRE = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// <a name="x"> and <a id="x">: anchors written by hand.
	htmlAnchorRE = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	codeSpanRE   = regexp.MustCompile("`+[^`]*`+")
)

// Links returns the link targets of a Markdown file, outside code blocks
// and code spans.
func Links(src []byte) []Link {
	var out []Link
	eachProseLine(src, func(n int, line string) {
		line = codeSpanRE.ReplaceAllString(line, "")
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			out = append(out, Link{Line: n, Target: m[1]})
			return
		}
		for _, m := range inlineLinkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: n, Target: m[1]})
		}
	})
	return out
}

// Anchors returns the fragment names a Markdown file offers: its
// headings' ids as GitHub makes them (lower case, punctuation dropped,
// spaces as hyphens, "-1", "-2" for repeats) and <a name|id="..."> tags.
func Anchors(src []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	eachProseLine(src, func(_ int, line string) {
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || !strings.HasPrefix(t, "#") {
			return
		}
		text := strings.TrimLeft(t, "#")
		if len(t)-len(text) > 6 || (text != "" && text[0] != ' ') {
			return
		}
		id := Slug(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(text), "#")))
		if k := seen[id]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", id, k)] = true
		} else {
			anchors[id] = true
		}
		seen[id]++
	})
	return anchors
}

// Slug is a heading's id the way GitHub makes it.
func Slug(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			sb.WriteRune(r)
		case r == ' ':
			sb.WriteByte('-')
		}
	}
	return sb.String()
}

// eachProseLine calls f with every line outside fenced code blocks.
func eachProseLine(src []byte, f func(n int, line string)) {
	lines := splitLines(string(src))
	for i := 0; i < len(lines); i++ {
		if fence, _, ok := openFence(lines[i]); ok {
			for i++; i < len(lines) && !closesFence(lines[i], fence); i++ {
			}
			continue
		}
		f(i+1, lines[i])
	}
}

// CheckLinks checks the links of the Markdown files named (slash paths in
// fsys, the repository): a relative target must stay inside the
// repository and exist, and a fragment into a Markdown file must name one
// of its headings or anchors. Web links (http, https, mailto) are not
// followed. Each problem names file:line.
func CheckLinks(fsys fs.FS, files []string) []error {
	var errs []error
	anchors := map[string]map[string]bool{}
	anchorsOf := func(name string) (map[string]bool, error) {
		if a, ok := anchors[name]; ok {
			return a, nil
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		anchors[name] = Anchors(src)
		return anchors[name], nil
	}
	for _, file := range files {
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range Links(src) {
			bad := func(format string, args ...any) {
				errs = append(errs, fmt.Errorf("%s:%d: link %s: %s", file, l.Line, l.Target, fmt.Sprintf(format, args...)))
			}
			target := l.Target
			if target == "" {
				bad("empty target")
				continue
			}
			if scheme, _, ok := strings.Cut(target, ":"); ok && !strings.ContainsAny(scheme, "/.#") {
				switch strings.ToLower(scheme) {
				case "http", "https", "mailto":
				default:
					bad("a %s: link leaves the repository", scheme)
				}
				continue
			}
			p, frag, _ := strings.Cut(target, "#")
			if p == "" {
				p = file
			} else {
				if strings.HasPrefix(p, "/") {
					bad("an absolute path leaves the repository: write it relative to %s", file)
					continue
				}
				if u, err := url.PathUnescape(p); err == nil {
					p = u
				}
				p = path.Join(path.Dir(file), p)
			}
			if !fs.ValidPath(p) {
				bad("the target leaves the repository")
				continue
			}
			info, err := fs.Stat(fsys, p)
			if err != nil {
				bad("no such file or folder in the repository")
				continue
			}
			if frag == "" || info.IsDir() || !strings.HasSuffix(p, ".md") {
				continue
			}
			a, err := anchorsOf(p)
			if err != nil {
				bad("%v", err)
			} else if !a[frag] {
				bad("%s has no heading or anchor %q", p, frag)
			}
		}
	}
	return errs
}
