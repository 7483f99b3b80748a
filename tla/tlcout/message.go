package tlcout

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The markers TLC writes around each message in -tool mode (MP.DELIM,
// MP.STARTMSG, MP.ENDMSG).
const (
	delim    = "@!@!@"
	startTag = delim + "STARTMSG "
	endTag   = delim + "ENDMSG "
)

// Message is one message of TLC's -tool output, or one line of output
// outside any message (Code Untagged).
type Message struct {
	Code     Code
	Severity Severity
	// Lines is the body without the markers and without the lines of
	// messages nested inside it (TLC nests, for instance, the output of
	// module overrides inside an assumption's error).
	Lines []string
	// InputLine is the line of the input holding the start marker, or the
	// line itself for untagged output.
	InputLine int
	lineNos   []int // input line of each entry of Lines
}

// Text returns the body as one string, without trailing blank lines.
func (m Message) Text() string {
	return strings.TrimRight(strings.Join(m.Lines, "\n"), "\n \t")
}

// LineOf returns the input line of Lines[i].
func (m Message) LineOf(i int) int {
	if i >= 0 && i < len(m.lineNos) {
		return m.lineNos[i]
	}
	return m.InputLine
}

// ErrMalformed is wrapped by every error about input that is not TLC's
// -tool output; the error's text names the line.
var ErrMalformed = errors.New("tlc: malformed output")

func malformed(line int, format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMalformed, line, fmt.Sprintf(format, args...))
}

// Reader reads TLC's -tool output one message at a time, as TLC writes it,
// so that a caller can follow a run in progress. It does not interpret
// message bodies; Result does.
type Reader struct {
	br      *bufio.Reader
	line    int
	pending []string // rest of a line split at a marker, read next
	open    []*Message
	ready   []Message // messages completed but not yet returned
	err     error
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{br: bufio.NewReader(r)} }

// Next returns the next message: a tagged message once its end marker has
// been read, an untagged line as soon as it is complete. It returns io.EOF
// after the last message and an error wrapping ErrMalformed, naming the
// line, for output that breaks the marker structure.
func (r *Reader) Next() (Message, error) {
	for len(r.ready) == 0 {
		if r.err != nil {
			return Message{}, r.err
		}
		r.err = r.step()
	}
	m := r.ready[0]
	r.ready = r.ready[1:]
	return m, nil
}

// step consumes one line (or the part of one before or after a marker).
func (r *Reader) step() error {
	text, lineNo, err := r.readLine()
	if err == io.EOF {
		if n := len(r.open); n > 0 {
			m := r.open[n-1]
			return malformed(r.line, "message %d started at line %d has no end marker", m.Code, m.InputLine)
		}
		return io.EOF
	}
	if err != nil {
		return err
	}
	// A marker normally fills its line, but output written without a final
	// newline (a Print, a crash) can run into one.
	if i := strings.Index(text, delim); i > 0 {
		r.pending = append([]string{text[i:]}, r.pending...)
		r.body(text[:i], lineNo)
		return nil
	}
	switch {
	case strings.HasPrefix(text, startTag):
		rest, tail := splitMarker(text[len(startTag):])
		codeStr, classStr, ok := strings.Cut(strings.TrimSpace(rest), ":")
		code, err1 := strconv.Atoi(codeStr)
		class, err2 := strconv.Atoi(classStr)
		if !ok || err1 != nil || err2 != nil || code == int(Untagged) || tail == "" && !strings.HasSuffix(text, delim) {
			return malformed(lineNo, "bad start marker %q", text)
		}
		r.open = append(r.open, &Message{Code: Code(code), Severity: Severity(class), InputLine: lineNo})
		r.unread(tail)
	case strings.HasPrefix(text, endTag):
		rest, tail := splitMarker(text[len(endTag):])
		code, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || tail == "" && !strings.HasSuffix(text, delim) {
			return malformed(lineNo, "bad end marker %q", text)
		}
		n := len(r.open)
		if n == 0 {
			return malformed(lineNo, "end marker of message %d without a start marker", code)
		}
		m := r.open[n-1]
		if Code(code) != m.Code {
			return malformed(lineNo, "end marker of message %d inside message %d started at line %d", code, m.Code, m.InputLine)
		}
		r.open = r.open[:n-1]
		r.ready = append(r.ready, *m)
		r.unread(tail)
	case strings.HasPrefix(text, delim):
		return malformed(lineNo, "unknown marker %q", text)
	default:
		r.body(text, lineNo)
	}
	return nil
}

// splitMarker splits "2217:4 @!@!@rest" after the closing delimiter.
func splitMarker(s string) (inside, tail string) {
	i := strings.Index(s, delim)
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+len(delim):]
}

func (r *Reader) unread(tail string) {
	if strings.TrimSpace(tail) != "" {
		r.pending = append([]string{tail}, r.pending...)
	}
}

func (r *Reader) body(text string, lineNo int) {
	if n := len(r.open); n > 0 {
		m := r.open[n-1]
		m.Lines = append(m.Lines, text)
		m.lineNos = append(m.lineNos, lineNo)
		return
	}
	r.ready = append(r.ready, Message{Code: Untagged, Lines: []string{text}, InputLine: lineNo, lineNos: []int{lineNo}})
}

// readLine returns the next line without its line ending.
func (r *Reader) readLine() (string, int, error) {
	if len(r.pending) > 0 {
		s := r.pending[0]
		r.pending = r.pending[1:]
		return s, r.line, nil
	}
	s, err := r.br.ReadString('\n')
	if err != nil && (err != io.EOF || s == "") {
		return "", r.line, err
	}
	r.line++
	return strings.TrimRight(s, "\r\n"), r.line, nil
}
