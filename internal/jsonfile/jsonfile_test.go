package jsonfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type doc struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Tags  []string
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		strict   bool
		want     string // "" = decodes
	}{
		{name: "ok", in: "{\"name\": \"a\", \"count\": 2}\n"},
		{name: "unknown field, lenient", in: `{"name": "a", "colour": 1}`},
		{name: "empty", in: " \n\t", want: "f.json: empty file: want a JSON document"},
		{name: "syntax", in: "{\n  \"name\": \"a\",\n  \"count\": 2,\n}", want: "f.json:4:1: invalid character '}' looking for beginning of object key string"},
		{name: "type", in: "{\n  \"name\": \"a\",\n  \"count\": \"two\"\n}", want: "f.json:3:16: json: cannot unmarshal string into Go struct field doc.count of type int"},
		{name: "cut short", in: "{\n  \"name\": \"a\",\n  \"co", want: "f.json:3:5: unexpected end of file: the JSON document is cut short"},
		{name: "two documents", in: "{\"name\": \"a\"}\n  {\"name\": \"b\"}", want: "f.json:2:3: more after the JSON document"},
		{name: "trailing garbage", in: "{\"name\": \"a\"} x", want: "f.json:1:15: invalid character 'x' looking for beginning of value"},
		{name: "unknown field, strict", strict: true, in: "{\n  \"name\": \"colour\",\n  \"colour\": 1\n}", want: "f.json:3:3: json: unknown field \"colour\""},
		{name: "not an object", in: "[1, 2]", want: "f.json:1:1: json: cannot unmarshal array into Go value of type jsonfile.doc"},
		{name: "key twice, lenient", in: `{"name": "b", "name": "a"}`},
		{name: "key twice, strict", strict: true, in: "{\n  \"name\": \"b\",\n  \"name\": \"a\"\n}", want: "f.json:3:8: key \"name\" given twice in one object"},
		{name: "key twice up to case, strict", strict: true, in: `{"name": "a", "NAME": "b"}`, want: "f.json:1:20: key \"NAME\" given twice in one object"},
		{name: "key twice in a nested object, strict", strict: true, in: `{"name": "a", "x": [{"k": 1, "k": 2}]}`, want: "f.json:1:32: key \"k\" given twice in one object"},
		{name: "the same key in sibling objects, strict", strict: true, in: `{"name": "a", "Tags": ["name", "name"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			err := Decode("f.json", []byte(tc.in), &d, Options{Strict: tc.strict})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Decode: %v, want no error", err)
				}
				if d.Name != "a" {
					t.Errorf("Name: got %q, want %q", d.Name, "a")
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode: no error, want %q", tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("Decode error: got %q, want %q", got, tc.want)
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Errorf("Decode error is a %T, want an *Error", err)
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.json")
	if err := os.WriteFile(p, []byte(`{"count": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := Read(p, &d, Options{Strict: true}); err != nil {
		t.Fatalf("Read(%s): %v", p, err)
	}
	if d.Count != 3 {
		t.Errorf("Count: got %d, want 3", d.Count)
	}
	err := Read(filepath.Join(dir, "missing.json"), &d, Options{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(missing.json): got %v, want an error that is os.ErrNotExist", err)
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncd\n")
	for _, tc := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 1}, {2, 1, 2}, {3, 2, 1}, {4, 2, 1}, {5, 2, 2}, {99, 3, 1}, {-4, 1, 1}} {
		if l, c := Position(data, tc.off); l != tc.line || c != tc.col {
			t.Errorf("Position(offset %d): got %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}

// FuzzDecode: any input either decodes or is an *Error whose position,
// when it has one, lies inside the input.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"name":"a","count":1,"Tags":["x"]}`, "{\n\"count\": \"x\"}", `{"a":1} {"b":2}`, "", "{", `{"colour":1}`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		var d doc
		err := Decode("f.json", data, &d, Options{Strict: strict})
		if err == nil {
			return
		}
		var fe *Error
		if !errors.As(err, &fe) {
			t.Fatalf("%T is not an *Error: %v", err, err)
		}
		if !strings.HasPrefix(err.Error(), "f.json:") {
			t.Fatalf("the error does not name the file: %v", err)
		}
		lines := 1 + strings.Count(string(data), "\n")
		if fe.Line < 0 || fe.Line > lines || (fe.Line > 0 && fe.Col < 1) {
			t.Fatalf("position %d:%d outside %d lines: %v", fe.Line, fe.Col, lines, err)
		}
	})
}
