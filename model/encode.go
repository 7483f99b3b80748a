package model

import (
	"encoding/binary"
	"errors"
)

// The canonical encoding of a State is a short byte string: equal states
// encode to equal bytes and different states to different bytes. It keys
// unpacked states where they are kept in sets (tracecheck's candidates,
// the report's graph, the tla-checker comparison) and holds any bounds.
// The engine does not use it: it explores packed states (packed.go) and
// fingerprints their words. The counters are uvarints, one byte each
// below 128, so the encoding of a state whose counters are small is what
// it was when they were bytes. Layout:
//
//	PC Frontier flags Consumed+1
//	uvarint Crashes, Strays, Consumes, Raced
//	Effects[0..NTasks-1]
//	uvarint len(Log)        then Task<<1|Valid per record
//	uvarint len(Resumes)    then Value, Observed per resume
//	uvarint len(Recoveries) then Frontier, Decision per recovery
const (
	flagWaiting = 1 << iota
	flagReentered
	flagRebuilt
	flagLost
)

// Encode appends the canonical encoding of s to dst.
func (m *Model) Encode(dst []byte, s State) []byte {
	var flags byte
	if s.Waiting {
		flags |= flagWaiting
	}
	if s.Reentered {
		flags |= flagReentered
	}
	if s.Rebuilt {
		flags |= flagRebuilt
	}
	if s.Lost {
		flags |= flagLost
	}
	dst = append(dst, byte(s.PC), byte(s.Frontier), flags, byte(s.Consumed+1))
	dst = appendCount(dst, s.Crashes)
	dst = appendCount(dst, s.Strays)
	dst = appendCount(dst, s.Consumes)
	dst = appendCount(dst, s.Raced)
	dst = append(dst, s.Effects...)
	dst = binary.AppendUvarint(dst, uint64(len(s.Log)))
	for _, r := range s.Log {
		b := byte(r.Task) << 1
		if r.Valid {
			b |= 1
		}
		dst = append(dst, b)
	}
	dst = binary.AppendUvarint(dst, uint64(len(s.Resumes)))
	for _, r := range s.Resumes {
		dst = append(dst, byte(r.Value), byte(r.Observed))
	}
	dst = binary.AppendUvarint(dst, uint64(len(s.Recoveries)))
	for _, r := range s.Recoveries {
		dst = append(dst, byte(r.Frontier), byte(r.Decision))
	}
	return dst
}

// appendCount appends a counter as a uvarint, in one byte when it is
// below 128 (always, at the bounds an exhaustive check can finish).
func appendCount(dst []byte, n uint32) []byte {
	if n < 0x80 {
		return append(dst, byte(n))
	}
	return binary.AppendUvarint(dst, uint64(n))
}

var errEncoding = errors.New("model: malformed state encoding")

// Decode is the inverse of Encode.
func (m *Model) Decode(b []byte) (State, error) {
	n := m.P.NTasks
	if len(b) < 4 {
		return State{}, errEncoding
	}
	s := State{
		PC: int8(b[0]), Frontier: int8(b[1]),
		Waiting: b[2]&flagWaiting != 0, Reentered: b[2]&flagReentered != 0,
		Rebuilt: b[2]&flagRebuilt != 0, Lost: b[2]&flagLost != 0,
		Consumed: int8(b[3]) - 1,
	}
	b = b[4:]
	for _, c := range []*uint32{&s.Crashes, &s.Strays, &s.Consumes, &s.Raced} {
		k, w := binary.Uvarint(b)
		if w <= 0 || k > 1<<32-1 {
			return State{}, errEncoding
		}
		*c, b = uint32(k), b[w:]
	}
	if len(b) < n {
		return State{}, errEncoding
	}
	s.Effects = append([]uint8(nil), b[:n]...)
	b = b[n:]
	count := func(width int) (int, bool) {
		k, w := binary.Uvarint(b)
		if w <= 0 || k > uint64(len(b)-w)/uint64(width) {
			return 0, false
		}
		b = b[w:]
		return int(k), true
	}
	k, ok := count(1)
	if !ok {
		return State{}, errEncoding
	}
	if k > 0 {
		s.Log = make([]Record, k)
		for i := range k {
			s.Log[i] = Record{Task: int8(b[i] >> 1), Valid: b[i]&1 != 0}
		}
	}
	b = b[k:]
	if k, ok = count(2); !ok {
		return State{}, errEncoding
	}
	if k > 0 {
		s.Resumes = make([]ResumeObs, k)
		for i := range k {
			s.Resumes[i] = ResumeObs{Value: int8(b[2*i]), Observed: int8(b[2*i+1])}
		}
	}
	b = b[2*k:]
	if k, ok = count(2); !ok {
		return State{}, errEncoding
	}
	if k > 0 {
		s.Recoveries = make([]Recovery, k)
		for i := range k {
			s.Recoveries[i] = Recovery{Frontier: int8(b[2*i]), Decision: Decision(b[2*i+1])}
		}
	}
	if len(b) != 2*k {
		return State{}, errEncoding
	}
	return s, nil
}
