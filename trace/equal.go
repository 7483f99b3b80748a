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
