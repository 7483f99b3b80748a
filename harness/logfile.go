package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/internal/jsonfile"
)

// LogEnd is the mark the runner writes at the end of a run's log when
// it has recorded the whole run. Entries are appended as the run goes, so
// a log cut after any complete entry is a valid, shorter log, and one
// that judges as another run (a rejected run whose entries stop before
// the fault judges as accepted). The end mark counts what the run
// recorded and digests it, so that such a log is refused instead.
type LogEnd struct {
	// Entries and Rows count the run's entries and ledger rows.
	Entries int `json:"entries"`
	Rows    int `json:"rows"`
	// SHA256 is the hex SHA-256 of the log without its end mark, as
	// encoding/json writes it compactly (LogDigest).
	SHA256 string `json:"sha256"`
}

// ErrLogCut is the error of a log whose end mark is missing or does not
// match its entries: the log was cut, edited, or written before the end
// mark (re-run the run, or Seal a log you built by hand).
var ErrLogCut = errors.New("harness: the log is not the whole run")

// Seal sets l.End from l's content; the runner calls it when the run is
// over, before writing the log.
func (l *RunLog) Seal() {
	l.End = &LogEnd{Entries: len(l.Entries), Rows: len(l.Rows), SHA256: LogDigest(l)}
}

// LogDigest is the hex SHA-256 of l without its end mark, in
// encoding/json's compact form: the same log, read back from any
// formatting, has the same digest.
func LogDigest(l *RunLog) string {
	c := *l
	c.End = nil
	b, err := json.Marshal(&c)
	if err != nil {
		// Every field of a RunLog encodes (json.RawMessage fields
		// were valid JSON when decoded).
		panic(fmt.Sprintf("harness: encoding a run log: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CheckEnd refuses a log that is not the whole run its end mark records:
// no end mark, other counts, or another digest. The error wraps
// ErrLogCut.
func (l *RunLog) CheckEnd() error {
	switch {
	case l.End == nil:
		return fmt.Errorf("%w: it has no end mark (the runner writes one when the run is over; a log cut short, or one written before the mark, has none)", ErrLogCut)
	case l.End.Entries != len(l.Entries):
		return fmt.Errorf("%w: it has %s, its end mark records %d (entries were removed or added)", ErrLogCut, english.Forms(len(l.Entries), "entry", "entries"), l.End.Entries)
	case l.End.Rows != len(l.Rows):
		return fmt.Errorf("%w: it has %s, its end mark records %d (rows were removed or added)", ErrLogCut, english.Count(len(l.Rows), "ledger row"), l.End.Rows)
	}
	if d := LogDigest(l); d != l.End.SHA256 {
		return fmt.Errorf("%w: its digest is %s, its end mark records %s (the log was changed after the run)", ErrLogCut, d, l.End.SHA256)
	}
	return nil
}

// WriteJSON writes l as the runner keeps it (indented, with a final
// newline).
func (l *RunLog) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadRunLog reads a run's log.json as DecodeRunLog does.
func ReadRunLog(path string) (*RunLog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeRunLog(path, data)
}

// DecodeRunLog decodes a run's log strictly (a key twice, or a field a
// log does not have, is an edited log) and refuses one that is not the
// whole run (CheckEnd), naming path and the position: where the end mark
// is, or where it should be.
func DecodeRunLog(path string, data []byte) (*RunLog, error) {
	var l RunLog
	if err := jsonfile.Decode(path, data, &l, jsonfile.Options{Strict: true}); err != nil {
		return nil, err
	}
	if err := l.CheckEnd(); err != nil {
		off := LogOffset(data, "end", -1)
		if off < 0 {
			// No end mark: where it belongs, the end of the document.
			off = int64(bytes.LastIndexByte(data, '}'))
		}
		line, col := jsonfile.Position(data, off)
		return nil, &jsonfile.Error{Path: path, Line: line, Col: col, Err: err}
	}
	return &l, nil
}

// LogOffset is the byte offset in a log's data of the value of its
// top-level key, or with i >= 0 of that array's element i; -1 when there
// is none.
func LogOffset(data []byte, key string, i int) int64 {
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return -1
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return -1
		}
		if k != key {
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return -1
			}
			continue
		}
		if i < 0 {
			return skipSpace(data, d.InputOffset(), ':')
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
			return -1
		}
		for n := 0; d.More(); n++ {
			off := d.InputOffset()
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return -1
			}
			if n == i {
				return skipSpace(data, off, ',')
			}
		}
		return -1
	}
	return -1
}

// skipSpace skips white space and one separator sep from off: the
// decoder's InputOffset is where the previous token ended.
func skipSpace(data []byte, off int64, sep byte) int64 {
	for off < int64(len(data)) && (data[off] == sep || data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n') {
		off++
	}
	return off
}
