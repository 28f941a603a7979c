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

// TestSLACommandsSayUnsupported is issue 26 point 12: neither `gozie sla`
// nor `gozie job -help` recommends SLA commands gozie's server refuses,
// and the refusal names the missing feature instead of an unknown action.
func TestSLACommandsSayUnsupported(t *testing.T) {
	pinEnv(t)
	var out, errOut bytes.Buffer
	Main([]string{"sla"}, &out, &errOut)
	if msg := errOut.String(); !strings.Contains(msg, "no SLA support yet") || !strings.Contains(msg, "refuses") {
		t.Errorf("gozie sla says:\n%s", msg)
	}
	out.Reset()
	Main([]string{"job", "-help"}, &out, &errOut)
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-sla") && !strings.Contains(l, "gozie's server refuses it") {
			t.Errorf("job -help line %q does not say gozie's server refuses it", l)
		}
	}
	url := startServer(t)
	errOut.Reset()
	code := Main([]string{"job", "-oozie", url, "-slaenable", "0000001-260101000000000-oozie-root-W"}, &out, &errOut)
	if code != exitRemote || !strings.Contains(errOut.String(), "E1027") || !strings.Contains(errOut.String(), "no SLA support yet") {
		t.Errorf("-slaenable: exit %d, stderr %q", code, errOut.String())
	}
}
