package interp

import (
	"testing"

	"github.com/resumecontract/resumecheck/tla/eval"
)

// TestInternSmall: the cached numbers of Booleans and small integers are
// the table's, distinct from each other and from the values around them
// (an integer past the cache, a string, a model value).
func TestInternSmall(t *testing.T) {
	in := newInterner()
	vals := []eval.Value{eval.Bool(false), eval.Bool(true), eval.Int(0), eval.Int(1), eval.Int(smallInts - 1),
		eval.Int(smallInts), eval.Int(-1), eval.Str("1"), eval.ModelVal("TRUE")}
	seen := map[uint32]eval.Value{}
	for round := range 2 {
		for _, v := range vals {
			id, _ := in.id(v, nil)
			table, _ := in.intern(v, nil)
			if id != table {
				t.Fatalf("round %d: %s is %d, the table says %d", round, eval.String(v), id, table)
			}
			if w, ok := seen[id]; ok && !eval.Equal(v, w) {
				t.Fatalf("%s and %s share the number %d", eval.String(v), eval.String(w), id)
			}
			seen[id] = v
			if !eval.Equal(in.value(id), v) {
				t.Fatalf("value(%d) = %s, want %s", id, eval.String(in.value(id)), eval.String(v))
			}
		}
	}
	if len(seen) != len(vals) {
		t.Fatalf("%d numbers for %d values", len(seen), len(vals))
	}
	// A cache that answered for the wrong slot would be caught.
	in.small[smallSlot(eval.Int(1))].Store(in.small[smallSlot(eval.Int(0))].Load())
	id, _ := in.id(eval.Int(1), nil)
	if table, _ := in.intern(eval.Int(1), nil); id == table {
		t.Fatal("a corrupted cache went unnoticed")
	}
}
