//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 23 point 6: a DSN given with -db shows its password to every local
// user (ps, /proc/<pid>/cmdline). The store DSN can come from a file or
// the environment instead, and a password on the command line earns a
// warning that names those, without ever printing the password.
//
// Every case ends in a start error on purpose (an unsupported scheme, or
// an address nobody can listen on, should a DSN be ignored): what matters
// is what the server said before.
func TestServerDSNSources(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dsnFile := file("dsn", "mysql://gozie:s3cret@db/gozie\n", 0o600)
	openFile := file("dsn-open", "mysql://gozie:s3cret@db/gozie", 0o644)
	noPassword := file("dsn-nopw", "mysql://gozie@db/gozie", 0o644)
	empty := file("dsn-empty", " \n", 0o600)
	big := file("dsn-big", strings.Repeat("x", 70_000), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	site := file("gozie-site.xml", `<configuration><property><name>gozie.db.file</name><value>`+dsnFile+`</value></property></configuration>`, 0o600)
	both := file("both.xml", `<configuration>
		<property><name>gozie.db</name><value>mysql://x</value></property>
		<property><name>gozie.db.file</name><value>`+dsnFile+`</value></property></configuration>`, 0o600)

	const warning = "carries a password"
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		status  int
		stderr  []string // each must appear
		not     []string // none may appear (s3cret always)
		warned  bool
		warnMsg []string // what the warning must name
	}{
		{name: "url password on the command line", args: []string{"-db", "mysql://gozie:s3cret@db/gozie"}, status: exitFail,
			stderr: []string{"unsupported DSN", "mysql://gozie:*****@db/gozie"}, warned: true,
			warnMsg: []string{"-db", "-db-file", "GOZIE_DB"}},
		{name: "keyword password on the command line", args: []string{"-db", "host=db password=s3cret dbname=gozie"}, status: exitFail,
			stderr: []string{"unsupported DSN"}, warned: true},
		{name: "query password on the command line", args: []string{"-db", "mysql://gozie@db/gozie?password=s3cret"}, status: exitFail,
			stderr: []string{"unsupported DSN"}, warned: true},
		{name: "no password on the command line", args: []string{"-db", "mysql://gozie@db/gozie"}, status: exitFail,
			stderr: []string{"unsupported DSN"}},
		{name: "from -db-file", args: []string{"-db-file", dsnFile}, status: exitFail,
			stderr: []string{"unsupported DSN", "mysql://gozie:*****@db/gozie"}},
		{name: "from GOZIE_DB", env: map[string]string{"GOZIE_DB": "mysql://gozie:s3cret@db/gozie"}, status: exitFail,
			stderr: []string{"mysql://gozie:*****@db/gozie"}},
		{name: "from GOZIE_DB_FILE", env: map[string]string{"GOZIE_DB_FILE": dsnFile}, status: exitFail,
			stderr: []string{"mysql://gozie:*****@db/gozie"}},
		{name: "from the site file", args: []string{"-config", site}, status: exitFail,
			stderr: []string{"mysql://gozie:*****@db/gozie"}},
		{name: "-db over the site's gozie.db.file", args: []string{"-config", site, "-db", "mysql://other@db/x"}, status: exitFail,
			stderr: []string{"mysql://other@db/x"}},
		{name: "GOZIE_DB over the site's gozie.db.file", args: []string{"-config", site}, env: map[string]string{"GOZIE_DB": "mysql://env@db/x"},
			status: exitFail, stderr: []string{"mysql://env@db/x"}},
		{name: "readable by others", args: []string{"-db-file", openFile}, status: exitFail,
			stderr: []string{"unsupported DSN", openFile, "chmod 600"}},
		{name: "readable by others, no password", args: []string{"-db-file", noPassword}, status: exitFail,
			stderr: []string{"unsupported DSN"}, not: []string{"chmod"}},
		{name: "both flags", args: []string{"-db", "mysql://x", "-db-file", dsnFile}, status: exitUsage,
			stderr: []string{"-db", "-db-file", "not both"}},
		{name: "both keys in one file", args: []string{"-config", both}, status: exitUsage,
			stderr: []string{"gozie.db", "gozie.db.file", "not both"}},
		{name: "missing file", args: []string{"-db-file", filepath.Join(dir, "nope")}, status: exitFail,
			stderr: []string{"gozie.db.file", filepath.Join(dir, "nope")}},
		{name: "empty file", args: []string{"-db-file", empty}, status: exitFail,
			stderr: []string{"gozie.db.file", empty, "empty"}},
		{name: "too large", args: []string{"-db-file", big}, status: exitFail,
			stderr: []string{"gozie.db.file", big, "larger than"}},
		{name: "a FIFO", args: []string{"-db-file", fifo}, status: exitFail,
			stderr: []string{"gozie.db.file", fifo, "named pipe"}},
		{name: "a directory", args: []string{"-db-file", dir}, status: exitFail,
			stderr: []string{"gozie.db.file", "directory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"GOZIE_DB", "GOZIE_DB_FILE"} {
				t.Setenv(k, c.env[k])
			}
			var out, errb bytes.Buffer
			args := append([]string{"-data", t.TempDir(), "-host", "256.0.0.1", "-port", "0"}, c.args...)
			got := runServer(args, &out, &errb)
			msg := errb.String()
			if got != c.status {
				t.Errorf("server %v = %d, want %d; stderr:\n%s", c.args, got, c.status, msg)
			}
			for _, s := range c.stderr {
				if !strings.Contains(msg, s) {
					t.Errorf("stderr lacks %q:\n%s", s, msg)
				}
			}
			for _, s := range append(c.not, "s3cret") {
				if strings.Contains(msg, s) {
					t.Errorf("stderr shows %q:\n%s", s, msg)
				}
			}
			if strings.Contains(msg, warning) != c.warned {
				t.Errorf("password warning shown = %v, want %v:\n%s", !c.warned, c.warned, msg)
			}
			for _, s := range c.warnMsg {
				if line := warningLine(msg, warning); !strings.Contains(line, s) {
					t.Errorf("the warning %q does not name %s", line, s)
				}
			}
		})
	}
}

// warningLine is the line of msg holding w.
func warningLine(msg, w string) string {
	for _, l := range strings.Split(msg, "\n") {
		if strings.Contains(l, w) {
			return l
		}
	}
	return ""
}
