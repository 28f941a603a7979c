package sqlstore

import (
	"reflect"
	"testing"
)

func TestRebind(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"VALUES (?,?,?)", "VALUES ($1,$2,$3)"},
	}
	for _, c := range cases {
		if got := Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	in := "-- comment\nCREATE TABLE a (x INT);\n\nCREATE INDEX i\n  ON a (x);\nSELECT 1"
	want := []string{"CREATE TABLE a (x INT);", "CREATE INDEX i\n  ON a (x);", "SELECT 1"}
	if got := splitStatements(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("splitStatements = %q, want %q", got, want)
	}
}
