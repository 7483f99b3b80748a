package syntax

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoad(t *testing.T) {
	l := &Loader{Path: []string{"testdata/lib"}}
	spec, err := l.Load("testdata/load/Root.tla")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Root.Name != "Root" {
		t.Errorf("root %s", spec.Root.Name)
	}
	// B is reached through a LET inside A; Lib through the Path folder.
	if diff := cmp.Diff([]string{"B", "A", "Lib", "Root"}, spec.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if len(spec.Modules) != 4 || spec.Modules["Lib"].File != filepath.Join("testdata/lib", "Lib.tla") {
		t.Errorf("modules %v", spec.Modules)
	}
}

func TestLoadSource(t *testing.T) {
	spec, err := (&Loader{}).LoadSource("testdata/load/Src.tla", []byte("---- MODULE Src ----\nEXTENDS B, TLC\n===="))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"B", "Src"}, spec.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		{"testdata/load/Missing.tla", "testdata/load/Missing.tla:2:9: module Nowhere not found (searched testdata/load)"},
		{"testdata/load/Wrong.tla", "testdata/load/Wrong.tla:1:1: module NotWrong is in file Wrong.tla; the names must match"},
		{"testdata/cycle/C1.tla", "module C1 depends on itself"},
	}
	for _, tt := range tests {
		_, err := (&Loader{}).Load(tt.file)
		if err == nil {
			t.Errorf("%s: loaded, want error %q", tt.file, tt.want)
			continue
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("%s: error %T, want *Error", tt.file, err)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.file, err, tt.want)
		}
	}
}

// A module may extend one written after it in its file (SANY reads them
// all); a later module no one uses is never parsed, so its errors do not
// matter.
func TestLoadLaterModules(t *testing.T) {
	src := "---- MODULE Src ----\nEXTENDS Common\nVARIABLE x\n====\n\\* notes\n" +
		"---------- MODULE Common ----------\nEXTENDS Helper\nC == 1\n=============\n" +
		"---- MODULE Unused ----\nthis is not TLA+ (\n====\n" +
		"---- MODULE Helper ----\nH == 2\n====\n"
	spec, err := (&Loader{}).LoadSource("testdata/load/Src.tla", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Helper", "Common", "Src"}, spec.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if p := spec.Modules["Helper"].Pos; p != (Pos{13, 1}) {
		t.Errorf("Helper at %v, want 13:1", p)
	}
	// Used, the broken module fails the load with its position.
	bad := strings.Replace(src, "EXTENDS Helper", "EXTENDS Helper, Unused", 1)
	if _, err := (&Loader{}).LoadSource("testdata/load/Src.tla", []byte(bad)); err == nil || !strings.Contains(err.Error(), "Src.tla:11:") {
		t.Errorf("loading with Unused used: %v, want an error at line 11", err)
	}
}
