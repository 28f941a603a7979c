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
	cases := []struct {
		name, in string
		want     []string
	}{
		{"plain", "-- comment\nCREATE TABLE a (x INT);\n\nCREATE INDEX i\n  ON a (x);\nSELECT 1",
			[]string{"CREATE TABLE a (x INT);", "CREATE INDEX i\n  ON a (x);", "SELECT 1"}},
		{"dollar-quoted body", "CREATE FUNCTION f() RETURNS VOID LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\n\n  -- kept\nEND\n$$;\nSELECT 2;",
			[]string{"CREATE FUNCTION f() RETURNS VOID LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\n\n  -- kept\nEND\n$$;", "SELECT 2;"}},
		{"one-line body", "CREATE FUNCTION g() RETURNS INT LANGUAGE sql AS $$ SELECT 1; $$;\nSELECT 3;",
			[]string{"CREATE FUNCTION g() RETURNS INT LANGUAGE sql AS $$ SELECT 1; $$;", "SELECT 3;"}},
	}
	for _, c := range cases {
		if got := splitStatements(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: splitStatements = %q, want %q", c.name, got, c.want)
		}
	}
}
