package xmltree

import "testing"

// position answers the same whether offsets are asked in order (the
// incremental path) or out of order, and counts columns in characters.
func TestPositionAt(t *testing.T) {
	data := []byte("ab\nçd<x/>\n\nz")
	tests := []struct {
		off       int64
		line, col int
		desc      string
	}{
		{0, 1, 1, "start"},
		{2, 1, 3, "end of line 1"},
		{3, 2, 1, "start of line 2"},
		{5, 2, 2, "after a two-byte character"},
		{6, 2, 3, "the <"},
		{10, 2, 7, "the newline of line 2"},
		{11, 3, 1, "empty line"},
		{12, 4, 1, "last line"},
		{99, 4, 2, "past the end clamps"},
		{-1, 1, 1, "negative clamps"},
	}
	inOrder := newPosition(data)
	for _, tt := range tests {
		fresh := newPosition(data)
		for _, p := range []*position{inOrder, fresh} {
			if line, col := p.at(tt.off); line != tt.line || col != tt.col {
				t.Errorf("%s: at(%d) = %d:%d, want %d:%d", tt.desc, tt.off, line, col, tt.line, tt.col)
			}
		}
	}
}
