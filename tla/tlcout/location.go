package tlcout

import (
	"fmt"
	"regexp"
	"strconv"
)

// Location is a range of a module's text, as TLC and SANY report it.
// Lines and columns count from 1; zero means TLC gave no position.
type Location struct {
	Module              string
	BeginLine, BeginCol int
	EndLine, EndCol     int
}

// String prints the location as TLC does: "line 7, col 8 to line 7, col 28
// of module Counter". A location without a position prints as "In module
// M", the zero Location as "".
func (l Location) String() string {
	switch {
	case l.BeginLine == 0 && l.Module == "":
		return ""
	case l.BeginLine == 0:
		return "In module " + l.Module
	}
	return fmt.Sprintf("line %d, col %d to line %d, col %d of module %s", l.BeginLine, l.BeginCol, l.EndLine, l.EndCol, l.Module)
}

// locationRE matches both of TLC's spellings of a location: "line 7, col 8
// to line 7, col 28 of module Counter" (Location.toString) and "Line 6,
// column 9 to line 6, column 21 in Eval" (nested expression traces).
var locationRE = regexp.MustCompile(`[Ll]ine (\d+), col(?:umn)? (\d+) to line (\d+), col(?:umn)? (\d+) (?:of module|in) ([A-Za-z0-9_]+)`)

// ParseLocation reads a location that makes up all of s.
func ParseLocation(s string) (Location, bool) {
	m := locationRE.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 || m[1] != len(s) {
		return Location{}, false
	}
	return locationAt(s, m), true
}

// FindLocations returns every location mentioned in s, in order.
func FindLocations(s string) []Location {
	var ls []Location
	for _, m := range locationRE.FindAllStringSubmatchIndex(s, -1) {
		ls = append(ls, locationAt(s, m))
	}
	return ls
}

func locationAt(s string, m []int) Location {
	n := func(i int) int {
		v, err := strconv.Atoi(s[m[2*i]:m[2*i+1]])
		if err != nil {
			return 0 // only on numbers too long for int
		}
		return v
	}
	return Location{Module: s[m[10]:m[11]], BeginLine: n(1), BeginCol: n(2), EndLine: n(3), EndCol: n(4)}
}
