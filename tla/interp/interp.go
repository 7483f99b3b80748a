// Package interp offers any TLA+ spec the front end reads (tla/syntax,
// compiled by tla/eval) through the seam of package tlaspec, so that the
// engine explores it and the tools above it (reports, trace replay, the
// explorer) read its states, with no Go mirror written by hand.
//
// A state is its variables' values; the engine stores it as one 32-bit
// number per variable, the value's number in an interning table (see
// intern.go): the encoding is lossless, so two different states never
// share a stored form, whatever the fingerprint does after.
package interp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unsafe"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// State is a state: one value per variable, in VARIABLES order. ids,
// when set, are the values' numbers in the interning table where known
// (eval.NoID elsewhere): all of a decoded state's; a successor's start
// as its parent's for the values that are the parent's, and Encode fills
// in the others, for the invariants' memo (Violated). changed, set on a
// successor of a decoded state only, marks the variables whose values
// are not the parent's (bit i%64 of word i/64).
type State struct {
	Vals    []eval.Value
	ids     []uint32
	changed []uint64
	// w, in the engine's successor slot (NextInPlace), is that worker's
	// walker: the callback NextLabelled calls, made once.
	w *walker
}

// StateOf is the state with these values, in VARIABLES order.
func StateOf(vals []eval.Value) State { return State{Vals: vals} }

// Label is a transition: an action of Next and its parameters' values.
type Label struct {
	Act  int
	Args []eval.Value
}

// Spec is a compiled model offered through tlaspec.Spec.
type Spec struct {
	M  *eval.Model
	in *interner
	// memo remembers the invariants' conjuncts of one variable found to
	// hold for a value, by its number in in (see eval.Memo).
	memo  *eval.Memo
	props []tlaspec.Property[State]
	bufs  sync.Pool
	// err is the first evaluation error met while exploring; stop is
	// called then, to end the search (the engine's Next cannot fail).
	err  atomic.Pointer[error]
	stop atomic.Pointer[func()]
	// symMemo remembers the values' images under the SYMMETRY's
	// permutations (see Canonical), made once.
	symOnce sync.Once
	symMemo *permMemo
}

// New wraps a compiled model.
func New(m *eval.Model) *Spec {
	sp := &Spec{M: m, in: newInterner(), memo: m.NewMemo()}
	sp.bufs.New = func() any { b := make([]byte, 0, 256); return &b }
	for i := range m.Invariants {
		p := &m.Invariants[i]
		sp.props = append(sp.props, tlaspec.Property[State]{
			Name: p.Name, Kind: tlaspec.Invariant,
			Text:  orElse(meaning(m.Docs[p.Name]), "the invariant "+p.Name+" of "+m.Module),
			Holds: func(s State) bool { return sp.holds(p, s) },
		})
	}
	if m.Liveness != nil {
		p := m.Liveness
		sp.props = append(sp.props, tlaspec.Property[State]{
			Name: p.Name, Kind: tlaspec.Eventually,
			Text: orElse(meaning(m.Docs[p.Name]), "every fair behaviour of "+m.Module+" reaches a state where "+p.Name+"'s predicate holds"),
			Goal: func(s State) bool { return sp.holds(p, s) },
		})
	}
	return sp
}

// meaning is a property's meaning as the spec's comment on its
// definition says it, for a page to teach the property by: the comment's
// first sentence, without its full stop, its first word in lower case
// when it is an ordinary capitalised word ("No RM has committed." gives
// "no RM has committed"; "FIFO: ..." stays).
func meaning(doc string) string {
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(strings.TrimSpace(doc), ".")
	word, _, _ := strings.Cut(doc, " ")
	if r := []rune(word); len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
		doc = string(unicode.ToLower(r[0])) + doc[len(string(r[0])):]
	}
	return doc
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Load reads the spec at path (and the modules it extends or instantiates
// from its folder and the folders of path), compiles it at the cfg's
// constants and checks its assumptions.
func Load(path string, lib []string, cfg *eval.Config) (*Spec, error) {
	l := &syntax.Loader{Path: lib}
	ast, err := l.Load(path)
	if err != nil {
		return nil, err
	}
	m, err := eval.Compile(ast, cfg)
	if err != nil {
		return nil, err
	}
	if err := m.CheckAssumptions(); err != nil {
		return nil, err
	}
	return New(m), nil
}

// OnError sets what to call when an evaluation error ends the search.
func (sp *Spec) OnError(stop func()) { sp.stop.Store(&stop) }

// Err is the first evaluation error met while exploring, if any.
func (sp *Spec) Err() error {
	if e := sp.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (sp *Spec) fail(err error) {
	if sp.err.CompareAndSwap(nil, &err) {
		if stop := sp.stop.Load(); stop != nil {
			(*stop)()
		}
	}
}

func (sp *Spec) holds(p *eval.Pred, s State) bool {
	ok, err := sp.M.Holds(p, s.Vals)
	if err != nil {
		sp.fail(err)
		return true
	}
	return ok
}

// Violated is the invariants' check in one call (engine.Options.Violated),
// nil when there are more than 64 invariants.
//
// A successor of a decoded state (one with a parent) is checked with
// eval.Model.ViolatedSince: its parent came from the engine's store, and
// the engine checks every state it stores against the invariants open
// then, and drops a violated invariant from open before it explores the
// violating state's successors; so each invariant of open held in the
// parent, and a conjunct that reads only variables the step left as they
// were holds again. A conjunct of one variable is also skipped when the
// memo knows it holds for that variable's value (by its number, which
// Encode, called by the engine before, recorded in the state).
func (sp *Spec) Violated() func(State, uint64) uint64 {
	if len(sp.M.Invariants) > 64 {
		return nil
	}
	return func(s State, open uint64) uint64 {
		var bad uint64
		var err error
		if s.changed != nil {
			// A successor of a state the engine stored, so checked: what
			// it left unchanged still satisfies what it satisfied.
			bad, err = sp.M.ViolatedChanged(s.Vals, s.changed, s.ids, sp.memo, open)
		} else {
			bad, err = sp.M.Violated(s.Vals, open)
		}
		if err != nil {
			sp.fail(err)
			return 0
		}
		return bad
	}
}

// Init is the initial states (those the cfg's constraints allow are
// explored; see Constraint).
func (sp *Spec) Init() []State {
	var out []State
	if err := sp.M.Init(func(s []eval.Value) { out = append(out, State{Vals: s}) }); err != nil {
		sp.fail(err)
	}
	return out
}

// Next emits every successor of s.
func (sp *Spec) Next(s State, emit func(Label, State)) {
	if sp.err.Load() != nil {
		return
	}
	err := sp.M.NextLabelled(s.Vals, func(act int, args []eval.Value, next []eval.Value) {
		var t State
		t.Vals, t.ids = stateSlices(len(next))
		copy(t.Vals, next)
		if s.ids != nil {
			t.changed = make([]uint64, words(len(next)))
		}
		since(&t, s)
		emit(Label{Act: act, Args: args}, t)
	})
	if err != nil {
		sp.fail(err)
	}
}

// words is the length of a changed bitset for n variables.
func words(n int) int { return (n + 63) / 64 }

// since fills in t's numbers and changed bits from its parent s: a
// value that is the parent's (an UNCHANGED variable, or one its action
// left alone) has the parent's number; the others are not known yet
// (Encode finds them). Without the parent's numbers (a state not
// decoded) nothing is known and t.changed is left nil.
func since(t *State, s State) {
	ids := t.ids
	if s.ids == nil {
		for i := range ids {
			ids[i] = eval.NoID
		}
		t.changed = nil
		return
	}
	clear(t.changed)
	for i, v := range t.Vals {
		if v == s.Vals[i] {
			ids[i] = s.ids[i]
		} else {
			ids[i] = eval.NoID
			t.changed[i/64] |= 1 << (i % 64)
		}
	}
}

// NextInPlace is Next for the engine (engine.InPlace): each successor
// is built in *t, its values the evaluator's buffer (valid until emit
// returns: the engine copies what it keeps with Keep) and its numbers
// *t's own, so that a successor costs no allocation.
func (sp *Spec) NextInPlace(s State, t *State, emit func(Label)) {
	if sp.err.Load() != nil {
		return
	}
	w := t.w
	if w == nil || w.sp != sp {
		w = &walker{t: t, sp: sp}
		w.fn = w.step
		t.w = w
	}
	w.emit, w.parent = emit, s
	err := sp.M.NextLabelled(s.Vals, w.fn)
	w.emit, w.parent = nil, State{}
	if err != nil {
		sp.fail(err)
	}
}

// walker is a worker's successor slot and the callback that fills it.
type walker struct {
	sp     *Spec
	t      *State
	emit   func(Label)
	parent State
	fn     func(act int, args []eval.Value, next []eval.Value)
	// changed is the slot's changed bitset, kept while t.changed is nil.
	changed []uint64
	// known caches the numbers of compound values this worker interned,
	// by their address: eval hands back the same sequence for the same
	// Append or EXCEPT of the same (shared) value, so a successor's new
	// value is often one met before, and its number costs no encoding.
	known [knownSlots]known
}

// knownSlots is the size of a walker's cache of numbers by address.
const (
	knownBits  = 12
	knownSlots = 1 << knownBits
)

type known struct {
	p  unsafe.Pointer
	id uint32
}

// addr is the address of v when it is a compound value (held by
// pointer, so that the same address is the same value), nil otherwise.
func addr(v eval.Value) unsafe.Pointer {
	switch x := v.(type) {
	case *eval.Seq:
		return unsafe.Pointer(x)
	case *eval.Rcd:
		return unsafe.Pointer(x)
	case *eval.Fcn:
		return unsafe.Pointer(x)
	case *eval.Set:
		return unsafe.Pointer(x)
	}
	return nil
}

// id is sp.in.id(v) through the cache.
func (w *walker) id(v eval.Value, buf []byte) (uint32, []byte) {
	p := addr(v)
	if p == nil {
		return w.sp.in.id(v, buf)
	}
	e := &w.known[(uint64(uintptr(p))>>4*0x9E3779B97F4A7C15)>>(64-knownBits)]
	if e.p == p {
		return e.id, buf
	}
	id, buf := w.sp.in.id(v, buf)
	e.p, e.id = p, id
	return id, buf
}

func (w *walker) step(act int, args []eval.Value, next []eval.Value) {
	t := w.t
	n := len(next)
	if cap(t.ids) < n {
		_, t.ids = stateSlices(n)
	}
	if cap(w.changed) < words(n) {
		w.changed = make([]uint64, words(n))
	}
	t.Vals, t.ids, t.changed = next, t.ids[:n], w.changed[:words(n)]
	since(t, w.parent)
	w.emit(Label{Act: act, Args: args})
}

// EncodeFrom is Encode(dst, *s) (engine.InPlace), through the worker's
// cache of numbers when *s is its slot.
func (sp *Spec) EncodeFrom(dst []byte, s *State) {
	if s.w == nil || s.w.sp != sp {
		sp.Encode(dst, *s)
		return
	}
	sp.encode(dst, *s, s.w)
}

// Keep copies the successor in *src (NextInPlace's, whose values are the
// evaluator's buffer) to *dst, in *dst's own storage when it has room
// (engine.Keeper).
func (sp *Spec) Keep(dst, src *State) {
	n := len(src.Vals)
	if cap(dst.Vals) < n || cap(dst.ids) < n {
		dst.Vals, dst.ids = stateSlices(n)
	}
	dst.Vals, dst.ids = dst.Vals[:n], dst.ids[:n]
	copy(dst.Vals, src.Vals)
	if src.ids != nil {
		copy(dst.ids, src.ids)
	} else {
		dst.ids = nil
	}
	if src.changed == nil {
		dst.changed = nil
		return
	}
	if cap(dst.changed) < len(src.changed) {
		dst.changed = make([]uint64, len(src.changed))
	}
	dst.changed = dst.changed[:len(src.changed)]
	copy(dst.changed, src.changed)
}

// Constraint is the conjunction of the cfg's CONSTRAINTs (nil for none):
// a state violating it is counted but not explored, as TLC does.
func (sp *Spec) Constraint() func(State) bool {
	if len(sp.M.Constraints) == 0 {
		return nil
	}
	return func(s State) bool {
		for i := range sp.M.Constraints {
			if !sp.holds(&sp.M.Constraints[i], s) {
				return false
			}
		}
		return true
	}
}

// ActionConstraint is the conjunction of the cfg's ACTION_CONSTRAINTs
// (nil for none), a predicate of a step: a successor reached by a step
// violating it is counted but not explored from that step, as TLC does
// (Tool.isInActions).
func (sp *Spec) ActionConstraint() func(from, to State) bool {
	if len(sp.M.ActionConstraints) == 0 {
		return nil
	}
	return func(s, t State) bool {
		for i := range sp.M.ActionConstraints {
			ok, err := sp.M.HoldsStep(&sp.M.ActionConstraints[i], s.Vals, t.Vals)
			if err != nil {
				sp.fail(err)
				return true
			}
			if !ok {
				return false
			}
		}
		return true
	}
}

// Width is 4 bytes per variable (one byte for a spec without variables,
// whose only state is the empty one: the engine needs a width).
func (sp *Spec) Width() int { return max(1, 4*len(sp.M.Variables)) }

// Encode writes each variable's value number.
func (sp *Spec) Encode(dst []byte, s State) { sp.encode(dst, s, nil) }

// encode is Encode, through w's cache of numbers when w is not nil.
func (sp *Spec) encode(dst []byte, s State, w *walker) {
	if len(s.Vals) == 0 {
		dst[0] = 0
		return
	}
	var bp *[]byte
	for i, v := range s.Vals {
		id := eval.NoID
		if s.ids != nil {
			id = s.ids[i]
		}
		if id == eval.NoID {
			if bp == nil {
				bp = sp.bufs.Get().(*[]byte)
			}
			if w != nil {
				id, *bp = w.id(v, *bp)
			} else {
				id, *bp = sp.in.id(v, *bp)
			}
			if s.ids != nil {
				// Kept for the invariants' memo (Violated).
				s.ids[i] = id
			}
		}
		binary.LittleEndian.PutUint32(dst[4*i:], id)
	}
	if bp != nil {
		sp.bufs.Put(bp)
	}
}

// Decode reads the values back.
func (sp *Spec) Decode(src []byte) State {
	var s State
	sp.DecodeInto(&s, src)
	return s
}

// DecodeInto is Decode into *dst's storage when it has room
// (engine.Decoder): a successor NextInPlace builds refers to none of its
// parent's.
func (sp *Spec) DecodeInto(dst *State, src []byte) {
	n := len(sp.M.Variables)
	if cap(dst.Vals) < n || cap(dst.ids) < n {
		dst.Vals, dst.ids = stateSlices(n)
	}
	dst.Vals, dst.ids, dst.changed = dst.Vals[:n], dst.ids[:n], nil
	for i := range n {
		id := binary.LittleEndian.Uint32(src[4*i:])
		dst.ids[i] = id
		dst.Vals[i] = sp.in.value(id)
	}
}

// stateBlock is a decoded state's values and numbers, allocated together
// (a state is decoded for each state explored).
type stateBlock[V, I any] struct {
	v V
	i I
}

func stateIn[V, I any](n int) ([]eval.Value, []uint32) {
	b := new(stateBlock[V, I])
	return unsafe.Slice((*eval.Value)(unsafe.Pointer(&b.v)), n), unsafe.Slice((*uint32)(unsafe.Pointer(&b.i)), n)
}

// stateSlices returns n values and n numbers, in one allocation for up
// to 32 variables.
func stateSlices(n int) ([]eval.Value, []uint32) {
	switch {
	case n <= 4:
		return stateIn[[4]eval.Value, [4]uint32](n)
	case n <= 8:
		return stateIn[[8]eval.Value, [8]uint32](n)
	case n <= 16:
		return stateIn[[16]eval.Value, [16]uint32](n)
	case n <= 32:
		return stateIn[[32]eval.Value, [32]uint32](n)
	}
	return make([]eval.Value, n), make([]uint32, n)
}

// Values is the number of distinct values interned so far.
func (sp *Spec) Values() int { return sp.in.size() }

// Module is the spec's module name.
func (sp *Spec) Module() string { return sp.M.Module }

// Variables are the spec's variables, in VARIABLES order.
func (sp *Spec) Variables() []string { return sp.M.Variables }

// Vars is s as tlavalue values.
func (sp *Spec) Vars(s State) tlavalue.State {
	out := make(tlavalue.State, len(s.Vals))
	for i, v := range s.Vals {
		out[i] = tlavalue.Var{Name: sp.M.Variables[i], Value: eval.ToTLA(v)}
	}
	return out
}

// FromVars is the state with these values.
func (sp *Spec) FromVars(vs tlavalue.State) (State, error) {
	s := State{Vals: make([]eval.Value, len(sp.M.Variables))}
	for _, x := range vs {
		i := slices.Index(sp.M.Variables, x.Name)
		if i < 0 {
			return State{}, fmt.Errorf("%s has no variable %s", sp.M.Module, x.Name)
		}
		s.Vals[i] = eval.FromTLA(x.Value)
	}
	for i, v := range s.Vals {
		if v == nil {
			return State{}, fmt.Errorf("no value for the variable %s", sp.M.Variables[i])
		}
	}
	return s, nil
}

// Action is l's action name.
func (sp *Spec) Action(l Label) string { return sp.M.Actions[l.Act].Name }

// Label is l as TLC would name it, with its values.
func (sp *Spec) Label(l Label) string { return sp.M.Label(l.Act, l.Args) }

// Properties are the cfg's properties.
func (sp *Spec) Properties() []tlaspec.Property[State] { return sp.props }

// Labels are the transitions taken from s (an interpreted spec cannot
// list the disabled ones without enumerating every parameter's domain,
// which may not be finite).
func (sp *Spec) Labels(s State) []Label {
	var out []Label
	sp.Next(s, func(l Label, _ State) {
		for _, o := range out {
			if o.Act == l.Act && argsEqual(o.Args, l.Args) {
				return
			}
		}
		out = append(out, l)
	})
	return out
}

func argsEqual(a, b []eval.Value) bool {
	return slices.EqualFunc(a, b, eval.Equal)
}

// Disabled says why l cannot be taken from s ("" when it can).
func (sp *Spec) Disabled(s State, l Label) string {
	enabled := false
	err := sp.M.ActionNext(l.Act, s.Vals, func(args []eval.Value, _ []eval.Value) {
		if argsEqual(args, l.Args) {
			enabled = true
		}
	})
	if err != nil {
		return "evaluating it fails: " + err.Error()
	}
	if enabled {
		return ""
	}
	a := sp.M.Actions[l.Act]
	return fmt.Sprintf("%s is not enabled (defined at %s:%d:%d)", sp.Label(l), a.File, a.Pos.Line, a.Pos.Col)
}

// Canonical is the cfg's symmetry as the engine takes it (nil for none):
// the state with the smallest encoding among its permutations. A state
// is its variables' value numbers, and a permutation of a value is
// remembered by number, so that each value is permuted once for each
// permutation, not once for each state it is part of.
func (sp *Spec) Canonical() func(dst, src []byte) {
	if len(sp.M.Symmetry) == 0 {
		return nil
	}
	w := sp.Width()
	// One memo for the spec: the engine's search and the graph of the
	// step properties after it permute the same values.
	sp.symOnce.Do(func() {
		sp.symMemo = &permMemo{}
		for i := range sp.symMemo.shards {
			sp.symMemo.shards[i].m = map[uint64]uint32{}
		}
	})
	memo := sp.symMemo
	return func(dst, src []byte) {
		copy(dst, src)
		if len(sp.M.Variables) == 0 {
			return
		}
		tmp := make([]byte, w)
		for pi, p := range sp.M.Symmetry {
			for i := 0; i < w; i += 4 {
				id := binary.LittleEndian.Uint32(src[i:])
				binary.LittleEndian.PutUint32(tmp[i:], memo.permuted(sp, pi, p, id))
			}
			if string(tmp) < string(dst) {
				copy(dst, tmp)
			}
		}
	}
}

// permMemo remembers the number of each value's image under each
// permutation of the symmetry, by permutation and value number.
type permMemo struct {
	shards [64]struct {
		mu sync.RWMutex
		m  map[uint64]uint32
		_  [40]byte
	}
}

func (pm *permMemo) permuted(sp *Spec, pi int, p map[eval.ModelVal]eval.ModelVal, id uint32) uint32 {
	key := uint64(pi)<<32 | uint64(id)
	sh := &pm.shards[(uint64(id)^uint64(pi)*0x9e3779b9)&63]
	sh.mu.RLock()
	pid, ok := sh.m[key]
	sh.mu.RUnlock()
	if ok {
		return pid
	}
	bp := sp.bufs.Get().(*[]byte)
	pid, buf := sp.in.id(eval.Permute(sp.in.value(id), p), *bp)
	*bp = buf
	sp.bufs.Put(bp)
	sh.mu.Lock()
	sh.m[key] = pid
	sh.mu.Unlock()
	return pid
}

// ActionNames are the actions of Next, in its order: with ParseLabel,
// what a trace's rejection needs to say why the transition an event
// names is not enabled (tracecheck.LabelReaderOf), since Labels lists
// only the enabled ones.
func (sp *Spec) ActionNames() []string {
	out := make([]string, len(sp.M.Actions))
	for i, a := range sp.M.Actions {
		out[i] = a.Name
	}
	return out
}

// ParseLabel reads a label as Label prints it ("Consume(va)").
func (sp *Spec) ParseLabel(text string) (Label, error) {
	name, rest, _ := strings.Cut(text, "(")
	for i, a := range sp.M.Actions {
		if a.Name != name {
			continue
		}
		if rest == "" && len(a.Params) == 0 {
			return Label{Act: i}, nil
		}
		if rest == "" {
			continue
		}
		v, err := tlavalue.Parse("<<" + strings.TrimSuffix(rest, ")") + ">>")
		if err != nil {
			return Label{}, err
		}
		args := make([]eval.Value, 0, v.Len())
		for _, e := range v.Elems() {
			args = append(args, eval.FromTLA(e))
		}
		if len(args) == len(a.Params) {
			return Label{Act: i, Args: args}, nil
		}
	}
	return Label{}, errors.New("no action " + text)
}

var (
	_ tlaspec.Spec[State, Label]   = (*Spec)(nil)
	_ engine.InPlace[State, Label] = (*Spec)(nil)
	_ engine.Keeper[State]         = (*Spec)(nil)
	_ engine.Decoder[State]        = (*Spec)(nil)
)
