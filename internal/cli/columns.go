package cli

import (
	"io"
	"strings"
	"unicode/utf8"
)

// columns are the widths of a fixed-width table of the oozie command
// (its String.format("%-41s%-13s...") layouts). Oozie pads each value to
// its width and nothing more, so that a value as wide as its column or
// wider (a long user or application name, an id of a long system id) runs
// into the next one; row keeps Oozie's widths but always leaves at least
// one space between two columns.
type columns []int

// row writes one line of the table: every value but the last padded to
// its width and followed by a space when it fills it; the last padded to
// its width as Oozie does.
func (c columns) row(w io.Writer, vals ...string) {
	var b strings.Builder
	for i, v := range vals {
		b.WriteString(v)
		width := 0
		if i < len(c) {
			width = c[i]
		}
		n := utf8.RuneCountInString(v)
		if n < width {
			b.WriteString(strings.Repeat(" ", width-n))
		} else if i < len(vals)-1 {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
