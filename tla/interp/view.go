package interp

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/resumecontract/resumecheck/tla/eval"
)

// ViewCanonical is the cfg's VIEW as the engine takes it
// (engine.Options.Canonical), nil for none: states are told apart by
// their view's value, and of the states with one view the first found is
// explored, as TLC does (TLCStateMut.fingerPrint fingerprints the view).
// dst gets two 64-bit hashes of the view's value (its canonical
// encoding), which the engine then fingerprints: the values are not
// kept, and two views are told apart as surely as two fingerprints are.
// A state no wider than the two hashes (at most four variables) gets the
// view's number in the interning table instead, exact, the view values
// then kept: the engine stores such a state as it is and reports no
// collision possible (engine.Stats.Lossless), which two hashes would
// belie. A wider one is fingerprinted by the engine in 128 bits anyway.
func (sp *Spec) ViewCanonical() func(dst, src []byte) {
	if sp.M.View == nil {
		return nil
	}
	if sp.Width() <= 16 {
		return func(dst, src []byte) {
			clear(dst)
			v, err := sp.M.ViewOf(sp.Decode(src).Vals)
			if err != nil {
				sp.fail(err)
				return
			}
			bp := sp.bufs.Get().(*[]byte)
			id, buf := sp.in.id(v, *bp)
			*bp = buf
			sp.bufs.Put(bp)
			binary.LittleEndian.PutUint32(dst, id)
		}
	}
	return func(dst, src []byte) {
		h, err := sp.viewHash(sp.Decode(src))
		if err != nil {
			clear(dst)
			sp.fail(err)
			return
		}
		clear(dst[16:])
		binary.LittleEndian.PutUint64(dst, h[0])
		binary.LittleEndian.PutUint64(dst[8:], h[1])
	}
}

// viewSeeds are the seeds of the views' two hashes, fixed for a run.
var viewSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func (sp *Spec) viewHash(s State) ([2]uint64, error) {
	v, err := sp.M.ViewOf(s.Vals)
	if err != nil {
		return [2]uint64{}, err
	}
	bp := sp.bufs.Get().(*[]byte)
	buf := eval.AppendKey((*bp)[:0], v)
	h := [2]uint64{maphash.Bytes(viewSeeds[0], buf), maphash.Bytes(viewSeeds[1], buf)}
	*bp = buf
	sp.bufs.Put(bp)
	return h, nil
}

// ViewDependence says whether which state of a view is explored can
// change TLC's counts or verdict: "" when it cannot, else what two
// reachable states with the same view differ in. TLC explores the first
// state of each view it finds, in its order of exploration, which the
// interpreter's need not be (it orders values otherwise). When every two
// reachable states with the same view agree on the invariants, on the
// constraint and, explored, on their number of successors and the views
// of their successors, the views explored, the states generated, the
// depth and the verdict are the same whichever is explored; that is
// checked here on the whole reachable graph (keep is the cfg's
// CONSTRAINT, nil for none).
func (sp *Spec) ViewDependence(ctx context.Context, keep func(State) bool) (string, error) {
	type class struct {
		state, steps uint64 // signatures; steps 0 until a state is explored
	}
	classes := map[[2]uint64]*class{}
	seed := maphash.MakeSeed()
	w := sp.Width()
	seen := map[string]struct{}{}
	enc := make([]byte, w)
	var views [][2]uint64
	// The levels as encodings (their values are interned): decoded
	// states would keep every value of a level alive.
	var level []byte
	var why string
	// visit checks u against its view's states and says whether it is
	// new and to be explored.
	visit := func(u State) (bool, error) {
		sp.Encode(enc, u)
		if _, ok := seen[string(enc)]; ok {
			return false, nil
		}
		seen[string(enc)] = struct{}{}
		id, err := sp.viewHash(u)
		if err != nil {
			return false, err
		}
		var h maphash.Hash
		h.SetSeed(seed)
		in := keep == nil || keep(u)
		h.WriteByte(boolByte(in))
		for i := range sp.M.Invariants {
			ok, err := sp.M.Holds(&sp.M.Invariants[i], u.Vals)
			if err != nil {
				return false, err
			}
			h.WriteByte(boolByte(ok))
		}
		sig := h.Sum64()
		c := classes[id]
		switch {
		case c == nil:
			classes[id] = &class{state: sig}
		case c.state != sig && why == "":
			why = "the invariants or the constraint"
		}
		return in, nil
	}
	for _, s := range sp.Init() {
		if ok, err := visit(s); err != nil {
			return "", err
		} else if ok {
			level = append(level, enc...)
		}
	}
	if err := sp.Err(); err != nil {
		return "", err
	}
	n := 0
	for len(level) > 0 && why == "" {
		var next []byte
		for i := 0; i < len(level); i += w {
			if n++; n&1023 == 0 && ctx.Err() != nil {
				return "", ctx.Err()
			}
			s := sp.Decode(level[i : i+w])
			views = views[:0]
			var err error
			sp.Next(s, func(_ Label, t State) {
				if err != nil {
					return
				}
				var id [2]uint64
				if id, err = sp.viewHash(t); err != nil {
					return
				}
				views = append(views, id)
				var ok bool
				if ok, err = visit(t); ok {
					next = append(next, enc...)
				}
			})
			if err == nil {
				err = sp.Err()
			}
			if err != nil {
				return "", err
			}
			slices.SortFunc(views, func(a, b [2]uint64) int {
				if c := cmp.Compare(a[0], b[0]); c != 0 {
					return c
				}
				return cmp.Compare(a[1], b[1])
			})
			var h maphash.Hash
			h.SetSeed(seed)
			for _, v := range views {
				var b [16]byte
				binary.LittleEndian.PutUint64(b[:], v[0])
				binary.LittleEndian.PutUint64(b[8:], v[1])
				h.Write(b[:])
			}
			sig := h.Sum64() | 1
			id, err := sp.viewHash(s)
			if err != nil {
				return "", err
			}
			c := classes[id]
			switch {
			case c.steps == 0:
				c.steps = sig
			case c.steps != sig && why == "":
				why = fmt.Sprintf("their successors (the views of the %d successors of one)", len(views))
			}
		}
		level = next
	}
	return why, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
