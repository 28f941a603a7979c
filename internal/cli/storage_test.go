package cli

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A coordinator whose app path is on hdfs:// is read from HDFS (here a
// NameNode that does not answer), never from the local file of the same
// path, which it once was.
func TestCoordAppPathIsNotReadLocally(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	def := `<coordinator-app name="c" frequency="${coord:days(1)}" start="2026-01-01T00:00Z" end="2026-01-02T00:00Z"
  timezone="UTC" xmlns="uri:oozie:coordinator:0.4"><action><workflow><app-path>/x</app-path></workflow></action></coordinator-app>`
	if err := os.WriteFile(filepath.Join(app, "coordinator.xml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out, errOut bytes.Buffer
	code := runDryrun([]string{"-D", "oozie.coord.application.path=hdfs://" + addr + app, "-D", "user.name=me", "-len", "1"}, &out, &errOut)
	if code == 0 {
		t.Fatalf("dryrun read the local copy of an hdfs:// app:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), addr) {
		t.Errorf("the error does not name the NameNode that did not answer: %s", errOut.String())
	}
}

// An app path on a scheme no backend serves is refused with the schemes
// that are and the mount key, for a workflow as for a coordinator.
func TestUnknownSchemeSaysWhatToDo(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-D", "oozie.wf.application.path=foo://x/app"},
		{"dryrun", "-D", "oozie.coord.application.path=foo://x/app", "-D", "user.name=me"},
	} {
		var out, errOut bytes.Buffer
		var code int
		if args[0] == "run" {
			code = runRun(args[1:], &out, &errOut)
		} else {
			code = runDryrun(args[1:], &out, &errOut)
		}
		msg := out.String() + errOut.String()
		if code == 0 {
			t.Fatalf("%v succeeded", args)
		}
		for _, want := range []string{"foo", "gozie.fs.mount.", "s3a", "hdfs", "gs", "abfs"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: the message lacks %q:\n%s", args, want, msg)
			}
		}
	}
}
