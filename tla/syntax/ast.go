package syntax

import "fmt"

// Pos is a position in a source file: 1-based line and column (columns
// count runes, as SANY's do).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Node is any node of the tree.
type Node interface {
	// At is where the node starts.
	At() Pos
}

// Expr is an expression: a value, a state predicate, an action or a
// temporal formula (TLA+ makes no difference in its syntax).
type Expr interface {
	Node
	expr()
}

// Unit is one top-level item of a module.
type Unit interface {
	Node
	unit()
}

// Module is one parsed module.
type Module struct {
	Name string
	// File is the path it was read from ("" for a standard module built
	// in, or a string given to ParseModule).
	File    string
	Pos     Pos
	Extends []Ident
	Units   []Unit
	// End is where its "====" line is.
	End Pos
}

// ---------------------------------------------------------------------------
// Units

// Constants is a CONSTANT(S) declaration.
type Constants struct {
	Pos   Pos
	Decls []OpDecl
}

// OpDecl declares a name with its arity: "N" (Arity 0), "F(_, _)"
// (Arity 2), or an infix/prefix/postfix operator "_ + _" (Arity 2,
// Name "+").
type OpDecl struct {
	Pos   Pos
	Name  string
	Arity int
}

// Variables is a VARIABLE(S) declaration.
type Variables struct {
	Pos   Pos
	Names []Ident
}

// Recursive is a RECURSIVE declaration of operators defined later.
type Recursive struct {
	Pos   Pos
	Decls []OpDecl
}

// OpDef is an operator definition "Name(params) == Body", an infix
// definition "a (+) b == Body" (Name "(+)", two Params), or a function
// definition "f[x \in S] == Body" (FuncBounds set, no Params).
type OpDef struct {
	Pos    Pos
	Name   string
	Params []OpDecl
	// FuncBounds are a function definition's bounds: f[x \in S, y \in T].
	FuncBounds []Bound
	Body       Expr
	Local      bool
	// Doc is the comment just above the definition, its markers and
	// line breaks removed ("" for none): what the spec says the
	// definition means (a page teaches a property by it).
	Doc string
}

// Instance is "INSTANCE M WITH a <- e, ..." (Name "") or
// "I == INSTANCE M ..." (Name "I", with Params for a parametrised
// instance "I(x) == INSTANCE M ...").
type Instance struct {
	Pos    Pos
	Name   string
	Params []OpDecl
	Module string
	Subst  []Subst
	Local  bool
}

// Subst is one "name <- expr" of an INSTANCE.
type Subst struct {
	Pos  Pos
	Name string
	Expr Expr
}

// Assume is an ASSUME (or ASSUMPTION, AXIOM) with its optional name.
type Assume struct {
	Pos  Pos
	Name string
	Expr Expr
}

// Theorem is a THEOREM (or LEMMA, PROPOSITION, COROLLARY) with its
// optional name; a model checker ignores it. A proof, if any, is skipped.
type Theorem struct {
	Pos  Pos
	Name string
	Expr Expr
}

func (u *Constants) At() Pos { return u.Pos }
func (u *Variables) At() Pos { return u.Pos }
func (u *Recursive) At() Pos { return u.Pos }
func (u *OpDef) At() Pos     { return u.Pos }
func (u *Instance) At() Pos  { return u.Pos }
func (u *Assume) At() Pos    { return u.Pos }
func (u *Theorem) At() Pos   { return u.Pos }

func (*Constants) unit() {}
func (*Variables) unit() {}
func (*Recursive) unit() {}
func (*OpDef) unit()     {}
func (*Instance) unit()  {}
func (*Assume) unit()    {}
func (*Theorem) unit()   {}

// ---------------------------------------------------------------------------
// Expressions

// Ident is a name: a constant, variable, defined operator without
// arguments, bound variable or parameter.
type Ident struct {
	Pos  Pos
	Name string
}

// Num is a natural number literal (decimal, or \b \o \h forms converted).
type Num struct {
	Pos Pos
	// Text is the literal as written; Val its value when it fits in an
	// int64 (Big is then false).
	Text string
	Val  int64
	Big  bool
}

// Str is a string literal, its escapes resolved.
type Str struct {
	Pos Pos
	Val string
}

// Bool is TRUE or FALSE.
type Bool struct {
	Pos Pos
	Val bool
}

// OpApp applies an operator to arguments: a user-defined operator
// "F(a, b)", an infix, prefix or postfix operator "a + b", "-a", "x'",
// or a standard-module operator. Op is the operator's name as the
// module defining it spells it: "F", "+", "\\in", "=>", "-." (prefix
// minus), "'" (prime), "\\cup" (for \union too: synonyms are reduced to
// one spelling, see Canon). Prefix is the instance path of a qualified
// name "I!J!F" as ["I", "J"] (empty for an unqualified one).
// PrefixArgs, when not nil, holds the arguments of each Prefix element
// of a parametrised instance "I(x)!F" ([[x]]; nil for an element
// without them).
type OpApp struct {
	Pos        Pos
	Prefix     []string
	PrefixArgs [][]Expr
	Op         string
	Args       []Expr
}

// Junction is a conjunction or disjunction of Items: a bulleted list
// (SANY's alignment rule decides where it ends) or an infix chain of one
// operator ("a /\ b /\ c"), flattened.
type Junction struct {
	Pos   Pos
	Or    bool
	Items []Expr
	// Bullets is true for a bulleted list.
	Bullets bool
}

// Bound is "x \in S", "x, y \in S" or "<<x, y>> \in S" (Tuple). Set is
// nil for an unbounded quantifier "\E x : P".
type Bound struct {
	Pos   Pos
	Names []Ident
	Tuple bool
	Set   Expr
}

// Quant is \A or \E over Bounds.
type Quant struct {
	Pos    Pos
	Forall bool
	Bounds []Bound
	Body   Expr
}

// TemporalQuant is \AA or \EE (never evaluated by a model checker).
type TemporalQuant struct {
	Pos    Pos
	Forall bool
	Names  []Ident
	Body   Expr
}

// Choose is CHOOSE x \in S : P (Bound.Set nil for CHOOSE x : P).
type Choose struct {
	Pos   Pos
	Bound Bound
	Body  Expr
}

// SetEnum is {a, b, c}.
type SetEnum struct {
	Pos   Pos
	Elems []Expr
}

// SetFilter is {x \in S : P}.
type SetFilter struct {
	Pos   Pos
	Bound Bound
	Pred  Expr
}

// SetMap is {e : x \in S, y \in T}.
type SetMap struct {
	Pos    Pos
	Elem   Expr
	Bounds []Bound
}

// Tuple is <<a, b, c>>.
type Tuple struct {
	Pos   Pos
	Elems []Expr
}

// FuncDef is [x \in S, y \in T |-> e].
type FuncDef struct {
	Pos    Pos
	Bounds []Bound
	Body   Expr
}

// FuncApp is f[a] or f[a, b] (the latter applies f to <<a, b>>).
type FuncApp struct {
	Pos  Pos
	Fn   Expr
	Args []Expr
}

// FuncSet is [S -> T].
type FuncSet struct {
	Pos      Pos
	Dom, Rng Expr
}

// Field is one "name |-> e" of a record or "name : S" of a record set.
type Field struct {
	Pos  Pos
	Name string
	Expr Expr
}

// Record is [a |-> e, b |-> f].
type Record struct {
	Pos    Pos
	Fields []Field
}

// RecordSet is [a : S, b : T].
type RecordSet struct {
	Pos    Pos
	Fields []Field
}

// Dot is r.name.
type Dot struct {
	Pos   Pos
	Rec   Expr
	Field string
}

// Except is [f EXCEPT ![a].b = e, ...].
type Except struct {
	Pos     Pos
	Fn      Expr
	Updates []ExceptUpdate
}

// ExceptUpdate is one "!path = e"; inside Value, At (@) is the old value
// at Path.
type ExceptUpdate struct {
	Pos   Pos
	Path  []ExceptKey
	Value Expr
}

// ExceptKey is one step of an EXCEPT path: ".name" (Field set) or
// "[a]" / "[a, b]" (Index set; several are a tuple).
type ExceptKey struct {
	Field string
	Index []Expr
}

// At is @ inside an EXCEPT value.
type At struct {
	Pos Pos
}

// If is IF c THEN a ELSE b.
type If struct {
	Pos              Pos
	Cond, Then, Else Expr
}

// Case is CASE p1 -> e1 [] p2 -> e2 [] OTHER -> e.
type Case struct {
	Pos   Pos
	Arms  []CaseArm
	Other Expr // nil when there is no OTHER
}

// CaseArm is one "p -> e" of a CASE.
type CaseArm struct {
	Pos       Pos
	Cond, Val Expr
}

// Let is LET defs IN body.
type Let struct {
	Pos  Pos
	Defs []Unit // *OpDef, *Recursive or *Instance
	Body Expr
}

// Lambda is LAMBDA x, y : e (an operator argument).
type Lambda struct {
	Pos    Pos
	Params []Ident
	Body   Expr
}

// Unchanged is UNCHANGED e.
type Unchanged struct {
	Pos Pos
	X   Expr
}

// Prime is e'.
type Prime struct {
	Pos Pos
	X   Expr
}

// Enabled is ENABLED e.
type Enabled struct {
	Pos Pos
	X   Expr
}

// BoxAction is [A]_v; AngleAction is <<A>>_v.
type BoxAction struct {
	Pos       Pos
	Action, V Expr
}

// AngleAction is <<A>>_v.
type AngleAction struct {
	Pos       Pos
	Action, V Expr
}

// Fairness is WF_v(A) or SF_v(A).
type Fairness struct {
	Pos       Pos
	Strong    bool
	V, Action Expr
}

// Always is []F, Eventually <>F; "F ~> G" is an OpApp "~>".
type Always struct {
	Pos Pos
	X   Expr
}

// Eventually is <>F.
type Eventually struct {
	Pos Pos
	X   Expr
}

// Label is "name :: e" (a label, as PlusCal-free specs rarely use).
type Label struct {
	Pos  Pos
	Name string
	X    Expr
}

// SubExpr is a subexpression reference "Op!2!1" or "Thm!:": the
// definition, assumption or theorem Name (of the instance path Prefix,
// applied to Args), then the selectors that pick a part of its body, in
// order, as written: a number, ":", "<<", ">>", "@", a label's name, or
// "(" for arguments given to a selector (ArgsAt holds them).
type SubExpr struct {
	Pos    Pos
	Prefix []string
	Name   string
	Args   []Expr
	Path   []string
	ArgsAt [][]Expr
}

// Unsupported stands for a construct the parser recognises but the
// front end does not support (a proof, a real number). It is kept so that a spec that never evaluates it still loads;
// the evaluator refuses it with Name and Pos.
type Unsupported struct {
	Pos  Pos
	Name string
}

func (e *Ident) At() Pos         { return e.Pos }
func (e *Num) At() Pos           { return e.Pos }
func (e *Str) At() Pos           { return e.Pos }
func (e *Bool) At() Pos          { return e.Pos }
func (e *OpApp) At() Pos         { return e.Pos }
func (e *Junction) At() Pos      { return e.Pos }
func (e *Quant) At() Pos         { return e.Pos }
func (e *TemporalQuant) At() Pos { return e.Pos }
func (e *Choose) At() Pos        { return e.Pos }
func (e *SetEnum) At() Pos       { return e.Pos }
func (e *SetFilter) At() Pos     { return e.Pos }
func (e *SetMap) At() Pos        { return e.Pos }
func (e *Tuple) At() Pos         { return e.Pos }
func (e *FuncDef) At() Pos       { return e.Pos }
func (e *FuncApp) At() Pos       { return e.Pos }
func (e *FuncSet) At() Pos       { return e.Pos }
func (e *Record) At() Pos        { return e.Pos }
func (e *RecordSet) At() Pos     { return e.Pos }
func (e *Dot) At() Pos           { return e.Pos }
func (e *Except) At() Pos        { return e.Pos }
func (e *At) At() Pos            { return e.Pos }
func (e *If) At() Pos            { return e.Pos }
func (e *Case) At() Pos          { return e.Pos }
func (e *Let) At() Pos           { return e.Pos }
func (e *Lambda) At() Pos        { return e.Pos }
func (e *Unchanged) At() Pos     { return e.Pos }
func (e *Prime) At() Pos         { return e.Pos }
func (e *Enabled) At() Pos       { return e.Pos }
func (e *BoxAction) At() Pos     { return e.Pos }
func (e *AngleAction) At() Pos   { return e.Pos }
func (e *Fairness) At() Pos      { return e.Pos }
func (e *Always) At() Pos        { return e.Pos }
func (e *Eventually) At() Pos    { return e.Pos }
func (e *Label) At() Pos         { return e.Pos }
func (e *Unsupported) At() Pos   { return e.Pos }
func (e *SubExpr) At() Pos       { return e.Pos }

func (*Ident) expr()         {}
func (*Num) expr()           {}
func (*Str) expr()           {}
func (*Bool) expr()          {}
func (*OpApp) expr()         {}
func (*Junction) expr()      {}
func (*Quant) expr()         {}
func (*TemporalQuant) expr() {}
func (*Choose) expr()        {}
func (*SetEnum) expr()       {}
func (*SetFilter) expr()     {}
func (*SetMap) expr()        {}
func (*Tuple) expr()         {}
func (*FuncDef) expr()       {}
func (*FuncApp) expr()       {}
func (*FuncSet) expr()       {}
func (*Record) expr()        {}
func (*RecordSet) expr()     {}
func (*Dot) expr()           {}
func (*Except) expr()        {}
func (*At) expr()            {}
func (*If) expr()            {}
func (*Case) expr()          {}
func (*Let) expr()           {}
func (*Lambda) expr()        {}
func (*Unchanged) expr()     {}
func (*Prime) expr()         {}
func (*Enabled) expr()       {}
func (*BoxAction) expr()     {}
func (*AngleAction) expr()   {}
func (*Fairness) expr()      {}
func (*Always) expr()        {}
func (*Eventually) expr()    {}
func (*Label) expr()         {}
func (*Unsupported) expr()   {}
func (*SubExpr) expr()       {}
