package eval

// The Bags module's operators the interpreter provides (a bag is a
// function from its elements to their positive counts), each as Bags.tla
// defines it; the others (the infix (+) and (-), BagUnion, SubBag,
// BagOfAll, \sqsubseteq) are not defined, so a spec that uses one gets
// "not defined" with its position. This file sorts after builtin.go: its
// init adds to the map that one makes.
func init() {
	bag := func(b Value) (elems, counts []Value) {
		elems, counts, ok := fcnParts(b)
		if !ok {
			failf("%s is not a bag (a function)", String(b))
		}
		return elems, counts
	}
	builtins["EmptyBag"] = builtin{f0: func() Value { return NewFcn(nil, nil) }}
	builtins["SetToBag"] = builtin{f1: func(s Value) Value {
		elems := Enumerate(s)
		ones := make([]Value, len(elems))
		for i := range ones {
			ones[i] = Int(1)
		}
		return NewFcn(elems, ones)
	}}
	builtins["BagToSet"] = builtin{f1: func(b Value) Value {
		elems, _ := bag(b)
		return NewSet(elems)
	}}
	builtins["BagIn"] = builtin{f2: func(e, b Value) Value {
		elems, _ := bag(b)
		for _, x := range elems {
			if Equal(x, e) {
				return Bool(true)
			}
		}
		return Bool(false)
	}}
	builtins["CopiesIn"] = builtin{f2: func(e, b Value) Value {
		elems, counts := bag(b)
		for i, x := range elems {
			if Equal(x, e) {
				return counts[i]
			}
		}
		return Int(0)
	}}
	builtins["BagCardinality"] = builtin{f1: func(b Value) Value {
		_, counts := bag(b)
		var n Int
		for _, c := range counts {
			k, ok := c.(Int)
			if !ok {
				failf("BagCardinality of a function whose values are not numbers")
			}
			n += k
		}
		return n
	}}
}
