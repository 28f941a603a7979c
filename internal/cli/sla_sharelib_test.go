package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/server"
)

// TestShareLibCommands is issue 26 point 12: `gozie admin -shareliblist`
// lists what gozie.sharelib.dir holds, and `-sharelibupdate` scans it and
// reports the directory in use; before, the list was empty and the update
// was refused.
func TestShareLibCommands(t *testing.T) {
	pinEnv(t)
	share := t.TempDir()
	for _, f := range []string{"lib_20260101000000/pig/pig.jar", "lib_20260101000000/hive/hive.jar"} {
		p := filepath.Join(share, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	url := gozietest.NewServer(t, gozietest.Options{DefaultUser: "tester", PollInterval: 50 * time.Millisecond,
		Auth:   &server.AuthOptions{Secret: []byte("e2e-secret"), AnonymousReads: true},
		Config: map[string]string{"gozie.sharelib.dir": share}}).URL
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"admin", "-shareliblist"}, "[Available ShareLib]\nhive\npig\n\n"},
		{[]string{"admin", "-shareliblist", "pig"}, "[Available ShareLib]\npig\n\t" + filepath.Join(share, "lib_20260101000000", "pig", "pig.jar") + "\n\n"},
		{[]string{"admin", "-sharelibupdate"}, "[ShareLib update status]\n\thost = " + url + "\n\tsharelibDirNew = " + filepath.Join(share, "lib_20260101000000") +
			"\n\tsharelibDirOld = " + filepath.Join(share, "lib_20260101000000") + "\n\tstatus = Successful\n\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Main(append(tt.args, "-oozie", url), &out, &errOut); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if out.String() != tt.want {
				t.Errorf("stdout:\n%q\nwant:\n%q", out.String(), tt.want)
			}
		})
	}
}

// TestSLAHelp is issue 28: `gozie sla` is a command and `gozie job
// -help` describes the SLA commands instead of calling them refused.
func TestSLAHelp(t *testing.T) {
	pinEnv(t)
	var out, errOut bytes.Buffer
	if code := Main([]string{"help", "sla"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "-filter") {
		t.Errorf("help sla: exit %d, stdout:\n%s", code, out.String())
	}
	out.Reset()
	Main([]string{"job", "-help"}, &out, &errOut)
	n := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-sla") {
			n++
			if strings.Contains(l, "refuse") {
				t.Errorf("job -help line %q still says the server refuses it", l)
			}
		}
	}
	if n != 3 {
		t.Errorf("job -help lists %d SLA commands, want 3:\n%s", n, out.String())
	}
}
