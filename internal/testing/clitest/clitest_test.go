package clitest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUpdate checks what -update writes: a section the case has is
// rewritten in place, a missing one added after the last section before
// it in the Result (or at the end), an empty one not added, files and
// the comment kept.
func TestUpdate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want string
		got      []Section
	}{{
		name: "one command",
		in: `# comment
-- args --
hello
-- exit --
1
-- hello.txt --
file
`,
		got: []Section{{"exit", "0\n"}, {"stdout", "hi\n"}, {"stderr", ""}},
		want: `# comment
-- args --
hello
-- exit --
0
-- stdout --
hi
-- hello.txt --
file
`,
	}, {
		name: "nothing before",
		in: `-- args --
hello
`,
		got: []Section{{"exit", "0\n"}, {"stdout", ""}, {"stderr", "oops\n"}},
		want: `-- args --
hello
-- exit --
0
-- stderr --
oops
`,
	}, {
		name: "a session",
		in: `-- 1 args --
a
-- 2 args --
b
`,
		got: []Section{
			{"1 args", "a\n"}, {"1 stdout", "A\n"}, {"1 exit", "0\n"},
			{"2 args", "b\n"}, {"2 stdout", ""}, {"2 exit", "1\n"},
		},
		want: `-- 1 args --
a
-- 1 stdout --
A
-- 1 exit --
0
-- 2 args --
b
-- 2 exit --
1
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "case.txtar")
			if err := os.WriteFile(file, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			defer func(old bool) { *update = old }(*update)
			*update = true
			Run(t, file, func(t *testing.T, c *Case) Result { return Result{Got: tc.got} })
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(data)); diff != "" {
				t.Errorf("after -update (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteFiles checks that the case's files, not its sections, land
// in $WORK with $WORK and $ROOT expanded, and bin/ files executable.
func TestWriteFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "case.txtar")
	in := `-- args --
$WORK
-- bin/tool --
#!/bin/sh
cd $ROOT
-- sub/dir/conf --
$WORK/x
`
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, file, func(t *testing.T, c *Case) Result {
		c.WriteFiles(t, "args")
		if _, err := os.Stat(filepath.Join(c.Work, "args")); !os.IsNotExist(err) {
			t.Errorf("the args section was written as a file (stat: %v)", err)
		}
		tool, err := os.Stat(filepath.Join(c.Work, "bin/tool"))
		if err != nil {
			t.Fatal(err)
		}
		if tool.Mode().Perm()&0o100 == 0 {
			t.Errorf("bin/tool has mode %v, want executable", tool.Mode())
		}
		for path, want := range map[string]string{
			"bin/tool":     "#!/bin/sh\ncd " + c.Root + "\n",
			"sub/dir/conf": c.Work + "/x\n",
		} {
			data, err := os.ReadFile(filepath.Join(c.Work, path))
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != want {
				t.Errorf("%s = %q, want %q", path, data, want)
			}
		}
		return Result{}
	})
}
