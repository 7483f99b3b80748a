package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText prints the matrix as an aligned table followed by the claims.
func (r *Result) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Fault matrix at %s bounds (%s engine); each property checked on its own.\n", r.Bounds, r.Engine)
	sb.WriteString("A cell is \"violated (k)\" with its shortest counterexample of k states, or \"holds (n)\" over n distinct states.\n\n")
	header := append([]string{"model"}, columnNames()...)
	rows := [][]string{header}
	for _, rr := range r.Rows {
		line := []string{rr.Name}
		for _, c := range Columns {
			line = append(line, rr.Cells[c.Name].String())
		}
		rows = append(rows, line)
	}
	widths := make([]int, len(header))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range rows {
		for i, cell := range row {
			if i > 0 {
				sb.WriteString("  ")
			}
			fmt.Fprintf(&sb, "%-*s", widths[i], cell)
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\nClaims:\n")
	for _, c := range r.Claims {
		mark := "checked"
		if !c.Holds {
			mark = "FAILED "
		}
		fmt.Fprintf(&sb, "  [%s] %s", mark, c.Statement)
		if len(c.Witnesses) > 0 {
			fmt.Fprintf(&sb, " (%s)", strings.Join(c.Witnesses, ", "))
		}
		sb.WriteString("\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteMarkdown prints the matrix and the claims as Markdown.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var sb strings.Builder
	writeMarkdownTable(&sb, r)
	sb.WriteString("\n")
	for _, c := range r.Claims {
		mark := "checked"
		if !c.Holds {
			mark = "**FAILED**"
		}
		fmt.Fprintf(&sb, "- %s: %s", mark, c.Statement)
		if len(c.Witnesses) > 0 {
			fmt.Fprintf(&sb, " (%s)", strings.Join(c.Witnesses, ", "))
		}
		sb.WriteString(".\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeMarkdownTable(sb *strings.Builder, r *Result) {
	sb.WriteString("| model |")
	for _, c := range Columns {
		fmt.Fprintf(sb, " %s |", c.Name)
	}
	sb.WriteString("\n|---|")
	sb.WriteString(strings.Repeat("---|", len(Columns)))
	sb.WriteString("\n")
	for _, rr := range r.Rows {
		fmt.Fprintf(sb, "| %s |", rr.Name)
		for _, c := range Columns {
			cell := rr.Cells[c.Name]
			if cell.Violated {
				fmt.Fprintf(sb, " **violated (%d)** |", cell.Length)
			} else {
				fmt.Fprintf(sb, " holds (%d) |", cell.Distinct)
			}
		}
		sb.WriteString("\n")
	}
}

// WriteJSON prints the matrix (cells and claims, without timings) as JSON;
// it is also the golden form the tests compare.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
