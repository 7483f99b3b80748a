package syntax

import (
	"fmt"
	"strings"
)

// sexpr prints an expression as a compact S-expression, so that table
// tests can state a tree in one line: (+ a (* b c)).
func sexpr(e Expr) string {
	var b strings.Builder
	write(&b, e)
	return b.String()
}

func write(b *strings.Builder, e Expr) {
	list := func(head string, xs ...Expr) {
		b.WriteString("(" + head)
		for _, x := range xs {
			b.WriteString(" ")
			write(b, x)
		}
		b.WriteString(")")
	}
	bounds := func(bs []Bound) string {
		var parts []string
		for _, bd := range bs {
			var names []string
			for _, n := range bd.Names {
				names = append(names, n.Name)
			}
			s := strings.Join(names, ",")
			if bd.Tuple {
				s = "<<" + s + ">>"
			}
			if bd.Set != nil {
				s += "∈" + sexpr(bd.Set)
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	switch e := e.(type) {
	case nil:
		b.WriteString("nil")
	case *Ident:
		b.WriteString(e.Name)
	case *Num:
		if e.Big {
			b.WriteString("big:" + e.Text)
		} else {
			fmt.Fprint(b, e.Val)
		}
	case *Str:
		fmt.Fprintf(b, "%q", e.Val)
	case *Bool:
		fmt.Fprint(b, e.Val)
	case *OpApp:
		head := e.Op
		for i := len(e.Prefix) - 1; i >= 0; i-- {
			pre := e.Prefix[i]
			if e.PrefixArgs != nil && e.PrefixArgs[i] != nil {
				pre = sexpr(&OpApp{Op: pre, Args: e.PrefixArgs[i]})
			}
			head = pre + "!" + head
		}
		if e.Args == nil {
			b.WriteString(head)
			return
		}
		list(head, e.Args...)
	case *Junction:
		head := "and"
		if e.Or {
			head = "or"
		}
		if e.Bullets {
			head = "b" + head
		}
		list(head, e.Items...)
	case *Quant:
		head := "exists"
		if e.Forall {
			head = "forall"
		}
		list(head+" "+bounds(e.Bounds), e.Body)
	case *TemporalQuant:
		head := "EE"
		if e.Forall {
			head = "AA"
		}
		var names []string
		for _, n := range e.Names {
			names = append(names, n.Name)
		}
		list(head+" "+strings.Join(names, ","), e.Body)
	case *Choose:
		list("choose "+bounds([]Bound{e.Bound}), e.Body)
	case *SetEnum:
		list("set", e.Elems...)
	case *SetFilter:
		list("filter "+bounds([]Bound{e.Bound}), e.Pred)
	case *SetMap:
		list("map "+bounds(e.Bounds), e.Elem)
	case *Tuple:
		list("tuple", e.Elems...)
	case *FuncDef:
		list("fun "+bounds(e.Bounds), e.Body)
	case *FuncApp:
		list("app", append([]Expr{e.Fn}, e.Args...)...)
	case *FuncSet:
		list("->", e.Dom, e.Rng)
	case *Record, *RecordSet:
		var fs []Field
		head := "rec"
		if r, ok := e.(*Record); ok {
			fs = r.Fields
		} else {
			fs, head = e.(*RecordSet).Fields, "recset"
		}
		b.WriteString("(" + head)
		for _, f := range fs {
			b.WriteString(" " + f.Name + ":")
			write(b, f.Expr)
		}
		b.WriteString(")")
	case *Dot:
		list("."+e.Field, e.Rec)
	case *Except:
		b.WriteString("(except ")
		write(b, e.Fn)
		for _, u := range e.Updates {
			b.WriteString(" !")
			for _, k := range u.Path {
				if k.Field != "" {
					b.WriteString("." + k.Field)
				} else {
					list("", k.Index...)
				}
			}
			b.WriteString("=")
			write(b, u.Value)
		}
		b.WriteString(")")
	case *At:
		b.WriteString("@")
	case *If:
		list("if", e.Cond, e.Then, e.Else)
	case *Case:
		b.WriteString("(case")
		for _, a := range e.Arms {
			b.WriteString(" ")
			list("arm", a.Cond, a.Val)
		}
		if e.Other != nil {
			b.WriteString(" ")
			list("other", e.Other)
		}
		b.WriteString(")")
	case *Let:
		b.WriteString("(let")
		for _, d := range e.Defs {
			switch d := d.(type) {
			case *OpDef:
				b.WriteString(" " + d.Name + "=")
				write(b, d.Body)
			case *Instance:
				b.WriteString(" " + d.Name + "=INSTANCE " + d.Module)
			case *Recursive:
				b.WriteString(" RECURSIVE")
			}
		}
		b.WriteString(" ")
		write(b, e.Body)
		b.WriteString(")")
	case *Lambda:
		var names []string
		for _, n := range e.Params {
			names = append(names, n.Name)
		}
		list("lambda "+strings.Join(names, ","), e.Body)
	case *Unchanged:
		list("unchanged", e.X)
	case *Prime:
		list("'", e.X)
	case *Enabled:
		list("enabled", e.X)
	case *BoxAction:
		list("box", e.Action, e.V)
	case *AngleAction:
		list("angle", e.Action, e.V)
	case *Fairness:
		head := "WF"
		if e.Strong {
			head = "SF"
		}
		list(head, e.V, e.Action)
	case *Always:
		list("[]", e.X)
	case *Eventually:
		list("<>", e.X)
	case *Label:
		list("label "+e.Name, e.X)
	case *Unsupported:
		b.WriteString("unsupported:" + e.Name)
	case *SubExpr:
		list("sub "+strings.Join(append(append(e.Prefix, e.Name), e.Path...), "!"), e.Args...)
	default:
		fmt.Fprintf(b, "?%T", e)
	}
}
