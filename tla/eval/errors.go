package eval

import (
	"errors"
	"fmt"
	"sync"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// Error is an error in evaluating a spec: a type error ("1 + TRUE"), a
// function applied outside its domain, CHOOSE with nothing to choose, an
// assertion that failed. File and Pos say where, when known. TLC stops
// with such an error; so does the engine.
type Error struct {
	File string
	Pos  syntax.Pos
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Pos.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
	case e.Pos.Line > 0:
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	}
	return e.Msg
}

// UnsupportedError is a construct outside the fragment this front end
// evaluates, refused with its name and position rather than evaluated
// approximately.
type UnsupportedError struct {
	File      string
	Pos       syntax.Pos
	Construct string
}

func (e *UnsupportedError) Error() string {
	if e.Pos.Line == 0 {
		// A construct of the cfg: File says where ("MC.cfg:12").
		return fmt.Sprintf("%s: not supported: %s", e.File, e.Construct)
	}
	return fmt.Sprintf("%s:%d:%d: not supported: %s", e.File, e.Pos.Line, e.Pos.Col, e.Construct)
}

// ErrUnsupported matches every *UnsupportedError (errors.Is).
var ErrUnsupported = errors.New("eval: construct not supported")

func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// failf aborts the evaluation in progress with an *Error. Evaluation runs
// as compiled closures that return values, not (value, error) pairs: a
// failure unwinds by panic to the nearest Catch, which every entry point
// of this package sets (the way encoding/json and text/template unwind).
func failf(format string, args ...any) {
	panic(&Error{Msg: fmt.Sprintf(format, args...)})
}

// failAt is failf with a position.
func failAt(file string, pos syntax.Pos, format string, args ...any) {
	panic(&Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Catch runs fn and returns the *Error or *UnsupportedError it raised, if
// any. Other panics are internal errors and propagate.
func Catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				err = e
			case *UnsupportedError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	fn()
	return nil
}

// sites are the positions of the operators whose failures carry no
// position of their own (the builtins): a compiled call stores its site's
// number in ctx.at before calling, one store instead of a deferred
// function, and catchIn reads it back when an error needs a place.
var (
	sitesMu sync.Mutex
	sites   = []site{{}}
)

type site struct {
	file string
	pos  syntax.Pos
}

func newSite(file string, pos syntax.Pos) int32 {
	sitesMu.Lock()
	defer sitesMu.Unlock()
	sites = append(sites, site{file, pos})
	return int32(len(sites) - 1)
}

// catchIn is Catch for an evaluation in k: an *Error raised without a
// position gets the position of the last builtin called.
func catchIn(k *ctx, fn func()) error {
	err := Catch(fn)
	if e, ok := err.(*Error); ok && e.Pos.Line == 0 && k.at > 0 {
		sitesMu.Lock()
		st := sites[k.at]
		sitesMu.Unlock()
		e.File, e.Pos = st.file, st.pos
	}
	return err
}

// locate adds a position to an *Error raised without one (by a helper
// that does not know where it was called from).
func locate(file string, pos syntax.Pos) {
	if r := recover(); r != nil {
		if e, ok := r.(*Error); ok && e.Pos.Line == 0 {
			e.File, e.Pos = file, pos
		}
		panic(r)
	}
}
