// Package doctest reads the shell sessions that the project's Markdown
// shows (README.md, docs/*.md) so that a test can run them and compare
// what the commands print with what the page says they print: the docs
// cannot drift from the tools. docs/doctest.md is the guide for writers;
// this package is the pure part (parsing, matching, rewriting), and
// doctest_test.go runs the sessions against freshly built commands.
//
// A session is a fenced block whose info string is "console". A line
// starting with "$ " is a command; the lines after it, up to the next
// command or the end of the block, are what it prints (stdout and stderr
// together, as a terminal shows them). In the expected lines:
//
//   - a line that is "..." alone (spaces around it allowed) stands for any
//     number of lines, none included;
//   - "..." inside a line stands for any text within that line (a time, a
//     path, a process id, the rest of a wide row);
//   - trailing spaces and trailing empty lines are not compared.
//
// "$ echo $?" after a command prints that command's exit status. A
// command that exits non-zero must be followed by it (or contain it), so
// that every documented failure documents its code too.
//
// An HTML comment on the last non-blank line before the fence can say
// more: "<!-- doctest: needs tlc -->" (runs only where TLA2TOOLS_JAR is
// set), "<!-- doctest: skip REASON -->" (never runs; the reason is logged,
// and a reason is required).
package doctest

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Block is one console session of a Markdown file.
type Block struct {
	// File is the file's name as given to Parse.
	File string
	// Line is the line of the opening fence (1-based).
	Line int
	// Skip is the reason of a "doctest: skip" directive; "" to run.
	Skip string
	// Needs lists what the block needs to run ("tlc").
	Needs []string
	// Steps are the commands, in order.
	Steps []Step
}

// Step is one command of a session and what it is shown to print.
type Step struct {
	// Line is the command's line (1-based).
	Line int
	// Command is the text after "$ ".
	Command string
	// Want is the expected output, one string a line.
	Want []string
	// first and end are the 0-based line indexes of Want in the file
	// (end exclusive), for Rewrite.
	first, end int
}

// shellInfos are the info strings of blocks that show shell text: a "$ "
// prompt in one of them is a command the docs test would not run.
var shellInfos = []string{"", "sh", "bash", "shell", "zsh", "text", "terminal"}

// Needs that a directive may name.
var knownNeeds = []string{"tlc"}

var directiveRE = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->$`)

// Parse returns the console blocks of a Markdown file, and every problem
// it found, each naming file:line: a session with output before its first
// command, an unknown or incomplete directive, and a command shown with a
// "$ " prompt in a block that is not a console block (it would not be
// run).
func Parse(file string, src []byte) ([]Block, []error) {
	lines := splitLines(string(src))
	var blocks []Block
	var errs []error
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openFence(lines[i])
		if !ok {
			if directiveRE.MatchString(strings.TrimSpace(lines[i])) && !directiveBeforeFence(lines, i) {
				bad(i+1, "a doctest directive must be the last line before a ```console fence")
			}
			continue
		}
		end := i + 1
		for end < len(lines) && !closesFence(lines[end], fence) {
			end++
		}
		body := lines[i+1 : min(end, len(lines))]
		if info != "console" {
			if !slices.Contains(shellInfos, info) {
				i = end // a page shown as an example (```markdown) may show prompts
				continue
			}
			for j, l := range body {
				if strings.HasPrefix(l, "$ ") {
					bad(i+2+j, "a command shown with a \"$ \" prompt in a ```%s block: make it a ```console session (the docs test runs it) or drop the prompt", info)
					break
				}
			}
			i = end
			continue
		}
		b := Block{File: file, Line: i + 1}
		if d, ok := directiveAbove(lines, i); ok {
			kind, rest, _ := strings.Cut(d, " ")
			rest = strings.TrimSpace(rest)
			switch kind {
			case "skip":
				if rest == "" {
					bad(i+1, "doctest: skip needs a reason")
				}
				b.Skip = rest
			case "needs":
				for _, n := range strings.Fields(rest) {
					if !slices.Contains(knownNeeds, n) {
						bad(i+1, "doctest: needs %q: want one of %s", n, strings.Join(knownNeeds, ", "))
					}
					b.Needs = append(b.Needs, n)
				}
			default:
				bad(i+1, "unknown doctest directive %q: want skip REASON or needs tlc", d)
			}
		}
		for j, l := range body {
			at := i + 1 + j
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				if n := len(b.Steps); n > 0 {
					b.Steps[n-1].end = at
				}
				b.Steps = append(b.Steps, Step{Line: at + 1, Command: cmd, first: at + 1, end: at + 1})
				continue
			}
			if len(b.Steps) == 0 {
				bad(at+1, "output before the session's first command (\"$ \" line)")
				break
			}
			b.Steps[len(b.Steps)-1].Want = append(b.Steps[len(b.Steps)-1].Want, l)
		}
		if n := len(b.Steps); n > 0 {
			b.Steps[n-1].end = min(end, len(lines))
		} else {
			bad(i+1, "a ```console block without a command (\"$ \" line): use ```text for output alone")
		}
		blocks = append(blocks, b)
		i = end
	}
	return blocks, errs
}

// openFence reports whether line opens a fenced code block, and returns
// its fence and info string.
func openFence(line string) (fence, info string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", "", false
	}
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			info = strings.TrimSpace(t[n:])
			if f, _, _ := strings.Cut(info, " "); f != "" {
				info = f
			}
			return t[:n], info, true
		}
	}
	return "", "", false
}

func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// directiveAbove returns the directive on the last non-blank line before
// line i, if there is one.
func directiveAbove(lines []string, i int) (string, bool) {
	for j := i - 1; j >= 0; j-- {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		if m := directiveRE.FindStringSubmatch(t); m != nil {
			return m[1], true
		}
		return "", false
	}
	return "", false
}

// directiveBeforeFence reports whether the directive on line i is
// followed, after blank lines, by a fence.
func directiveBeforeFence(lines []string, i int) bool {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "" {
			continue
		}
		_, info, ok := openFence(lines[j])
		return ok && info == "console"
	}
	return false
}

// splitLines splits s into lines without their "\n" (a final "\n" does
// not start an empty line).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Elision is what stands for omitted text in expected output.
const Elision = "..."

// Match reports whether got (a command's whole output) is what want (the
// documented lines, with elisions) says.
func Match(want []string, got string) bool {
	w := trimLines(want)
	g := trimLines(splitLines(got))
	// memo[i][j]: want[i:] against got[j:], 0 unknown, 1 yes, 2 no.
	memo := make([][]int8, len(w)+1)
	for i := range memo {
		memo[i] = make([]int8, len(g)+1)
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if memo[i][j] != 0 {
			return memo[i][j] == 1
		}
		var ok bool
		switch {
		case i == len(w):
			ok = j == len(g)
		case strings.TrimSpace(w[i]) == Elision:
			ok = match(i+1, j) || (j < len(g) && match(i, j+1))
		default:
			ok = j < len(g) && MatchLine(w[i], g[j]) && match(i+1, j+1)
		}
		memo[i][j] = 2
		if ok {
			memo[i][j] = 1
		}
		return ok
	}
	return match(0, 0)
}

// MatchLine reports whether one line of output matches one documented
// line, where each "..." stands for any text.
func MatchLine(want, got string) bool {
	parts := strings.Split(want, Elision)
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		k := strings.Index(got, p)
		if k < 0 {
			return false
		}
		got = got[k+len(p):]
	}
	return strings.HasSuffix(got, last)
}

// trimLines drops trailing spaces of every line and trailing empty
// lines.
func trimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// Rewrite returns src with the expected output of some steps replaced:
// got maps a step's command line (Step.Line) to the output it printed.
// Steps not in got are kept as written, elisions included; the output
// written in is the whole output, for the writer to review (and elide
// again where it is volatile).
func Rewrite(src []byte, blocks []Block, got map[int]string) []byte {
	lines := splitLines(string(src))
	var steps []Step
	for _, b := range blocks {
		for _, s := range b.Steps {
			if _, ok := got[s.Line]; ok {
				steps = append(steps, s)
			}
		}
	}
	// From the end, so that the indexes of earlier steps still hold.
	slices.SortFunc(steps, func(a, b Step) int { return b.first - a.first })
	for _, s := range steps {
		out := trimLines(splitLines(got[s.Line]))
		lines = slices.Replace(lines, s.first, s.end, out...)
	}
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	return []byte(text)
}

// Name is a short name for a block in test output: the file's base name
// and the fence's line.
func (b Block) Name() string {
	return fmt.Sprintf("%s:%d", path.Base(b.File), b.Line)
}
