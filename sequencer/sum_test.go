package sequencer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sumAsWritten is the checksum as the stores have always computed it:
// the sums on disk are these, so Sum must not change a bit of them.
func sumAsWritten(run string, f Fact) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s|%s/%d/%d/%d|", len(run), run, f.Kind, f.K1, f.K2, f.K3)
	h.Write(f.Body)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// TestSumAsWritten: Sum and CheckSum agree with the stored formula on
// random runs, keys and bodies (long runs, negative keys, empty bodies
// included), and CheckSum refuses any other sum.
func TestSumAsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 28))
	kinds := []string{kindRun, kindRecord, kindEvent, "", "x/y|z"}
	for i := range 2000 {
		run := strings.Repeat("r", r.IntN(200)) + fmt.Sprint(i)
		body := make([]byte, r.IntN(700))
		for j := range body {
			body[j] = byte(r.IntN(256))
		}
		f := Fact{Kind: kinds[r.IntN(len(kinds))], K1: r.Int64() - r.Int64(), K2: int64(r.IntN(12)), K3: r.Int64N(1000) - 500, Body: body}
		want := sumAsWritten(run, f)
		if got := Sum(run, f); got != want {
			t.Fatalf("run %q, fact %s: Sum %s, stored formula %s", run, f.key(), got, want)
		}
		if err := CheckSum(run, f, want); err != nil {
			t.Fatalf("run %q, fact %s: %v", run, f.key(), err)
		}
		for _, bad := range []string{strings.ToUpper(want), want[:31], want + "0", "", want[1:] + want[:1]} {
			if bad == want {
				continue
			}
			if err := CheckSum(run, f, bad); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("run %q, fact %s, sum %q: %v, want ErrCorrupt", run, f.key(), bad, err)
			}
		}
	}
}
