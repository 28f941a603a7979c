package sqlstore

import (
	"math"
	"testing"
)

// TestPurgeCursor checks that the purge scan's cursor reads back as
// written and sorts as the positions it encodes, which the purge
// service's check that a cursor advances relies on.
func TestPurgeCursor(t *testing.T) {
	positions := []struct {
		key int64
		id  string
	}{
		{math.MinInt64, ""},
		{-5, "b"},
		{0, "a"},
		{0, "a/b"},
		{1, "0000001-x-W"},
		{1700000000000, "0000001-x-W"},
		{1700000000000, "0000002-x-W"},
		{1700000000001, "0000000-x-W"},
		{math.MaxInt64, "z"},
	}
	prev := ""
	for _, p := range positions {
		c := scanCursor(p.key, p.id)
		if c <= prev {
			t.Errorf("cursor %q of (%d, %q) does not sort after %q", c, p.key, p.id, prev)
		}
		prev = c
		key, id, err := parseCursor(c)
		if err != nil || key != p.key || id != p.id {
			t.Errorf("parseCursor(%q) = %d, %q, %v; want %d, %q", c, key, id, err, p.key, p.id)
		}
	}
	for _, bad := range []string{"x", "12/a", "abcdefghijklmnopqrst/a", "00000000000000000001"} {
		if _, _, err := parseCursor(bad); err == nil {
			t.Errorf("parseCursor(%q): no error", bad)
		}
	}
	if key, id, err := parseCursor(""); err != nil || key != math.MinInt64 || id != "" {
		t.Errorf(`parseCursor("") = %d, %q, %v`, key, id, err)
	}
}
