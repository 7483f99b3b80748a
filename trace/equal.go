package trace

import (
	"bytes"
	"unsafe"

	"github.com/resumecontract/resumecheck/model"
)

// The elements of the state's sequences are two one-byte fields without
// padding, so two sequences are equal exactly when their bytes are: one
// memory comparison instead of a loop over fields, on the checker's
// hottest path. The array lengths below stop the build if a field is
// added or the layout gains padding.
var (
	_ [2 - unsafe.Sizeof(model.Record{})]struct{}
	_ [unsafe.Sizeof(model.Record{}) - 2]struct{}
	_ [2 - unsafe.Sizeof(model.ResumeObs{})]struct{}
	_ [unsafe.Sizeof(model.ResumeObs{}) - 2]struct{}
	_ [2 - unsafe.Sizeof(model.Recovery{})]struct{}
	_ [unsafe.Sizeof(model.Recovery{}) - 2]struct{}
)

// asBytes views a slice of two-byte elements as bytes.
func asBytes[E model.Record | model.ResumeObs | model.Recovery](s []E) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

// Booleans are stored as 0 or 1, so equal values have equal bytes.
func equalRecords(a, b []model.Record) bool { return bytes.Equal(asBytes(a), asBytes(b)) }

func equalResumes(a, b []model.ResumeObs) bool { return bytes.Equal(asBytes(a), asBytes(b)) }

func equalRecoveries(a, b []model.Recovery) bool { return bytes.Equal(asBytes(a), asBytes(b)) }

// StatesEqual reports whether s and t give every variable the same value
// (model.State.Equal, without copying the states).
func StatesEqual(s, t *model.State) bool { return statesEqual(s, t) }

// SeqDiffs returns, in order, the first indices (0-based, at most max of
// them) below both lengths at which the sequence variable v of s and t
// has different elements; nil for a variable that is not a sequence.
// Elements are compared by their bytes, as VarEqual compares the whole
// sequences, so that a report can pinpoint the differences of sequences a
// million long by building only the elements that differ.
func SeqDiffs(v Var, s, t *model.State, max int) []int {
	var a, b []byte
	size := 2
	switch v {
	case VarEffects:
		a, b, size = s.Effects, t.Effects, 1
	case VarLog:
		a, b = asBytes(s.Log), asBytes(t.Log)
	case VarResumes:
		a, b = asBytes(s.Resumes), asBytes(t.Resumes)
	case VarRecoveries:
		a, b = asBytes(s.Recoveries), asBytes(t.Recoveries)
	default:
		return nil
	}
	// Equal stretches are skipped a block at a time; block is a multiple
	// of every element size, so off stays on an element's first byte.
	const block = 4096
	n := min(len(a), len(b))
	var out []int
	for off := 0; off < n && len(out) < max; {
		if end := off + block; end <= n && bytes.Equal(a[off:end], b[off:end]) {
			off = end
			continue
		}
		if !bytes.Equal(a[off:off+size], b[off:off+size]) {
			out = append(out, off/size)
		}
		off += size
	}
	return out
}
