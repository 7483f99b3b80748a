package trace

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// FuzzDecode: the decoder never panics, every error it gives is bad input
// with a line number, and what it accepts survives a round trip through
// the encoder unchanged.
//
//	go test ./trace -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	var valid bytes.Buffer
	m, _ := model.New(model.R0())
	tr := &Trace{Header: NewHeader(model.R0(), Producer{Name: "fuzz", Version: "1"}),
		Events: FromSteps(walk(m, 3), AllVars)}
	_ = tr.Encode(&valid)
	f.Add(valid.Bytes())
	f.Add([]byte(header + "\n"))
	f.Add([]byte(header + "\n" + `{"seq":1,"action":"Consume","params":{"value":"va"},"vars":{"pc":3,"consumed":"va","resumes":[{"value":"va","observed":["va"]}]}}`))
	f.Add([]byte(header + "\n" + `{"seq":1,"action":"CrashRecover","params":{"decision":"skip"},"vars":{"recoveries":[{"frontier":0,"decision":"skip"}],"log":[{"task":1,"valid":false}]},"time":[1,{"a":"\u00e9"}]}`))
	f.Add([]byte(header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":2,"effects":[1,0`))
	f.Add([]byte(`{"seq":1,"action":"ExecTask"}`))
	f.Add([]byte("not json at all\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(bytes.NewReader(data))
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, ErrBadInput) || !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error %v is not a bad-input error with a line", err)
			}
			return
		}
		// Streaming gives the same events as Decode.
		d := NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var ev Event
			err := d.Next(&ev)
			if err == io.EOF {
				if i != len(tr.Events) {
					t.Fatalf("Next read %d events, Decode %d", i, len(tr.Events))
				}
				break
			}
			if err != nil || !sameEvent(&ev, &tr.Events[i]) {
				t.Fatalf("Next: event %d: %v", i+1, err)
			}
		}
		var buf bytes.Buffer
		if err := tr.Encode(&buf); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("decoding the re-encoded trace: %v\n%s", err, buf.String())
		}
		if len(back.Events) != len(tr.Events) || back.Header.Constants.NTasks != tr.Header.Constants.NTasks ||
			strings.Join(back.Header.Faults, ",") != strings.Join(tr.Header.Faults, ",") {
			t.Fatalf("round trip changed the trace")
		}
		for i := range tr.Events {
			if !sameEvent(&back.Events[i], &tr.Events[i]) {
				t.Fatalf("round trip changed event %d", i+1)
			}
		}
	})
}

func sameEvent(a, b *Event) bool {
	return a.Seq == b.Seq && a.Action == b.Action && a.Value == b.Value && a.HasDecision == b.HasDecision &&
		(!a.HasDecision || a.Decision == b.Decision) && a.Observed == b.Observed && a.Matches(&b.State) && b.Matches(&a.State)
}
