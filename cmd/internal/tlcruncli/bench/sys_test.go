package bench

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
)

// TestFileMapped reads an smaps file: only mappings backed by a file
// count (not the heap, anonymous memory or the stack), their Size whole
// and their Rss as resident.
func TestFileMapped(t *testing.T) {
	smaps := `00400000-00a00000 r-xp 00000000 08:01 1234 /usr/bin/tlcrun
Size:               6144 kB
Rss:                5000 kB
00a00000-00b00000 r--p 00600000 08:01 1234 /usr/bin/tlcrun
Size:               1024 kB
Rss:                 100 kB
01000000-02000000 rw-p 00000000 00:00 0 [heap]
Size:              16384 kB
Rss:               16384 kB
7f0000000000-7f0001000000 rw-p 00000000 00:00 0
Size:              16384 kB
Rss:                8192 kB
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]
Size:                132 kB
Rss:                  16 kB
`
	path := filepath.Join(t.TempDir(), "smaps")
	if err := atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, smaps)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	size, resident := fileMapped(path)
	if size != 7168<<10 || resident != 5100<<10 {
		t.Errorf("fileMapped = %d, %d; want %d, %d", size, resident, 7168<<10, 5100<<10)
	}
	if size, resident := fileMapped(filepath.Join(t.TempDir(), "none")); size != 0 || resident != 0 {
		t.Errorf("no file: %d, %d; want 0, 0", size, resident)
	}
	if HeldAtMost() < RSS() {
		t.Errorf("HeldAtMost %d below RSS %d", HeldAtMost(), RSS())
	}
}
