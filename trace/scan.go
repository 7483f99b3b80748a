package trace

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads the JSON of one line. Events are decoded with it rather
// than with encoding/json because a typed, allocation-free reader keeps
// decoding from dominating the checker's time, and because every error
// can then name the field it is about.
type scanner struct {
	b   []byte
	i   int
	tok int    // where the token read last (or being read) starts
	buf []byte // unescaped strings
	// keys holds the keys of the objects being skipped, one run per
	// nesting level, for refusing a key twice at any depth.
	keys []string
}

// fieldError is a problem at a field path such as vars.log[2].task, and
// the 1-based byte column where it is (0: no one place); the decoder adds
// the line.
type fieldError struct {
	path string
	msg  string
	col  int
}

func (e *fieldError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

// errAt is a problem that is about no one place in the line.
func errAt(path, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
}

// errAt is a problem with the token read last (or being read).
func (s *scanner) errAt(path, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...), col: s.tok + 1}
}

func (s *scanner) reset(b []byte) {
	s.b, s.i, s.tok = b, 0, 0
	s.keys = s.keys[:0]
}

// mark records the start of the next token.
func (s *scanner) mark() {
	s.peek()
	s.tok = s.i
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end of the line. A
// NUL byte in the line is returned as 0xff, which like NUL itself is
// nothing JSON allows there, so that it is not taken for the end.
func (s *scanner) peek() byte {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i]
	}
	s.ws()
	if s.i < len(s.b) {
		if s.b[s.i] == 0 {
			return 0xff
		}
		return s.b[s.i]
	}
	return 0
}

// found describes what is at the cursor, for error messages.
func (s *scanner) found() string {
	switch c := s.peek(); {
	case c == 0:
		return "the end of the line (truncated?)"
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || ('0' <= c && c <= '9'):
		return "a number"
	default:
		return fmt.Sprintf("%q", s.b[s.i])
	}
}

func (s *scanner) expect(c byte, path, what string) error {
	if s.peek() != c {
		s.tok = s.i
		return s.errAt(path, "want %s, found %s", what, s.found())
	}
	s.i++
	return nil
}

// object calls field for each key of an object, with the cursor on the
// key's value; field must consume the value. The caller refuses duplicate
// keys (a producer that writes a variable twice has a bug the reader must
// not paper over by picking one): it knows its keys and can track them in
// a bit set without allocating.
func (s *scanner) object(path string, field func(key []byte) error) error {
	if err := s.expect('{', path, "an object"); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		if s.peek() != '"' {
			s.tok = s.i
			return s.errAt(path, "want a key (a string), found %s", s.found())
		}
		key, err := s.str(path)
		if err != nil {
			return err
		}
		if err := s.expect(':', path, "':' after a key"); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			s.tok = s.i
			return s.errAt(path, "want ',' or '}', found %s", s.found())
		}
	}
}

// lit consumes lit if the line continues with exactly it (no spaces):
// the fast path for keys written in the canonical layout.
func (s *scanner) lit(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// array calls elem for each element of an array (with its index), the
// cursor on the element.
func (s *scanner) array(path string, elem func(i int) error) error {
	if err := s.expect('[', path, "an array"); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			s.tok = s.i
			return s.errAt(path, "want ',' or ']', found %s", s.found())
		}
	}
}

// str reads a string. The result aliases the line or the scanner's buffer
// and is valid until the next call.
func (s *scanner) str(path string) ([]byte, error) {
	// Fast path: a string of printable ASCII without escapes, at the
	// cursor.
	if i := s.i; i < len(s.b) && s.b[i] == '"' {
		b := s.b[i+1:]
		j := 0
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j < len(b) && b[j] == '"' {
			s.tok, s.i = i, i+j+2
			return b[:j], nil
		}
	}
	c := s.peek()
	s.tok = s.i
	if c != '"' {
		return nil, s.errAt(path, "want a string, found %s", s.found())
	}
	s.i++
	start := s.i
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		if plain[c] {
			s.i++
			continue
		}
		switch {
		case c == '"':
			out := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(out) {
				return nil, s.errAt(path, "string is not valid UTF-8")
			}
			return out, nil
		case c >= 0x80:
			ascii = false
		case c == '\\':
			return s.escaped(path, start)
		case c < 0x20:
			return nil, s.errAt(path, "control character %U in a string (JSON strings hold them escaped)", c)
		}
		s.i++
	}
	return nil, s.errAt(path, "unterminated string (truncated line?)")
}

// plain marks the bytes a string may hold as they are: not the quote, the
// backslash, a control character or the start of a multi-byte rune.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escaped finishes a string that has escapes, from its start.
func (s *scanner) escaped(path string, start int) ([]byte, error) {
	s.buf = append(s.buf[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(s.buf) {
				return nil, s.errAt(path, "string is not valid UTF-8")
			}
			return s.buf, nil
		case c < 0x20:
			return nil, s.errAt(path, "control character %U in a string (JSON strings hold them escaped)", c)
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			break
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, s.errAt(path, `bad \u escape in a string`)
			}
			if utf16.IsSurrogate(r) {
				// A surrogate stands for nothing alone: only a high one
				// followed by a low one is a character. encoding/json
				// would put U+FFFD in its place; a trace is refused.
				r2 := rune(-1)
				if r < 0xdc00 && s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					if r2, ok = s.hex4(); !ok {
						return nil, s.errAt(path, `bad \u escape in a string`)
					}
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return nil, s.errAt(path, `a \u escape of a lone UTF-16 surrogate in a string: not valid Unicode`)
				}
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			return nil, s.errAt(path, "bad escape \\%c in a string", e)
		}
	}
	return nil, s.errAt(path, "unterminated string (truncated line?)")
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// integer reads an integer in lo..hi. JSON numbers with a fraction or an
// exponent are refused even when their value is whole: the spec's
// variables are integers and a producer writing 1.0 has a type confusion.
func (s *scanner) integer(path string, lo, hi int64) (int64, error) {
	// Fast path: a non-negative integer of up to 9 digits, without
	// leading zeros, ending in ',', '}' or ']' (the encoder's layout).
	if i := s.i; i < len(s.b) {
		b := s.b[i:]
		if d := b[0] - '0'; d <= 9 {
			v, j := int64(d), 1
			for d != 0 && j < len(b) && j < 9 {
				e := b[j] - '0'
				if e > 9 {
					break
				}
				v = v*10 + int64(e)
				j++
			}
			if j < len(b) && (b[j] == ',' || b[j] == '}' || b[j] == ']') && lo <= v && v <= hi {
				s.tok, s.i = i, i+j
				return v, nil
			}
		}
	}
	c := s.peek()
	s.tok = s.i
	if c != '-' && (c < '0' || c > '9') {
		return 0, s.errAt(path, "want an integer, found %s", s.found())
	}
	start := s.i
	neg := c == '-'
	if neg {
		s.i++
	}
	digits := s.i
	var v int64
	overflow := false
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		if v > (1<<62)/5 {
			overflow = true
		}
		v = v*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - digits
	if n == 0 || (n > 1 && s.b[digits] == '0') {
		return 0, s.errAt(path, "malformed number %q", s.b[start:s.i])
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			for s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E' ||
				s.b[s.i] == '+' || s.b[s.i] == '-' || ('0' <= s.b[s.i] && s.b[s.i] <= '9')) {
				s.i++
			}
			return 0, s.errAt(path, "want an integer, found %s", s.b[start:s.i])
		}
	}
	if neg {
		v = -v
	}
	if overflow || v < lo || v > hi {
		if hi >= 1<<40 {
			return 0, s.errAt(path, "%s is out of range (want %d or more)", s.b[start:s.i], lo)
		}
		return 0, s.errAt(path, "%s is out of range (want %d..%d)", s.b[start:s.i], lo, hi)
	}
	return v, nil
}

func (s *scanner) boolean(path string) (bool, error) {
	// Fast path: the literal at the cursor, as the encoder writes it.
	if rest := s.b[s.i:]; len(rest) >= 6 {
		switch w := binary.LittleEndian.Uint32(rest); {
		case w == 't'|'r'<<8|'u'<<16|'e'<<24 && !isWordByte(rest[4]):
			s.tok = s.i
			s.i += 4
			return true, nil
		case w == 'f'|'a'<<8|'l'<<16|'s'<<24 && rest[4] == 'e' && !isWordByte(rest[5]):
			s.tok = s.i
			s.i += 5
			return false, nil
		}
	}
	s.ws()
	s.tok = s.i
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, nil
	case len(rest) > 0 && (rest[0] == 't' || rest[0] == 'f'):
		n := 0
		for n < len(rest) && n < 8 && 'a' <= rest[n] && rest[n] <= 'z' {
			n++
		}
		if s.i+n == len(s.b) {
			return false, s.errAt(path, "want true or false, found %q at the end of the line (truncated?)", rest[:n])
		}
		return false, s.errAt(path, "want true or false, found %q", rest[:n])
	}
	return false, s.errAt(path, "want true or false, found %s", s.found())
}

const maxSkipDepth = 64

// skip consumes any JSON value (for fields that are read and ignored). It
// refuses what the rest of the format refuses: a key twice in an object,
// at any depth.
func (s *scanner) skip(path string, depth int) error {
	if depth > maxSkipDepth {
		s.mark()
		return s.errAt(path, "value nested more than %d deep", maxSkipDepth)
	}
	switch c := s.peek(); {
	case c == '"':
		_, err := s.str(path)
		return err
	case c == '{':
		first := len(s.keys)
		err := s.object(path, func(key []byte) error {
			for _, k := range s.keys[first:] {
				if k == string(key) {
					return s.errAt(path, "key %q appears twice in an object", key)
				}
			}
			s.keys = append(s.keys, string(key))
			return s.skip(path, depth+1)
		})
		s.keys = s.keys[:first]
		return err
	case c == '[':
		return s.array(path, func(int) error { return s.skip(path, depth+1) })
	case c == 't' || c == 'f':
		_, err := s.boolean(path)
		return err
	case c == 'n':
		s.tok = s.i
		if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
			s.i += 4
			return nil
		}
	case c == '-' || ('0' <= c && c <= '9'):
		start := s.i
		s.tok = s.i
		for s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E' ||
			s.b[s.i] == '+' || s.b[s.i] == '-' || ('0' <= s.b[s.i] && s.b[s.i] <= '9')) {
			s.i++
		}
		if !validNumber(s.b[start:s.i]) {
			return s.errAt(path, "malformed number %q", s.b[start:s.i])
		}
		return nil
	}
	s.tok = s.i
	return s.errAt(path, "want a JSON value, found %s", s.found())
}

// validNumber reports whether b is a JSON number: -?(0|[1-9][0-9]*)
// (.[0-9]+)?([eE][+-]?[0-9]+)? (strconv.ParseFloat takes more, such as
// "1." and "01").
func validNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && b[start] == '0') {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// keyLit is a key a reader expects, with its literal form "name": as the
// encoder writes it.
type keyLit struct {
	name string
	lit  string
	// The literal's first 16 bytes as two little-endian words, and the
	// masks of the bytes it has in them (lit is longer than 16 bytes
	// when m1 is all ones and long is set).
	w0, w1, m0, m1 uint64
	long           bool
}

func keyLits(names ...string) []keyLit {
	ks := make([]keyLit, len(names))
	for i, n := range names {
		k := keyLit{name: n, lit: `"` + n + `":`}
		var buf [16]byte
		copy(buf[:], k.lit)
		k.w0, k.w1 = binary.LittleEndian.Uint64(buf[:8]), binary.LittleEndian.Uint64(buf[8:])
		for j := range min(len(k.lit), 16) {
			if j < 8 {
				k.m0 |= 0xff << (8 * j)
			} else {
				k.m1 |= 0xff << (8 * (j - 8))
			}
		}
		k.long = len(k.lit) > 16
		ks[i] = k
	}
	return ks
}

// at reports whether b starts with the key's literal: two word
// comparisons when b has 16 bytes left (a key is never the end of a
// line), a string comparison otherwise.
func (k *keyLit) at(b []byte) bool {
	if len(b) >= 16 && !k.long {
		return binary.LittleEndian.Uint64(b)&k.m0 == k.w0 && binary.LittleEndian.Uint64(b[8:])&k.m1 == k.w1
	}
	return len(b) >= len(k.lit) && string(b[:len(k.lit)]) == k.lit
}

// objStart consumes an object's '{' and reports whether the object is
// empty (consuming its '}' then). With objKey and objNext it reads an
// object without a callback per key, for the decoder's hot paths.
func (s *scanner) objStart(path string) (empty bool, err error) {
	if err := s.expect('{', path, "an object"); err != nil {
		return false, err
	}
	if s.peek() == '}' {
		s.i++
		return true, nil
	}
	return false, nil
}

// objKey reads the next key and its ':', and returns its index in keys,
// or -1 for a key that is not there (with the key, for the error). The
// literal forms of keys[hint:] are tried first, then of the others, so a
// line in the encoder's layout is read without unescaping anything; any
// other layout takes the general path.
func (s *scanner) objKey(path string, keys []keyLit, hint int) (int, []byte, error) {
	c := s.peek()
	s.tok = s.i
	if c == '"' {
		// From the hint on first: a writer in the encoder's order skips
		// the keys it does not write, so the next key is a later one.
		rest := s.b[s.i:]
		hint = max(0, min(hint, len(keys)))
		for i := hint; i < len(keys); i++ {
			if keys[i].at(rest) {
				s.i += len(keys[i].lit)
				return i, nil, nil
			}
		}
		for i := range hint {
			if keys[i].at(rest) {
				s.i += len(keys[i].lit)
				return i, nil, nil
			}
		}
	} else {
		return -1, nil, s.errAt(path, "want a key (a string), found %s", s.found())
	}
	key, err := s.str(path)
	if err != nil {
		return -1, nil, err
	}
	start := s.tok
	if err := s.expect(':', path, "':' after a key"); err != nil {
		return -1, nil, err
	}
	s.tok = start
	for i := range keys {
		if string(key) == keys[i].name {
			return i, nil, nil
		}
	}
	return -1, key, nil
}

// objNext consumes the ',' before another key (true) or the object's
// closing '}' (false).
func (s *scanner) objNext(path string) (bool, error) {
	switch s.peek() {
	case ',':
		s.i++
		return true, nil
	case '}':
		s.i++
		return false, nil
	}
	s.tok = s.i
	return false, s.errAt(path, "want ',' or '}', found %s", s.found())
}

// counts reads an array of effect counts (0..255) into dst: a fast path
// for the encoder's layout, single digits separated by commas, and the
// general one for anything else.
func (s *scanner) counts(dst []uint8) ([]uint8, error) {
	start, n0 := s.i, len(dst)
	if s.i+1 < len(s.b) && s.b[s.i] == '[' {
		i := s.i + 1
		if i < len(s.b) && s.b[i] == ']' {
			s.i = i + 1
			return dst, nil
		}
		for i+1 < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9' {
			dst = append(dst, s.b[i]-'0')
			if len(dst)-n0 > maxSmall {
				break
			}
			switch s.b[i+1] {
			case ',':
				i += 2
				continue
			case ']':
				s.i = i + 2
				return dst, nil
			}
			break
		}
	}
	s.i, dst = start, dst[:n0]
	err := s.array("", func(i int) error {
		if i >= maxSmall {
			s.mark()
			return s.errAt("", "more than %d elements", maxSmall)
		}
		n, err := s.integer("", 0, maxCount)
		dst = append(dst, uint8(n))
		return at(i, err)
	})
	return dst, err
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
