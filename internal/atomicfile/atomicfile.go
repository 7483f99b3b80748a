// Package atomicfile writes files through a temporary name in the
// destination's folder, renamed into place once complete, so that a reader
// sees the old file or the whole new one, never a part.
//
// A temporary is named ".NAME.PID-RANDOM.tmp" (NAME the destination's
// base name, PID the writer's process). It is removed on every exit path
// of the writer: an error (Abort), a return (Commit renames it away), and
// SIGINT, SIGTERM or SIGHUP (internal/clibase's Run calls
// RemoveTemporaries before the signal ends the process). Only SIGKILL,
// or a crash of the machine, can leave one behind: the next Create of the
// same destination removes the temporaries of writers that no longer run
// (see sweep); by hand, rm DIR/.NAME.*.tmp while no writer runs.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

var (
	// mu guards live and is held across every rename, so that a signal's
	// RemoveTemporaries never runs between the renames of one Commit.
	mu   sync.Mutex
	live = map[string]bool{}
)

// File is a destination being written under a temporary name.
type File struct {
	*os.File
	path string
	done bool
}

// Create creates a temporary file beside path, with mode 0644, first removing the temporaries of
// path that writers killed earlier left.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	sweep(dir, base)
	mu.Lock()
	defer mu.Unlock()
	f, err := os.CreateTemp(dir, "."+base+"."+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return nil, err
	}
	live[f.Name()] = true
	// CreateTemp makes the file private; the result is as readable as the
	// files the tools write beside it.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		delete(live, f.Name())
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Path is the destination.
func (f *File) Path() string { return f.path }

// Abort closes and removes the temporary; after Commit it does nothing, so
// that a writer may defer it.
func (f *File) Abort() {
	mu.Lock()
	defer mu.Unlock()
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.Name())
	delete(live, f.Name())
}

// Commit closes the file and renames it into place.
func (f *File) Commit() error { return Commit(f) }

// Commit closes the files and renames them into place, in the order given,
// holding an exclusive lock on each folder (see lockDir) across the renames
// so that two processes committing the same files do not interleave: after
// both, every destination holds the file of the same one. A reader that
// reads while the renames run may still see a new file beside an old one;
// callers whose files must agree say how a reader detects a mixed set
// (trace2tla: TracePair). On any error every file is aborted; a file
// already renamed stays.
func Commit(files ...*File) error {
	var err error
	for _, f := range files {
		if f.done {
			err = errors.Join(err, fmt.Errorf("atomicfile: %s committed or aborted already", f.path))
		} else if cerr := f.File.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	if err != nil {
		abort(files)
		return err
	}
	var unlocks []func()
	defer func() {
		for _, u := range unlocks {
			u()
		}
	}()
	seen := map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f.path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		u, err := lockDir(dir)
		if err != nil {
			abort(files)
			return err
		}
		unlocks = append(unlocks, u)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, f := range files {
		if err == nil {
			err = os.Rename(f.Name(), f.path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		f.done = true
		delete(live, f.Name())
	}
	return err
}

func abort(files []*File) {
	for _, f := range files {
		f.Abort()
	}
}

// WriteFile writes path through a temporary: what write writes, renamed
// into place when write and the close succeed, removed otherwise.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// RemoveTemporaries removes every temporary this process is writing and
// keeps any Commit from starting after it: it is for a process about to
// end on a signal, which calls it and never returns to the writers.
func RemoveTemporaries() {
	mu.Lock() // never released: the process is ending
	for name := range live {
		os.Remove(name)
	}
}

// sweep removes dir's temporaries of base whose writer no longer runs
// (killed by SIGKILL: a process that ends otherwise removes its own). A
// temporary whose process number was given to another process since stays
// until that process ends.
func sweep(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + "."
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !strings.HasSuffix(rest, ".tmp") {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || running(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}
