package tlavalue

import (
	"encoding/json"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// prints to a text that parses back to the same value and the same text.
// Seeds: the sample values' prints here and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, v := range sample() {
		f.Add(v.String())
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := Parse(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Parse(%q) error %v is not a *SyntaxError", src, err)
			}
			return
		}
		out := v.String()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) = %v, whose print does not parse: %v", src, out, err)
		}
		if !Equal(back, v) || back.String() != out {
			t.Fatalf("Parse(%q) = %v, re-parsed as %v", src, out, back)
		}
	})
}

// FuzzParseState is FuzzParse for whole states.
func FuzzParseState(f *testing.F) {
	f.Add("x = 0\n")
	f.Add("/\\ big = 4\n/\\ small = 3\n")
	f.Add("/\\ nested = ( a :>\n      <<1,\n         2>> )\n/\\ n = -7\n\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseState(src)
		if err != nil {
			return
		}
		back, err := ParseState(s.String())
		if err != nil || !back.Equal(s) || back.String() != s.String() {
			t.Fatalf("ParseState(%q) = %q, re-parsed as %q (%v)", src, s.String(), back.String(), err)
		}
	})
}

// FuzzJSON feeds the same bytes to every JSON decoder: none may panic, and
// what one accepts must survive encoding and decoding again unchanged.
func FuzzJSON(f *testing.F) {
	for _, v := range sample() {
		for _, format := range []Format{TLCJSON, CheckerJSON, ITF} {
			b, _ := json.Marshal(EncodeJSON(format, v))
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, format := range []Format{TLCJSON, CheckerJSON, ITF} {
			d := JSONDecoder{Format: format}
			v, err := d.Value(raw)
			if err != nil || format == CheckerJSON && checkerAmbiguous(v) {
				continue
			}
			enc, err := json.Marshal(EncodeJSON(format, v))
			if err != nil {
				t.Fatalf("%s: encoding %v: %v", format, v, err)
			}
			back, err := d.Value(enc)
			if err != nil || !Equal(back, v) {
				t.Fatalf("%s: %s decoded as %v, re-encoded as %s, decoded as %v (%v)", format, raw, v, enc, back, err)
			}
			_, _ = d.State(raw)
		}
	})
}

// checkerAmbiguous reports whether v holds a record that tla-checker's JSON
// cannot tell from a tagged value: one whose only field is __tuple, __model
// or __fn (see CheckerJSON).
func checkerAmbiguous(v Value) bool {
	if fs := v.Fields(); len(fs) == 1 {
		switch fs[0].Name {
		case "__tuple", "__model", "__fn":
			return true
		}
	}
	for _, p := range v.Pairs() {
		if checkerAmbiguous(p.Key) || checkerAmbiguous(p.Value) {
			return true
		}
	}
	for _, e := range v.Elems() {
		if checkerAmbiguous(e) {
			return true
		}
	}
	return false
}
