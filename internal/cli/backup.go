package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gozie/gozie/internal/assembly"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/server"
)

// wantsBackup reports whether `gozie admin` was given -backup, which runs
// here on the local store instead of asking a server.
func wantsBackup(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "backup" {
			return true
		}
	}
	return false
}

// runBackup is `gozie admin -backup FILE`: an on-line backup of the
// SQLite store of a data directory, found as `gozie server` finds it
// (-data, -config, GOZIE_DATA, ~/.gozie), written to FILE (a new file)
// while a server may be running on it (docs/operations.md, "Backups").
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("admin", "-backup FILE [-data DIR] [-db DSN | -db-file FILE] [-config gozie-site.xml]", stderr)
	dest := fs.String("backup", "", "write a consistent copy of the SQLite store to FILE (a new file), while the server runs")
	data := fs.String("data", "", "data directory of the store (gozie.data.dir; default $GOZIE_DATA or ~/.gozie)")
	db := fs.String("db", "", "store DSN (gozie.db): a PostgreSQL store is refused (use pg_dump)")
	dbFile := fs.String("db-file", "", "file holding the store DSN (gozie.db.file)")
	site := fs.String("config", "", "gozie-site.xml (Hadoop configuration format)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "Error: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if *dest == "" {
		fmt.Fprintln(stderr, "Error: -backup needs the file to write")
		return exitUsage
	}
	cfg, err := server.LoadConfig(*site, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	for key, v := range map[string]string{"gozie.data.dir": *data, "gozie.db": *db, "gozie.db.file": *dbFile} {
		if v != "" {
			cfg[key] = v
		}
	}
	if *db != "" {
		cfg["gozie.db.file"] = ""
	}
	logf := func(format string, args ...any) { fmt.Fprintln(stderr, redact.Secrets(fmt.Sprintf(format, args...))) }
	dsn, err := cfg.StoreDSN(logf)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", redact.Secrets(err.Error()))
		return exitFail
	}
	src, err := assembly.Backup(context.Background(), cfg, dsn, *dest)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", redact.Secrets(err.Error()))
		return exitFail
	}
	size := int64(0)
	if fi, err := os.Stat(*dest); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stdout, "backup of %s written to %s (%d bytes)\n", src, *dest, size)
	return exitOK
}
