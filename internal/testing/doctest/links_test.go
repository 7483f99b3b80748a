package doctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLinks: no Markdown link of the repository leads out of it, and
// every relative link and fragment lands on something that exists.
func TestLinks(t *testing.T) {
	root := moduleRoot(t)
	var md []string
	for _, f := range repoFiles(t, root) {
		if strings.HasSuffix(f, ".md") {
			md = append(md, f)
		}
	}
	if len(md) == 0 {
		t.Fatal("no Markdown files found")
	}
	for _, err := range CheckLinks(os.DirFS(root), md) {
		t.Error(err)
	}
}

// outside are references to material outside the repository: the
// contract's brief and the folder it lived in. The repository states the
// contract itself, in docs/resume-contract.md. (Written in two pieces so
// that this file does not match itself.)
var outside = []string{"CONTRACT" + ".md", "../" + "shared", "/work/" + "shared"}

// TestNoOutsideReferences: no file of the repository (docs, Go comments,
// cfg and spec comments, test data, scripts) cites material outside it.
func TestNoOutsideReferences(t *testing.T) {
	root := moduleRoot(t)
	for _, f := range repoFiles(t, root) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue // unreadable here, or binary
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, o := range outside {
				if strings.Contains(line, o) {
					t.Errorf("%s:%d: %q points outside the repository (the contract is docs/resume-contract.md)", f, n+1, o)
				}
			}
		}
	}
}

// TestCheckLinksFinds: each kind of bad link is reported, with its line;
// the good ones are not.
func TestCheckLinksFinds(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n\n" +
			"[ok](docs/a.md) [ok](docs/a.md#a-heading) [ok](#top) [ok](https://example.org/x)\n" +
			"[out](../elsewhere/BRIEF.md)\n" +
			"[abs](/etc/passwd)\n" +
			"[missing](docs/nope.md)\n" +
			"[anchor](docs/a.md#no-such-heading)\n" +
			"![img](docs/img/missing.png)\n" +
			"[file](file:///work/x)\n" +
			"`[in code](nope.md)` and\n```\n[in a block](nope.md)\n```\n" +
			"[ref]: ../outside.md\n")},
		"docs/a.md": {Data: []byte("# A page\n\n## A heading\n\n[up](../README.md#top) [self](#a-page) [dir](../docs)\n")},
	}
	var got []string
	for _, err := range CheckLinks(fsys, []string{"README.md", "docs/a.md"}) {
		got = append(got, err.Error())
	}
	want := []string{
		"README.md:4: link ../elsewhere/BRIEF.md: the target leaves the repository",
		"README.md:5: link /etc/passwd: an absolute path leaves the repository",
		"README.md:6: link docs/nope.md: no such file or folder",
		"README.md:7: link docs/a.md#no-such-heading: docs/a.md has no heading or anchor \"no-such-heading\"",
		"README.md:8: link docs/img/missing.png: no such file or folder",
		"README.md:9: link file:///work/x: a file: link leaves the repository",
		"README.md:14: link ../outside.md: the target leaves the repository",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
}

func TestAnchors(t *testing.T) {
	src := "# The resume contract\n\n## `tlcrun check`: one cfg\n\n## Faults\n\n## Faults\n\n<a name=\"custom\"></a>\n```\n# not a heading\n```\n#nospace\n"
	a := Anchors([]byte(src))
	for _, id := range []string{"the-resume-contract", "tlcrun-check-one-cfg", "faults", "faults-1", "custom"} {
		if !a[id] {
			t.Errorf("no anchor %q in %v", id, a)
		}
	}
	for _, id := range []string{"not-a-heading", "nospace", "faults-2"} {
		if a[id] {
			t.Errorf("anchor %q should not exist", id)
		}
	}
}
