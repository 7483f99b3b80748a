package tlavalue

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON compares two JSON texts ignoring object key order.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	for _, p := range []struct {
		raw []byte
		dst *any
	}{{a, &x}, {b, &y}} {
		d := json.NewDecoder(bytes.NewReader(p.raw))
		d.UseNumber()
		if err := d.Decode(p.dst); err != nil {
			t.Fatalf("%s: %v", p.raw, err)
		}
	}
	return reflect.DeepEqual(x, y)
}

func TestJSONRoundTrip(t *testing.T) {
	models := map[string]bool{}
	for _, v := range sample() {
		collectModels(v, models)
	}
	for _, v := range sample() {
		for _, d := range []JSONDecoder{
			{Format: CheckerJSON},
			{Format: ITF, ModelValues: func(s string) bool { return models[s] }},
		} {
			raw := marshal(t, EncodeJSON(d.Format, v))
			got, err := d.Value(raw)
			if err != nil {
				t.Errorf("%s of %v = %s: %v", d.Format, v, raw, err)
				continue
			}
			if !Equal(got, v) {
				t.Errorf("%s round trip of %v via %s = %v", d.Format, v, raw, got)
			}
		}
	}
}

func collectModels(v Value, into map[string]bool) {
	if name, ok := v.AsModel(); ok {
		into[name] = true
	}
	for _, p := range v.Pairs() {
		collectModels(p.Key, into)
		collectModels(p.Value, into)
	}
	for _, e := range v.Elems() {
		collectModels(e, into)
	}
}

func TestEncodeJSONForms(t *testing.T) {
	a := Model("a")
	tests := []struct {
		v                 Value
		tlc, checker, itf string
	}{
		{Int(-3), `-3`, `-3`, `{"#bigint":"-3"}`},
		{Bool(true), `true`, `true`, `true`},
		{Str("s"), `"s"`, `"s"`, `"s"`},
		{a, `"a"`, `{"__model":"a"}`, `"a"`},
		{Tuple(), `[]`, `{"__tuple":[]}`, `[]`},
		{Tuple(Int(1), a), `[1,"a"]`, `{"__tuple":[1,{"__model":"a"}]}`, `[{"#bigint":"1"},"a"]`},
		{Set(Int(2), Int(1)), `[1,2]`, `[1,2]`, `{"#set":[{"#bigint":"1"},{"#bigint":"2"}]}`},
		{Record(Field{"x", Int(1)}), `{"x":1}`, `{"x":1}`, `{"x":{"#bigint":"1"}}`},
		{Func(Pair{Int(0), Str("z")}, Pair{a, Str("m")}, Pair{Tuple(Int(1), Int(2)), Str("t")}),
			`{"0":"z","a":"m","<<1, 2>>":"t"}`,
			`{"__fn":[[0,"z"],[{"__model":"a"},"m"],[{"__tuple":[1,2]},"t"]]}`,
			`{"#map":[[{"#bigint":"0"},"z"],["a","m"],[[{"#bigint":"1"},{"#bigint":"2"}],"t"]]}`},
	}
	for _, tt := range tests {
		for f, want := range map[Format]string{TLCJSON: tt.tlc, CheckerJSON: tt.checker, ITF: tt.itf} {
			if got := marshal(t, EncodeJSON(f, tt.v)); !sameJSON(t, got, []byte(want)) {
				t.Errorf("%s of %v = %s, want %s", f, tt.v, got, want)
			}
		}
	}
	if got := marshal(t, ToTLCJSON(Int(1))); string(got) != "1" {
		t.Errorf("ToTLCJSON = %s", got)
	}
	if got := marshal(t, ToCheckerJSON(Model("m"))); string(got) != `{"__model":"m"}` {
		t.Errorf("ToCheckerJSON = %s", got)
	}
	if got := marshal(t, ToITF(Set())); string(got) != `{"#set":[]}` {
		t.Errorf("ToITF = %s", got)
	}
}

// checkerStates reads a recording of tla-checker's explore_init and
// explore_next answers (see testdata/checker/README.md) and returns each
// state's raw "json" member.
func checkerStates(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var answer struct {
			States []struct {
				JSON json.RawMessage `json:"json"`
			} `json:"states"`
			Transitions []struct {
				State struct {
					JSON json.RawMessage `json:"json"`
				} `json:"state"`
			} `json:"transitions"`
		}
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		if err := d.Decode(&answer); err != nil {
			t.Fatal(err)
		}
		for _, s := range answer.States {
			out = append(out, s.JSON)
		}
		for _, tr := range answer.Transitions {
			out = append(out, tr.State.JSON)
		}
	}
	return out
}

func TestCheckerJSONSamples(t *testing.T) {
	tests := []struct {
		file string
		want map[string]string // per state, the canonical print of some variables
	}{
		{"testdata/checker/checker_a.ndjson", map[string]string{
			"b": "TRUE", "i": "42", "neg": "-3", "s": `"hello"`, "mv": "m1",
			"t": `<<1, "x", FALSE>>`, "st": "{1, 2, 3}", "r": `[a |-> 1, b |-> "two"]`,
			"f": `[j |-> "j", k |-> "k"]`, "e": "<<>>", "es": "{}", "ef": `(2 :> "a" @@ 5 :> "b")`,
			"nested": "{<<1, [q |-> {m1}]>>}", "sq": "<<1, 4, 9>>",
		}},
		{"testdata/checker/checker_b.ndjson", map[string]string{
			"tk": "(<<1, 2>> :> 1 @@ <<3, 4>> :> 3)", "mixed": `(1 :> "i" @@ "k" :> "s")`,
			"zero": "(0 :> 0 @@ 1 :> 1 @@ 2 :> 2)", "big": "9007199254740993", "emptyf": "<<>>",
			"ss": "{{}, {1}, {2, 3}}", "sr": "{[a |-> 1], [a |-> 2, b |-> 3]}",
			"strk": `"q\"uote\\back\nnl é"`,
		}},
		{"testdata/checker/checker_c.ndjson", map[string]string{
			"sp": `("" :> 2 @@ "a b" :> 1)`, "bools": "{FALSE, TRUE}",
		}},
	}
	for _, tt := range tests {
		raws := checkerStates(t, tt.file)
		if len(raws) != 2 {
			t.Fatalf("%s: %d states, want 2", tt.file, len(raws))
		}
		for i, raw := range raws {
			s, err := JSONDecoder{Format: CheckerJSON}.State(raw)
			if err != nil {
				t.Fatalf("%s state %d: %v", tt.file, i, err)
			}
			for name, want := range tt.want {
				if v, ok := s.Get(name); !ok || v.String() != want {
					t.Errorf("%s state %d: %s = %v, want %s", tt.file, i, name, v, want)
				}
			}
			// Encoding the decoded state gives back tla-checker's text.
			enc := map[string]any{}
			for _, v := range s {
				enc[v.Name] = ToCheckerJSON(v.Value)
			}
			if tt.file != "testdata/checker/checker_c.ndjson" && !sameJSON(t, marshal(t, enc), raw) {
				t.Errorf("%s state %d: re-encoded as\n%s\nwant\n%s", tt.file, i, marshal(t, enc), raw)
			}
		}
	}
}

func TestCheckerAmbiguousRecord(t *testing.T) {
	// tla-checker writes [__tuple |-> 1] as {"__tuple": 1}; explore_next then
	// reads it back as FALSE (see checker_c.ndjson). Here it stays a record.
	raws := checkerStates(t, "testdata/checker/checker_c.ndjson")
	s, err := JSONDecoder{Format: CheckerJSON}.State(raws[0])
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("amb"); v.String() != "[__tuple |-> 1]" {
		t.Errorf("amb = %v", v)
	}
	v, err := FromCheckerJSON(json.RawMessage(`{"__fn": [1, 2]}`))
	if err != nil || v.String() != "[__fn |-> {1, 2}]" {
		t.Errorf("malformed __fn = %v, %v", v, err)
	}
}

func TestTLCJSONTrace(t *testing.T) {
	raw, err := os.ReadFile("testdata/values_trace.json")
	if err != nil {
		t.Fatal(err)
	}
	var trace struct {
		Counterexample struct {
			State [][]json.RawMessage `json:"state"`
		} `json:"counterexample"`
	}
	if err := json.Unmarshal(raw, &trace); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/values.dump")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dump, err := ParseDump(f)
	if err != nil {
		t.Fatal(err)
	}
	// Every state of the trace is in the dump. Encoding the dump's values as
	// TLC would must give the JSON that TLC wrote for one of them.
	project := func(s State) string {
		var out State
		for _, v := range s {
			back, err := FromTLCJSON(marshal(t, ToTLCJSON(v.Value)))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Var{Name: v.Name, Value: back})
		}
		return out.Sorted().String()
	}
	inDump := map[string]bool{}
	for _, s := range dump {
		inDump[project(s)] = true
	}
	for i, st := range trace.Counterexample.State {
		s, err := JSONDecoder{Format: TLCJSON}.State(st[1])
		if err != nil {
			t.Fatalf("state %d: %v", i+1, err)
		}
		if got, want := strings.Join(s.Names(), ","), "str,fn,intv,empty,mv,nested,rec,n,seq,set,step,sfn"; got != want {
			t.Errorf("state %d: variables in order %s, want %s", i+1, got, want)
		}
		if !inDump[s.Sorted().String()] {
			t.Errorf("state %d is no dump state encoded as TLC does:\n%v", i+1, s)
		}
	}
	if len(trace.Counterexample.State) != 3 {
		t.Errorf("%d states in the trace, want 3", len(trace.Counterexample.State))
	}
	s, err := JSONDecoder{Format: TLCJSON, ModelValues: func(s string) bool { return s == "a" || s == "b" || s == "c" }}.State(trace.Counterexample.State[0][1])
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"mv":   "a",
		"set":  "<<a, b, c>>", // TLC writes sets as arrays
		"fn":   `("0" :> "z" @@ "2" :> "x" @@ "5" :> "y")`,
		"intv": "<<1, 2, 3>>",
		"seq":  `<<1, "two", a, <<>>, <<>>>>`,
	} {
		if v, _ := s.Get(name); v.String() != want {
			t.Errorf("%s = %v, want %s", name, v, want)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		f    Format
		src  string
		want string
	}{
		{TLCJSON, `null`, "tlavalue: TLC JSON at $: null is not a TLA+ value"},
		{TLCJSON, `{"a": [1, 2.5]}`, "tlavalue: TLC JSON at $.a[1]: number 2.5 is not a 64-bit integer"},
		{TLCJSON, `{"a b": [true, null]}`, `tlavalue: TLC JSON at $["a b"][1]: null is not a TLA+ value`},
		{TLCJSON, `[1`, "tlavalue: TLC JSON at $: unexpected end of JSON"},
		{TLCJSON, `1 2`, "tlavalue: TLC JSON at $: data after the JSON value"},
		{TLCJSON, `{"a": 1, "a": 2}`, `tlavalue: TLC JSON at $: duplicate key "a"`},
		{CheckerJSON, `{"__fn": [[1, "a"], [1, "b"]]}`, "tlavalue: tla-checker JSON at $.__fn[1]: duplicate key 1"},
		{CheckerJSON, `{"__tuple": [1, 99999999999999999999]}`, "tlavalue: tla-checker JSON at $.__tuple[1]: number 99999999999999999999 is not a 64-bit integer"},
		{ITF, `{"#bigint": 5}`, `tlavalue: ITF at $["#bigint"]: #bigint must be a string of digits, found a number`},
		{ITF, `{"#bigint": "1e3"}`, `tlavalue: ITF at $["#bigint"]: "1e3" is not an integer`},
		{ITF, `{"#bigint": "123456789012345678901234567890"}`, `tlavalue: ITF at $["#bigint"]: integer 123456789012345678901234567890 does not fit in 64 bits`},
		{ITF, `{"#set": {}}`, `tlavalue: ITF at $["#set"]: #set must be an array, found an object`},
		{ITF, `{"#map": [[1]]}`, `tlavalue: ITF at $["#map"][0]: expected a [key, value] pair`},
		{ITF, `{"#tup": [], "x": 1}`, `tlavalue: ITF at $: object with "#tup" has another key "x"`},
		{ITF, `{"#wat": 1}`, `tlavalue: ITF at $: unknown ITF tag "#wat"`},
		{ITF, `{"f": {"#unserializable": "Nat"}}`, `tlavalue: ITF at $.f: unserializable value "Nat"`},
	}
	for _, tt := range tests {
		_, err := JSONDecoder{Format: tt.f}.Value([]byte(tt.src))
		var je *JSONError
		if !errors.As(err, &je) || err.Error() != tt.want {
			t.Errorf("%s %s: error = %v, want %s", tt.f, tt.src, err, tt.want)
		}
	}
	if _, err := (JSONDecoder{Format: ITF}).State([]byte(`[1]`)); err == nil ||
		err.Error() != "tlavalue: ITF at $: a state must be an object, found an array" {
		t.Errorf("State([1]) error = %v", err)
	}
}

func TestITFValues(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{"#bigint": "-12"}`, "-12"},
		{`7`, "7"},
		{`[{"#bigint": "1"}, "a"]`, `<<1, "a">>`},
		{`{"#tup": [true, "x"]}`, `<<TRUE, "x">>`},
		{`{"#set": [{"#bigint": "2"}, {"#bigint": "1"}]}`, "{1, 2}"},
		{`{"#map": [[{"#bigint": "1"}, "a"], [{"#bigint": "2"}, "b"]]}`, `<<"a", "b">>`},
		{`{"#map": []}`, "<<>>"},
		{`{"tag": "Some", "value": {"#bigint": "40"}}`, `[tag |-> "Some", value |-> 40]`},
		{`{"tag": "None", "value": {}}`, `[tag |-> "None", value |-> <<>>]`},
		{`{"#meta": {"index": 3}, "x": true}`, `[x |-> TRUE]`},
	}
	for _, tt := range tests {
		v, err := FromITF(json.RawMessage(tt.src))
		if err != nil || v.String() != tt.want {
			t.Errorf("FromITF(%s) = %v, %v; want %s", tt.src, v, err, tt.want)
		}
	}
}

func TestITFTrace(t *testing.T) {
	src := `{"#meta":{"format":"ITF","source":"Counter.qnt"},"vars":["x","s"],` +
		`"states":[{"#meta":{"index":0},"x":{"#bigint":"0"},"s":{"#set":["p1"]}},` +
		`{"#meta":{"index":1},"x":{"#bigint":"1"},"s":{"#set":[]}}],"loop":0}`
	models := JSONDecoder{ModelValues: func(s string) bool { return strings.HasPrefix(s, "p") }}
	tr, err := ReadITFTrace(strings.NewReader(src), models)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Loop != 0 || len(tr.States) != 2 || tr.Meta["source"] != "Counter.qnt" {
		t.Fatalf("trace = %+v", tr)
	}
	if got := tr.States[0].String(); got != "/\\ x = 0\n/\\ s = {p1}\n" {
		t.Errorf("state 0 = %q", got)
	}
	var buf bytes.Buffer
	if err := WriteITFTrace(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, buf.Bytes(), []byte(src)) {
		t.Errorf("WriteITFTrace = %s\nwant %s", buf.Bytes(), src)
	}
	if !strings.Contains(buf.String(), `{"#meta":{"index":0},"x":`) {
		t.Errorf("variables out of order: %s", buf.Bytes())
	}
	back, err := ReadITFTrace(&buf, models)
	if err != nil || !reflect.DeepEqual(back.Vars, tr.Vars) || !back.States[1].Equal(tr.States[1]) {
		t.Errorf("re-read = %+v, %v", back, err)
	}

	noLoop, err := ReadITFTrace(strings.NewReader(`{"vars":[],"states":[{}]}`), JSONDecoder{})
	if err != nil || noLoop.Loop != -1 || len(noLoop.States) != 1 {
		t.Errorf("trace without loop = %+v, %v", noLoop, err)
	}
	buf.Reset()
	if err := WriteITFTrace(&buf, &ITFTrace{Loop: -1}); err != nil || buf.String() != `{"vars":[],"states":[]}`+"\n" {
		t.Errorf("empty trace = %q, %v", buf.String(), err)
	}
	_, err = ReadITFTrace(strings.NewReader(`{"vars":["x"],"states":[{"x":{"#set":1}}]}`), JSONDecoder{})
	if err == nil || err.Error() != `tlavalue: ITF at $.states[0].x["#set"]: #set must be an array, found a number` {
		t.Errorf("bad state error = %v", err)
	}
}
