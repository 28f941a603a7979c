package coordengine

import (
	"fmt"
	"strings"
)

// lineDiff formats the changes from a to b as unified-diff hunks (three
// lines of context, "@@ -l,n +l,n @@" headers, no file header lines), the
// form Oozie's coordinator update reports its changes in. Equal texts give
// "".
func lineDiff(a, b string) string {
	x, y := splitLines(a), splitLines(b)
	ops := diffOps(x, y)
	const ctx = 3
	var out strings.Builder
	// Group the edits into hunks: edits closer than 2*ctx equal lines
	// share one.
	i := 0
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		for start < i && ops[start].kind != ' ' {
			start++
		}
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			run := 0
			for end+run < len(ops) && ops[end+run].kind == ' ' {
				run++
			}
			if end+run < len(ops) && run <= 2*ctx {
				end += run
				continue
			}
			end = min(end+ctx, len(ops))
			break
		}
		// Line numbers of the hunk's first line in a and b.
		aStart, bStart, aLen, bLen := 0, 0, 0, 0
		for _, o := range ops[:start] {
			if o.kind != '+' {
				aStart++
			}
			if o.kind != '-' {
				bStart++
			}
		}
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
			if o.noEOL {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange writes a hunk's line range: "l" for one line, "l,n" otherwise,
// and the line before the hunk for an empty range.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type diffLine struct {
	text  string
	noEOL bool // the text's last line, without a newline after it
}

func splitLines(s string) []diffLine {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, "\n")
	last := len(parts) - 1
	noEOL := parts[last] != ""
	if !noEOL {
		parts = parts[:last]
	}
	out := make([]diffLine, len(parts))
	for i, p := range parts {
		out[i] = diffLine{text: p}
	}
	if noEOL {
		out[len(out)-1].noEOL = true
	}
	return out
}

type diffOp struct {
	kind  byte // ' ', '-' or '+'
	text  string
	noEOL bool
}

// maxDiffCost bounds the work of diffOps: beyond it the texts are reported
// as wholly replaced rather than compared line by line.
const maxDiffCost = 1 << 24

// diffOps lists a shortest edit script from x to y (longest common
// subsequence by dynamic programming, after the common prefix and suffix
// are set aside).
func diffOps(x, y []diffLine) []diffOp {
	var head, tail []diffOp
	for len(x) > 0 && len(y) > 0 && x[0] == y[0] {
		head = append(head, diffOp{' ', x[0].text, x[0].noEOL})
		x, y = x[1:], y[1:]
	}
	for len(x) > 0 && len(y) > 0 && x[len(x)-1] == y[len(y)-1] {
		l := x[len(x)-1]
		tail = append([]diffOp{{' ', l.text, l.noEOL}}, tail...)
		x, y = x[:len(x)-1], y[:len(y)-1]
	}
	var mid []diffOp
	if (len(x)+1)*(len(y)+1) > maxDiffCost {
		for _, l := range x {
			mid = append(mid, diffOp{'-', l.text, l.noEOL})
		}
		for _, l := range y {
			mid = append(mid, diffOp{'+', l.text, l.noEOL})
		}
	} else {
		// lcs[i][j] is the LCS length of x[i:] and y[j:].
		w := len(y) + 1
		lcs := make([]int32, (len(x)+1)*w)
		for i := len(x) - 1; i >= 0; i-- {
			for j := len(y) - 1; j >= 0; j-- {
				if x[i] == y[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(x) || j < len(y) {
			switch {
			case i < len(x) && j < len(y) && x[i] == y[j]:
				mid = append(mid, diffOp{' ', x[i].text, x[i].noEOL})
				i, j = i+1, j+1
			case i < len(x) && (j == len(y) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				// Deletions before insertions, as diff tools print them.
				mid = append(mid, diffOp{'-', x[i].text, x[i].noEOL})
				i++
			default:
				mid = append(mid, diffOp{'+', y[j].text, y[j].noEOL})
				j++
			}
		}
	}
	return append(append(head, mid...), tail...)
}
