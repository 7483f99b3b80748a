// Package resume offers the Resume contract (package model) through the
// seam of package tlaspec: the first client of the seam, as
// examples/twophase is the second, and registered the same way (a
// tlaspec.Registration, Registration). The engine explores its packed
// states (Spec); the tools above read them as TLA+ values, and the
// report's drawings walk its unpacked states, which hold any bounds
// (Unpacked).
package resume

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// littleEndian: the machine stores a word's low byte first, as the
// encoding does, so that a word's bytes can be copied as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Spec is the Resume model at some constants, checking some properties.
type Spec struct {
	M     *model.Model
	words int
	props []tlaspec.Property[model.Packed]
	all   model.InvariantSet
	sets  []model.InvariantSet // the invariants checked, in order
	// next, when set, replaces the model's packed Next (check.Job.Mutate).
	next func(model.Packed, func(model.Label, model.Packed))
}

// New returns the spec at m's constants, checking the invariants named
// and, when liveness is set, the temporal property Liveness.
func New(m *model.Model, invariants []string, liveness bool) (*Spec, error) {
	sp := &Spec{M: m, words: m.PackedWords()}
	for _, name := range invariants {
		one, err := model.InvariantSetOf(name)
		if err != nil {
			return nil, err
		}
		sp.all |= one
		sp.sets = append(sp.sets, one)
		inv, _ := model.LookupInvariant(name)
		sp.props = append(sp.props, tlaspec.Property[model.Packed]{
			Name: name, Kind: tlaspec.Invariant, Text: inv.Doc,
			// p is a copy on the closure's stack; HoldPacked keeps it there.
			Holds: func(p model.Packed) bool { return m.HoldPacked(&p, one) },
		})
	}
	if liveness {
		sp.props = append(sp.props, tlaspec.Property[model.Packed]{
			Name: model.Liveness, Kind: tlaspec.Eventually, Text: "the run eventually completes (pc = NTasks+1)",
			Goal: m.CompletedFunc(), Rank: m.ProgressFunc(),
		})
	}
	return sp, nil
}

// WithNext returns the spec with its packed successor function replaced
// (a seam for the tests that mutate the model on purpose).
func (sp *Spec) WithNext(next func(model.Packed, func(model.Label, model.Packed))) *Spec {
	c := *sp
	c.next = next
	return &c
}

// AllHold is the conjunction of the invariants checked, in one call.
func (sp *Spec) AllHold(p model.Packed) bool { return sp.M.HoldPacked(&p, sp.all) }

// Violated returns the invariants among open (bit i for the i-th checked)
// that p violates (engine.Options.Violated): all of them in one call when
// they hold, the common case.
func (sp *Spec) Violated(p model.Packed, open uint64) uint64 { return sp.violated(&p, open) }

// ViolatedFunc is Violated as the func value the engine calls on every
// new state, which passes the state on where the call put it (a method
// value, sp.Violated, copies it first: see model.CompletedFunc).
func (sp *Spec) ViolatedFunc() func(model.Packed, uint64) uint64 {
	return func(p model.Packed, open uint64) uint64 { return sp.violated(&p, open) }
}

func (sp *Spec) violated(p *model.Packed, open uint64) uint64 {
	set := sp.all
	if open != 1<<len(sp.sets)-1 {
		set = 0
		for rest := open; rest != 0; rest &= rest - 1 {
			set |= sp.sets[bits.TrailingZeros64(rest)]
		}
	}
	if sp.M.HoldPacked(p, set) {
		return 0
	}
	var v uint64
	for rest := open; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if !sp.M.HoldPacked(p, sp.sets[i]) {
			v |= 1 << i
		}
	}
	return v
}

func (sp *Spec) Init() []model.Packed { return []model.Packed{sp.M.InitPacked()} }

func (sp *Spec) Next(s model.Packed, emit func(model.Label, model.Packed)) {
	if sp.next != nil {
		sp.next(s, emit)
		return
	}
	sp.M.NextPacked(s, emit)
}

// NextInPlace is Next building each successor in *t
// (engine.InPlace): the engine's way, which spares it a copy of each.
func (sp *Spec) NextInPlace(s model.Packed, t *model.Packed, emit func(model.Label)) {
	if sp.next != nil {
		sp.next(s, func(l model.Label, u model.Packed) {
			*t = u
			emit(l)
		})
		return
	}
	sp.M.NextPackedInPlace(s, t, emit)
}

// Layer is the progress measure (model.ProgressPacked): every action
// raises it by exactly one (model's TestPackedMirrorsState checks it on
// every transition of every fault), so the engine keeps one breadth-first
// level's fingerprints at a time (engine.Options.Layer).
func (sp *Spec) Layer() func(model.Packed) uint64 { return sp.M.ProgressFunc() }

// Width is the length of a packed state's used words.
func (sp *Spec) Width() int { return 8 * sp.words }

// Encode writes the words s uses.
func (sp *Spec) Encode(dst []byte, s model.Packed) { sp.EncodeFrom(dst, &s) }

// EncodeFrom is Encode of *s (engine.InPlace). One and two words (R0, R8)
// are written without a loop: the engine encodes every successor.
func (sp *Spec) EncodeFrom(dst []byte, s *model.Packed) {
	switch sp.words {
	case 1:
		binary.LittleEndian.PutUint64(dst[:8], s[0])
	case 2:
		binary.LittleEndian.PutUint64(dst[:8], s[0])
		binary.LittleEndian.PutUint64(dst[8:16], s[1])
	default:
		for i := range sp.words {
			binary.LittleEndian.PutUint64(dst[8*i:], s[i])
		}
	}
}

// Decode is the inverse of Encode.
func (sp *Spec) Decode(src []byte) model.Packed {
	if sp.words == 2 && littleEndian {
		// One 16-byte store, not two of 8: the state is then copied 16
		// bytes at a time (returned, passed to Next), and a load that
		// spans two stores still in flight waits for both to complete
		// (a store-forwarding stall: Decode took a twentieth of R8's
		// time when it stored the words one by one).
		var p model.Packed
		*(*[16]byte)(unsafe.Pointer(&p[0])) = [16]byte(src[:16])
		return p
	}
	return decodeWords(src, sp.words)
}

// decodeWords reads the words of a state one by one (Decode's readable
// form, and what it does on a big-endian machine).
func decodeWords(src []byte, words int) model.Packed {
	var p model.Packed
	switch words {
	case 1:
		p[0] = binary.LittleEndian.Uint64(src[:8])
	case 2:
		p[0] = binary.LittleEndian.Uint64(src[:8])
		p[1] = binary.LittleEndian.Uint64(src[8:16])
	default:
		for i := range words {
			p[i] = binary.LittleEndian.Uint64(src[8*i:])
		}
	}
	return p
}

// Canonical writes to dst the encoding of the representative of the
// state encoded in src under the permutations of Values
// (model.CanonicalPacked): engine.Options.Canonical for a cfg's SYMMETRY.
func (sp *Spec) Canonical(dst, src []byte) {
	sp.Encode(dst, sp.M.CanonicalPacked(sp.Decode(src)))
}

// Module is "Resume".
func (sp *Spec) Module() string { return "Resume" }

// Variables are the spec's variables in declaration order.
func (sp *Spec) Variables() []string { return model.VarNames }

// Vars is s as TLA+ values, in declaration order.
func (sp *Spec) Vars(s model.Packed) tlavalue.State {
	return sp.M.VarState(sp.M.Unpack(s))
}

// FromVars is the packed state with these values.
func (sp *Spec) FromVars(vs tlavalue.State) (model.Packed, error) {
	s, err := sp.M.StateFromVars(vs.Map())
	if err != nil {
		return model.Packed{}, err
	}
	p, err := sp.M.Pack(s)
	if err != nil {
		return model.Packed{}, fmt.Errorf("resume: %w", err)
	}
	return p, nil
}

func (sp *Spec) Action(l model.Label) string { return l.Action.String() }

func (sp *Spec) Label(l model.Label) string { return sp.M.LabelString(l) }

func (sp *Spec) Properties() []tlaspec.Property[model.Packed] { return sp.props }

// Labels are every transition Next could take from s (model.Model.Labels).
func (sp *Spec) Labels(s model.Packed) []model.Label { return sp.M.Labels(sp.M.Unpack(s)) }

// Disabled says why l cannot be taken from s (model.Model.Disabled: the
// guards of model/contract.go as written).
func (sp *Spec) Disabled(s model.Packed, l model.Label) string {
	return sp.M.Disabled(sp.M.Unpack(s), l)
}

var (
	_ tlaspec.Spec[model.Packed, model.Label]   = (*Spec)(nil)
	_ tlaspec.Layered[model.Packed]             = (*Spec)(nil)
	_ engine.InPlace[model.Packed, model.Label] = (*Spec)(nil)
)
