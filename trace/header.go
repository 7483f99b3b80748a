package trace

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// The header is read by the same scanner as the events, under the same
// rules: a key twice at any depth, an unknown field, a string that is not
// valid UTF-8 and a number that is not an integer are refused, with the
// line and column. (encoding/json, which read it before, takes the last
// of two equal keys, and puts U+FFFD in place of invalid UTF-8.)

// Header field sets, for the error messages.
const (
	headerFields    = "format, version, producer, constants and faults"
	producerFields  = "name and version"
	constantsFields = "NTasks, IP, Values, NoVal, MaxResumes, MaxCrashes, MaxExtraResumes, Racers and CrashWhileParked"
)

// constantNames are the header's constants in the order of the bits that
// track them.
var constantNames = []string{"NTasks", "IP", "Values", "NoVal", "MaxResumes", "MaxCrashes",
	"MaxExtraResumes", "Racers", "CrashWhileParked"}

// requiredConstants has the bits of the constants a header must give.
const requiredConstants = 1<<7 - 1

// headerPos remembers where the header's parts are, for the errors found
// after it is read (Params).
type headerPos struct {
	constants map[string]int // constant name -> column of its value
	faults    int
	producer  int
	module    int
}

// parseHeader reads the header line b.
func (d *Decoder) parseHeader(b []byte) (Header, headerPos, error) {
	s := &d.sc
	s.reset(b)
	var h Header
	pos := headerPos{constants: map[string]int{}}
	if s.peek() != '{' {
		return h, pos, errAt("", "not a JSON object: a trace is NDJSON and starts with the header {\"format\": %q, ...}", FormatName)
	}
	var seen [6]bool
	keys := []string{"format", "version", "producer", "constants", "faults", "module"}
	err := s.object("header", func(key []byte) error {
		i := -1
		for k, name := range keys {
			if string(key) == name {
				i = k
			}
		}
		switch {
		case i < 0 && !seen[0] && isEventField(key):
			return errAt("", "missing header: the first line is an event; a trace starts with {\"format\": %q, ...}", FormatName)
		case i < 0:
			return s.errAt("header", "unknown field %q (a header has %s)", key, headerFields)
		case seen[i]:
			return s.errAt("header", "field %q appears twice", key)
		}
		seen[i] = true
		switch i {
		case 0:
			// A file of another format, or of another version of this
			// one, is said to be so at once, rather than found to lack
			// this version's fields.
			v, err := s.str("header.format")
			if err == nil && string(v) != FormatName && !(string(v) == SpecFormat && oneFormat(b)) {
				err = s.errAt("header.format", "format is %q, want %q", v, FormatName)
			}
			h.Format = string(v)
			return err
		case 1:
			n, err := s.integer("header.version", 0, math.MaxInt32)
			if err == nil && n != Version && !(n == OneVersion && (h.Format == SpecFormat || !seen[0])) {
				err = s.errAt("header.version", "format version %d, this reader knows version %d", n, Version)
			}
			h.Version = int(n)
			return err
		case 2:
			s.mark()
			pos.producer = s.tok + 1
			return d.producer(&h.Producer)
		case 3:
			return d.constants(&h.Constants, pos.constants)
		case 5:
			return d.module(&h, &pos)
		}
		h.Faults = []string{}
		s.mark()
		pos.faults = s.tok + 1
		return s.array("header.faults", func(i int) error {
			v, err := s.str("")
			if err != nil {
				return under("header.faults", at(i, err))
			}
			for _, f := range h.Faults {
				if f == string(v) {
					return s.errAt("header.faults", "fault %q is listed twice", v)
				}
			}
			h.Faults = append(h.Faults, string(v))
			return nil
		})
	})
	if err != nil {
		return h, pos, err
	}
	if s.peek() != 0 {
		s.mark()
		return h, pos, s.errAt("header", "data after the header's JSON object")
	}
	if !seen[0] {
		return h, pos, errAt("", "missing header: the first line has no \"format\" field; a trace starts with {\"format\": %q, ...}", FormatName)
	}
	for i, name := range keys[1:4] {
		if !seen[i+1] {
			return h, pos, errAt("header", "missing field %q (a header has %s)", name, headerFields)
		}
	}
	if h.Faults == nil {
		h.Faults = []string{}
	}
	return h, pos, nil
}

func isEventField(key []byte) bool {
	switch string(key) {
	case "seq", "action", "params", "vars", "time":
		return true
	}
	return false
}

func (d *Decoder) producer(p *Producer) error {
	s := &d.sc
	var seen [2]bool
	err := s.object("header.producer", func(key []byte) error {
		var i int
		switch string(key) {
		case "name":
			i = 0
		case "version":
			i = 1
		default:
			return s.errAt("header.producer", "unknown field %q (a producer has %s)", key, producerFields)
		}
		if seen[i] {
			return s.errAt("header.producer", "field %q appears twice", key)
		}
		seen[i] = true
		path := "header.producer." + string(key)
		v, err := s.str(path)
		if err != nil {
			return err
		}
		if err := checkText(string(v)); err != nil {
			return s.errAt(path, "%v", err)
		}
		if i == 0 {
			p.Name = string(v)
		} else {
			p.Version = string(v)
		}
		return nil
	})
	if err == nil && !(seen[0] && seen[1]) {
		missing := "name"
		if seen[0] {
			missing = "version"
		}
		err = errAt("header.producer", "missing field %q (a producer has %s; either may be \"\")", missing, producerFields)
	}
	return err
}

func (d *Decoder) constants(c *Constants, pos map[string]int) error {
	s := &d.sc
	var seen int
	err := s.object("header.constants", func(key []byte) error {
		i := -1
		for k, name := range constantNames {
			if string(key) == name {
				i = k
			}
		}
		switch {
		case i < 0:
			return s.errAt("header.constants", "unknown constant %q (the constants are %s)", key, constantsFields)
		case seen&(1<<i) != 0:
			return s.errAt("header.constants", "constant %q appears twice", key)
		}
		seen |= 1 << i
		name := constantNames[i]
		path := "header.constants." + name
		s.mark()
		pos[name] = s.tok + 1
		integer := func(dst *int) error {
			n, err := s.integer(path, math.MinInt32, math.MaxInt32)
			*dst = int(n)
			return err
		}
		switch name {
		case "NTasks":
			return integer(&c.NTasks)
		case "IP":
			return integer(&c.IP)
		case "MaxResumes":
			return integer(&c.MaxResumes)
		case "MaxCrashes":
			return integer(&c.MaxCrashes)
		case "MaxExtraResumes":
			return integer(&c.MaxExtraResumes)
		case "Racers":
			return integer(&c.Racers)
		case "CrashWhileParked":
			v, err := s.boolean(path)
			c.CrashWhileParked = v
			return err
		case "NoVal":
			v, err := s.str(path)
			if err != nil {
				return err
			}
			if err := checkText(string(v)); err != nil {
				return s.errAt(path, "%v", err)
			}
			c.NoVal = string(v)
			return nil
		}
		c.Values = []string{}
		return s.array(path, func(i int) error {
			v, err := s.str("")
			if err == nil {
				if terr := checkText(string(v)); terr != nil {
					err = s.errAt("", "%v", terr)
				}
			}
			if err != nil {
				return under(path, at(i, err))
			}
			c.Values = append(c.Values, string(v))
			return nil
		})
	})
	if err != nil {
		return err
	}
	if missing := requiredConstants &^ seen; missing != 0 {
		for i, name := range constantNames {
			if missing&(1<<i) != 0 {
				return errAt("header.constants", "missing constant %s (the constants are %s; Racers and CrashWhileParked may be left out)", name, constantsFields)
			}
		}
	}
	return nil
}

// checkText is the rule for the header's text (the producer's name and
// version, the model values' names): valid UTF-8 without control
// characters. The names are printed in reports and written, escaped, into
// TLA+ comments; a control character in them (a newline, an escape
// sequence for the terminal, NUL) is never what a producer meant.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || (0x7f <= r && r < 0xa0) {
			return fmt.Errorf("control character %U (the header's names and versions are one line of printable text)", r)
		}
	}
	return nil
}

// headerError turns an error of Header.params about part into a field
// error placed at that part of the header.
func headerError(err error, part string, pos headerPos) error {
	msg := strings.TrimPrefix(err.Error(), ErrBadInput.Error()+": ")
	col := 0
	switch part {
	case "faults", "Faults":
		col = pos.faults
	case "producer":
		col = pos.producer
	case "module":
		col = pos.module
	default:
		col = pos.constants[part]
	}
	return &fieldError{msg: msg, col: col}
}
