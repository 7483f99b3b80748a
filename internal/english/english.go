// Package english writes counts with their nouns in the right number:
// "1 run", "2 runs", never "1 runs".
package english

import "strconv"

// Count returns n and the noun, with an s after it unless n is 1: Count(1,
// "run") is "1 run", Count(3, "run") "3 runs". For other plurals use
// Forms.
func Count(n int, noun string) string {
	return Forms(n, noun, noun+"s")
}

// Forms returns n and one or many: Forms(2, "process", "processes").
func Forms(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}

// Noun returns one when n is 1, many otherwise, for counts written
// apart from their noun ("k of n runs").
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
