package resume

import (
	"math/rand/v2"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// TestEncodeDecode round-trips random states of one, two and five words
// through Encode and Decode, and checks Decode against decodeWords, its
// readable form (Decode copies two words at once on a little-endian
// machine).
func TestEncodeDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	for _, words := range []int{1, 2, 5} {
		sp := &Spec{words: words}
		buf := make([]byte, sp.Width())
		for range 1000 {
			var p model.Packed
			for i := range words {
				p[i] = r.Uint64()
			}
			sp.Encode(buf, p)
			if got := sp.Decode(buf); got != p {
				t.Fatalf("%d words: Decode(Encode(%x)) = %x", words, p, got)
			}
			if got := decodeWords(buf, words); got != p {
				t.Fatalf("%d words: decodeWords(Encode(%x)) = %x", words, p, got)
			}
		}
	}
	if !littleEndian {
		t.Log("a big-endian machine: Decode reads word by word")
	}
}
