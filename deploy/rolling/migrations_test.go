package rolling

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// before is what a migration may not do, so that servers of the previous
// release keep running on the migrated schema during a rolling upgrade
// (docs/operations.md, "Upgrades"): their queries name the old tables and
// columns, and their INSERTs leave new columns out.
var before = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)\bDROP\s+TABLE\b`), "drops a table"},
	{regexp.MustCompile(`(?i)\bDROP\s+COLUMN\b`), "drops a column"},
	{regexp.MustCompile(`(?i)\bRENAME\b`), "renames a table or column"},
	{regexp.MustCompile(`(?i)\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b`), "changes a column's type"},
	{regexp.MustCompile(`(?i)\bALTER\s+COLUMN\s+\S+\s+SET\s+NOT\s+NULL\b`), "makes a column NOT NULL"},
}

// historical are the migrations released before the rule was written down,
// with what made them safe then.
var historical = map[string]string{
	// cluster_secrets: the shared cookie secret, read only at start; the
	// release notes said to copy a secret file to every server.
	"postgres/migrations/0009_drop_cluster_secrets.sql": "drops a table",
	"sqlite/migrations/0007_drop_cluster_secrets.sql":   "drops a table",
}

// notNullNoDefault is an added NOT NULL column without a default, which
// the old servers' INSERTs would fail on.
var notNullNoDefault = regexp.MustCompile(`(?is)\bADD\s+(COLUMN\s+)?[^,;]*\bNOT\s+NULL\b[^,;]*`)

// TestMigrationsAdditive: every migration of both stores only adds (tables,
// columns with a default or nullable, indexes; dropping an index is fine).
func TestMigrationsAdditive(t *testing.T) {
	files, err := filepath.Glob("../../internal/store/*/migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d migrations, expected the stores' migration files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sql := stripComments(string(data))
		rel := strings.TrimPrefix(filepath.ToSlash(f), "../../internal/store/")
		for _, b := range before {
			if b.re.MatchString(sql) && historical[rel] != b.what {
				t.Errorf("%s %s: the servers of the previous release would fail on the migrated schema during a rolling upgrade; add instead, and remove in a later release", rel, b.what)
			}
		}
		for _, m := range notNullNoDefault.FindAllString(sql, -1) {
			if !regexp.MustCompile(`(?i)\bDEFAULT\b`).MatchString(m) {
				t.Errorf("%s adds a NOT NULL column without a default (%q): the previous release's INSERTs would fail", rel, strings.Join(strings.Fields(m), " "))
			}
		}
	}
}

// stripComments removes SQL line comments, which may well say "drop".
func stripComments(sql string) string {
	var sb strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		sb.WriteString(line)
		sb.WriteString("\n")
	}
	return sb.String()
}
