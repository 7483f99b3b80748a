package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A TLC cache holds TLC's figures per model from an earlier run of this
// program (TLC takes a quarter of an hour on the suite where the
// interpreter takes minutes): a tab-separated table with a header naming
// at least model, tlc_distinct, tlc_generated, tlc_depth, tlc_exit and
// seconds. A model found there is not run again; one missing is run and
// appended. The table says which TLC figures came from the cache.
type tlcCache struct {
	path string
	rows map[string]Observed
}

var cacheColumns = []string{"model", "tlc_distinct", "tlc_generated", "tlc_depth", "tlc_exit", "seconds"}

// readCache reads the cache at path; a missing file is an empty cache.
func readCache(path string) (*tlcCache, error) {
	c := &tlcCache{path: path, rows: map[string]Observed{}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	col := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), "\t")
		if line == 1 {
			for i, h := range fields {
				col[h] = i
			}
			for _, want := range cacheColumns {
				if _, ok := col[want]; !ok {
					return nil, fmt.Errorf("%s:1: no column %q (want %s)", path, want, strings.Join(cacheColumns, ", "))
				}
			}
			continue
		}
		get := func(name string) (string, error) {
			i := col[name]
			if i >= len(fields) {
				return "", fmt.Errorf("%s:%d: no %s", path, line, name)
			}
			return fields[i], nil
		}
		var vals [6]string
		for i, name := range cacheColumns {
			v, err := get(name)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		nums := make([]int64, 4)
		for i, s := range vals[1:5] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s %q is not a number", path, line, cacheColumns[i+1], s)
			}
			nums[i] = n
		}
		secs, err := strconv.ParseFloat(vals[5], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: seconds %q is not a number", path, line, vals[5])
		}
		verdict := "ok"
		if nums[3] != 0 {
			verdict = "violation"
		}
		c.rows[vals[0]] = Observed{Ran: true, Exit: int(nums[3]), Seconds: secs,
			Counts: &Counts{Verdict: verdict, Distinct: nums[0], Generated: nums[1], Depth: nums[2]}}
	}
	return c, sc.Err()
}

// lookup is the cached run of model (none from a nil cache).
func (c *tlcCache) lookup(model string) (Observed, bool) {
	if c == nil {
		return Observed{}, false
	}
	o, ok := c.rows[model]
	return o, ok
}

// add appends a model's TLC run to the cache file (a run that gave no
// counts is not kept).
func (c *tlcCache) add(model string, o Observed) error {
	if o.Counts == nil {
		return nil
	}
	c.rows[model] = o
	_, err := os.Stat(c.path)
	fresh := os.IsNotExist(err)
	f, err := os.OpenFile(c.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if fresh {
		fmt.Fprintln(f, strings.Join(cacheColumns, "\t"))
	}
	_, err = fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%d\t%.1f\n", model, o.Counts.Distinct, o.Counts.Generated, o.Counts.Depth, o.Exit, o.Seconds)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
