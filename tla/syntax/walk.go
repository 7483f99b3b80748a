package syntax

// Inspect visits e and its subexpressions depth-first, the bodies of
// LET definitions and INSTANCE substitutions included. When f returns
// false the children of that node are skipped.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	in := func(xs ...Expr) {
		for _, x := range xs {
			Inspect(x, f)
		}
	}
	bounds := func(bs []Bound) {
		for _, b := range bs {
			in(b.Set)
		}
	}
	switch e := e.(type) {
	case *OpApp:
		for _, a := range e.PrefixArgs {
			in(a...)
		}
		in(e.Args...)
	case *Junction:
		in(e.Items...)
	case *Quant:
		bounds(e.Bounds)
		in(e.Body)
	case *TemporalQuant:
		in(e.Body)
	case *Choose:
		in(e.Bound.Set, e.Body)
	case *SetEnum:
		in(e.Elems...)
	case *SetFilter:
		in(e.Bound.Set, e.Pred)
	case *SetMap:
		in(e.Elem)
		bounds(e.Bounds)
	case *Tuple:
		in(e.Elems...)
	case *FuncDef:
		bounds(e.Bounds)
		in(e.Body)
	case *FuncApp:
		in(e.Fn)
		in(e.Args...)
	case *FuncSet:
		in(e.Dom, e.Rng)
	case *Record:
		for _, fl := range e.Fields {
			in(fl.Expr)
		}
	case *RecordSet:
		for _, fl := range e.Fields {
			in(fl.Expr)
		}
	case *Dot:
		in(e.Rec)
	case *Except:
		in(e.Fn)
		for _, u := range e.Updates {
			for _, k := range u.Path {
				in(k.Index...)
			}
			in(u.Value)
		}
	case *If:
		in(e.Cond, e.Then, e.Else)
	case *Case:
		for _, a := range e.Arms {
			in(a.Cond, a.Val)
		}
		in(e.Other)
	case *Let:
		for _, d := range e.Defs {
			switch d := d.(type) {
			case *OpDef:
				bounds(d.FuncBounds)
				in(d.Body)
			case *Instance:
				for _, s := range d.Subst {
					in(s.Expr)
				}
			}
		}
		in(e.Body)
	case *Lambda:
		in(e.Body)
	case *Unchanged:
		in(e.X)
	case *Prime:
		in(e.X)
	case *Enabled:
		in(e.X)
	case *BoxAction:
		in(e.Action, e.V)
	case *AngleAction:
		in(e.Action, e.V)
	case *Fairness:
		in(e.V, e.Action)
	case *Always:
		in(e.X)
	case *Eventually:
		in(e.X)
	case *Label:
		in(e.X)
	case *SubExpr:
		in(e.Args...)
		for _, a := range e.ArgsAt {
			in(a...)
		}
	}
}
