package tlavalue

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// sample holds values of every kind, nested, including the corners of the
// representation: empty composites, extreme integers, escapes, records
// whose field names are not identifiers and functions that are not
// sequences.
func sample() []Value {
	a, b := Model("a"), Model("b_OF_T")
	rec := Record(Field{"name", Str("resume")}, Field{"count", Int(0)}, Field{"owner", a})
	return []Value{
		Bool(false), Bool(true),
		Int(0), Int(-7), Int(42), Int(math.MaxInt64), Int(math.MinInt64),
		Str(""), Str("hello"), Str("q\"uote \\ back\nnl\ttab\rcr\fff"), Str("é ∈ ⟨⟩"),
		a, b, Model("x1"), Model("1x"),
		Tuple(), Tuple(Int(1)), Tuple(Int(1), Str("two"), a, Tuple(), Set()),
		Tuple(Tuple(Tuple(Int(1)))),
		Set(), Set(Int(3), Int(1), Int(2)), Set(a, b), Set(Set(), Set(Int(1)), Set(Int(2), Int(3))),
		Set(Bool(true), Bool(false)),
		rec,
		Record(Field{"flags", Set(Bool(true))}, Field{"nested", rec}),
		Record(Field{"a b", Int(1)}, Field{"c", Int(2)}),
		Record(Field{"", Int(1)}),
		Record(Field{"WF_x", Int(1)}),
		Record(Field{"IF", Int(1)}, Field{"TRUE", Bool(false)}),
		Func(Pair{Int(0), Str("z")}, Pair{Int(2), Str("x")}, Pair{Int(5), Str("y")}),
		Func(Pair{a, Int(7)}, Pair{b, Int(8)}),
		Func(Pair{Tuple(Int(1), Int(2)), Int(1)}, Pair{Tuple(Int(3), Int(4)), Int(3)}),
		Func(Pair{Int(1), Str("i")}, Pair{Str("k"), Str("s")}),
		Func(Pair{Int(-1), Int(1)}),
		Func(Pair{Set(), Func(Pair{Int(2), Int(3)})}),
		Set(Func(Pair{a, Int(1)}), rec, Tuple(a), Str("s"), Int(3), Bool(true)),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, v := range sample() {
		src := v.String()
		got, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		if !Equal(got, v) {
			t.Errorf("Parse(%q) = %v, want %v", src, got, v)
		}
		if got.String() != src {
			t.Errorf("Parse(%q).String() = %q", src, got.String())
		}
	}
}

// TestParseTLC reads values the way TLC prints them (these are copied from
// real TLC output, wrapped lines included) and checks the canonical form.
func TestParseTLC(t *testing.T) {
	tests := []struct{ src, want string }{
		{`TRUE`, `TRUE`},
		{`-7`, `-7`},
		{`"q\"uote \\ back\nnl\ttab"`, `"q\"uote \\ back\nnl\ttab"`},
		{`(0 :> "z" @@ 2 :> "x" @@ 5 :> "y")`, `(0 :> "z" @@ 2 :> "x" @@ 5 :> "y")`},
		{`1..3`, `{1, 2, 3}`},
		{`3..1`, `{}`},
		{`BOOLEAN`, `{FALSE, TRUE}`},
		{`<<>>`, `<<>>`},
		{`[name |-> "resume", count |-> 0, flags |-> {FALSE, TRUE}, owner |-> a]`,
			`[count |-> 0, flags |-> {FALSE, TRUE}, name |-> "resume", owner |-> a]`},
		{`("c" :> 2 @@ "a b" :> 1)`, `("a b" :> 1 @@ "c" :> 2)`},
		{`("k" :> 1 @@ "j" :> 2)`, `[j |-> 2, k |-> 1]`},
		{`(1 :> "a" @@ 2 :> "b")`, `<<"a", "b">>`},
		{`{b, a, c, a}`, `{a, b, c}`},
		{"( a :>\n      << <<a, 1, \"pad\">>,\n         <<a, 2, \"pad\">> >> @@\n  b :>\n      << <<b, 1, \"pad\">> >> )",
			`(a :> <<<<a, 1, "pad">>, <<a, 2, "pad">>>> @@ b :> <<<<b, 1, "pad">>>>)`},
		{"{ [ type |-> \"1a\",\n    bal |-> 1 ],\n  [ type |-> \"1b\", bal |-> 2 ] }",
			`{[bal |-> 1, type |-> "1a"], [bal |-> 2, type |-> "1b"]}`},
		// Forms TLC does not print but TLA+ reads the same way.
		{`1 :> 2 @@ 3 :> 4`, `(1 :> 2 @@ 3 :> 4)`},
		{`(1 :> "first") @@ (1 :> "second" @@ 2 :> "b")`, `<<"first", "b">>`},
		{`<<"x">> @@ (2 :> "y")`, `<<"x", "y">>`},
		{`((((7))))`, `7`},
		{`- 3`, `-3`},
		{`007`, `7`},
	}
	for _, tt := range tests {
		v, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if v.String() != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, v, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{``, 1, 1, "expected a value, found end of input"},
		{`<<1, 2`, 1, 7, "expected '>>', found end of input"},
		{"<<1,\n  2,\n  3 }", 3, 5, "expected '>>', found '}'"},
		{`{1 2}`, 1, 4, "expected '}', found integer 2"},
		{`[a |-> 1, a |-> 2]`, 1, 11, "duplicate field a"},
		{`[a = 1]`, 1, 4, "expected '|->', found '='"},
		{`[]`, 1, 2, "expected a name, found ']'"},
		{`"abc`, 1, 1, "unterminated string"},
		{"\"ab\ncd\"", 1, 4, "newline in string"},
		{`"a\qb"`, 1, 3, `unknown escape \q in string`},
		{"\"\xff\"", 1, 2, "invalid UTF-8 in string"},
		{`1 2`, 1, 3, "unexpected integer 2 after the value"},
		{`99999999999999999999`, 1, 1, "integer 99999999999999999999 out of range"},
		{`-a`, 1, 2, "expected digits after '-', found 'a'"},
		{`a..3`, 1, 1, "'..' needs integer bounds, found a model value"},
		{`0..2000000`, 1, 2, "interval 0..2000000 has more than 65536 elements"},
		{"{" + strings.Repeat("0..60000, ", 20) + "}", 1, 173, "intervals have more than 1048576 elements in all"},
		{strings.Repeat("<<1 :> ", 600) + "1" + strings.Repeat(">>", 600), 1, 1, "values nested more than 1000 deep"},
		{`1 :> 2 :> 3`, 1, 8, "':>' needs parentheses to be chained"},
		{`(1 :> 2) @@ {3}`, 1, 13, "operand of @@ must be a function, found a set"},
		{`SUBSET {1}`, 1, 1, "SUBSET is a TLA+ keyword, not a value"},
		{"\n\n   #", 3, 4, `unexpected character '#'`},
		{strings.Repeat("<<", maxDepth+1), 1, 2*maxDepth + 1, "values nested more than 1000 deep"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tt.src, err)
			continue
		}
		if se.Line != tt.line || se.Col != tt.col || se.Msg != tt.msg {
			t.Errorf("Parse(%q) error = %q, want %q", tt.src, se,
				(&SyntaxError{Line: tt.line, Col: tt.col, Msg: tt.msg}).Error())
		}
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	_, err := Parse(`<<"é∈", x y>>`)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Col != 11 {
		t.Fatalf("error = %v, want one at col 11", err)
	}
}

func TestParser(t *testing.T) {
	// An action label's parameters, as tla/tlcout reads them.
	p := NewParser(`Send(a, <<1, 2>>) rest`)
	name, err := p.Ident()
	if err != nil || name != "Send" || !p.Accept("(") {
		t.Fatalf("Ident = %q, %v", name, err)
	}
	var args []Value
	for {
		v, err := p.Value()
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, v)
		if !p.Accept(",") {
			break
		}
	}
	if err := p.Expect(")"); err != nil {
		t.Fatal(err)
	}
	if got := Tuple(args...).String(); got != "<<a, <<1, 2>>>>" {
		t.Errorf("args = %s", got)
	}
	if line, col := p.Pos(); line != 1 || col != 19 || p.AtEOF() {
		t.Errorf("Pos = %d:%d, AtEOF = %v", line, col, p.AtEOF())
	}
	if err := p.ExpectEOF(); err == nil || p.Err() != err {
		t.Errorf("ExpectEOF = %v, Err = %v", err, p.Err())
	}
	if _, err := p.Value(); err != p.Err() {
		t.Errorf("after an error Value returned %v", err)
	}
}

func TestValueNormalisation(t *testing.T) {
	// A function over strings is a record in TLA+, however it was built.
	f := Func(Pair{Str("b"), Int(2)}, Pair{Str("a"), Int(1)})
	r := Record(Field{"a", Int(1)}, Field{"b", Int(2)})
	if f.Kind() != KindRecord || !Equal(f, r) {
		t.Errorf("Func over strings = %v (%s), want the record %v", f, f.Kind(), r)
	}
	if got, ok := f.Get("b"); !ok || !Equal(got, Int(2)) {
		t.Errorf("Get(b) = %v, %v", got, ok)
	}
	odd := Record(Field{"a b", Int(1)})
	if odd.String() != `("a b" :> 1)` {
		t.Errorf("record with a non-identifier field prints as %s", odd)
	}
	if got := Quote("\r\f"); got != `"\r\f"` {
		t.Errorf("Quote = %s", got)
	}
}

func TestIsName(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "x1": true, "1x": true, "_a": true, "WF_": true, "WF_x": false, "SF_ab": false,
		"": false, "123": false, "_": false, "a b": false, "é": false,
	} {
		if IsName(s) != want {
			t.Errorf("IsName(%q) = %v", s, !want)
		}
	}
}

func TestParseState(t *testing.T) {
	tests := []struct {
		src  string
		want State
	}{
		{"", State{}},
		{"x = 0\n", State{{"x", Int(0)}}},
		{"/\\ big = 4\n/\\ small = 3\n", State{{"big", Int(4)}, {"small", Int(3)}}},
		{"/\\ only = <<>>", State{{"only", Tuple()}}},
		{"/\\ nested = ( a :>\n      <<1,\n         2>> )\n/\\ n = -7\n\n",
			State{{"nested", Func(Pair{Model("a"), Tuple(Int(1), Int(2))})}, {"n", Int(-7)}}},
	}
	for _, tt := range tests {
		got, err := ParseState(tt.src)
		if err != nil {
			t.Errorf("ParseState(%q): %v", tt.src, err)
			continue
		}
		if len(got) != len(tt.want) || !got.Equal(tt.want) || strings.Join(got.Names(), ",") != strings.Join(tt.want.Names(), ",") {
			t.Errorf("ParseState(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestParseStateErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"x = 1\ny = 2", `line 2, col 1: a state of several variables needs '/\' before each`},
		{"/\\ x = 1\ny = 2", `line 2, col 1: expected '/\', found 'y'`},
		{"/\\ x = 1\n/\\ x = 2", "line 2, col 4: variable x assigned twice"},
		{"/\\ x == 1", "line 1, col 7: expected a value, found '='"},
		{"/\\ x = <<1,\n  2", "line 2, col 4: expected '>>', found end of input"},
		{"/\\ 7 = 1", "line 1, col 4: expected a name, found integer 7"},
	}
	for _, tt := range tests {
		_, err := ParseState(tt.src)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseState(%q) error = %v, want %s", tt.src, err, tt.want)
		}
	}
}

func TestStateHelpers(t *testing.T) {
	s := State{{"small", Int(3)}, {"big", Int(4)}}
	if s.String() != "/\\ small = 3\n/\\ big = 4\n" {
		t.Errorf("String = %q", s.String())
	}
	if (State{{"x", Int(1)}}).String() != "x = 1\n" {
		t.Errorf("single-variable String wrong")
	}
	if v, ok := s.Get("big"); !ok || !Equal(v, Int(4)) {
		t.Errorf("Get(big) = %v, %v", v, ok)
	}
	if _, ok := s.Get("none"); ok {
		t.Errorf("Get(none) found something")
	}
	m := s.Map()
	if !StateOf(m).Equal(s) || StateOf(m)[0].Name != "big" {
		t.Errorf("StateOf(Map) = %v", StateOf(m))
	}
	if s.Equal(State{{"small", Int(3)}, {"big", Int(5)}}) || s.Equal(s[:1]) {
		t.Errorf("Equal ignores values or length")
	}
	back, err := ParseState(s.String())
	if err != nil || !back.Equal(s) {
		t.Errorf("ParseState(String) = %v, %v", back, err)
	}
}

func TestParseDumpSamples(t *testing.T) {
	f, err := os.Open("testdata/diehard_ok.dump")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	states, err := ParseDump(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 16 {
		t.Fatalf("%d states, want 16", len(states))
	}
	if got := states[13].String(); got != "/\\ big = 4\n/\\ small = 3\n" {
		t.Errorf("State 14 = %q", got)
	}
	seen := map[string]bool{}
	for _, s := range states {
		seen[s.Sorted().String()] = true
	}
	if len(seen) != 16 {
		t.Errorf("%d distinct states, want 16", len(seen))
	}

	f2, err := os.Open("testdata/values.dump")
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	states, err = ParseDump(f2)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 4 {
		t.Fatalf("%d states, want 4", len(states))
	}
	want := map[string]string{
		"str":    `"q\"uote \\ back\nnl\ttab"`,
		"intv":   `{1, 2, 3}`,
		"empty":  `<<>>`,
		"sfn":    `("a b" :> 1 @@ "c" :> 2)`,
		"rec":    `[count |-> 0, flags |-> {FALSE, TRUE}, name |-> "resume", owner |-> a]`,
		"nested": `(a :> <<<<a, 1, "some padding text">>, <<a, 2, "some padding text">>, <<a, 3, "some padding text">>>> @@ b :> <<<<b, 1, "some padding text">>, <<b, 2, "some padding text">>, <<b, 3, "some padding text">>>> @@ c :> <<<<c, 1, "some padding text">>, <<c, 2, "some padding text">>, <<c, 3, "some padding text">>>>)`,
		"set":    `{a, b, c}`,
		"n":      `-7`,
	}
	for name, w := range want {
		if v, ok := states[0].Get(name); !ok || v.String() != w {
			t.Errorf("State 1 %s = %v, want %s", name, v, w)
		}
	}
	if v, _ := states[3].Get("step"); !Equal(v, Int(2)) {
		t.Errorf("State 4 step = %v", v)
	}
}

func TestParseDumpErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"junk\nState 1:\nx = 1\n", `tlavalue: dump line 1: expected "State 1:", found "junk"`},
		{"State 1:\nx = 1\n\nState 3:\nx = 2\n", "tlavalue: dump line 4: expected State 2, found State 3"},
		{"State 1:\n/\\ x = 1\n/\\ y = 2\n\nState 2:\n/\\ x = 1\n/\\ y = <<2,\n", "tlavalue: dump state 2: line 8, col 1: expected a value, found end of input"},
		{"State 1:\n/\\ x = 1\n/\\ y = {2 3}\n", "tlavalue: dump state 1: line 3, col 11: expected '}', found integer 3"},
	}
	for _, tt := range tests {
		_, err := ParseDump(strings.NewReader(tt.src))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseDump(%q) error = %v, want %s", tt.src, err, tt.want)
		}
	}
	// The syntax error inside is still there for callers to inspect.
	_, err := ParseDump(strings.NewReader("State 1:\nx = 1\n\nState 2:\nx = }\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 5 || se.Col != 5 {
		t.Errorf("error = %v, want a *SyntaxError at 5:5", err)
	}
	states, err := ParseDump(strings.NewReader("State 1:\r\nx = 1\r\n\r\nState 2:\r\nx = 2"))
	if err != nil || len(states) != 2 {
		t.Errorf("CRLF dump without a final newline: %v, %v", states, err)
	}
	states, err = ParseDump(strings.NewReader(""))
	if err != nil || len(states) != 0 {
		t.Errorf("empty dump: %v, %v", states, err)
	}
}

func TestReadDumpStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ReadDump(strings.NewReader("State 1:\nx = 1\nState 2:\nx = 2\n"), func(State) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("ReadDump = %v after %d states", err, n)
	}
}
