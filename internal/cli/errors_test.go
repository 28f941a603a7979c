package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlainErrors is issue 14 point 9: command errors say what happened in
// Oozie's and plain words.
func TestPlainErrors(t *testing.T) {
	pinEnv(t)
	real := startServer(t)
	props := filepath.Join(t.TempDir(), "job.properties")
	if err := os.WriteFile(props, []byte("oozie.wf.application.path=file:///apps/x\nuser.name=alice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, refusing := newFakeOozie(t, map[string]reply{
		"POST /oozie/v2/jobs?action=start&user=tester": {status: 400, header: map[string]string{
			"oozie-error-code": "E0303", "oozie-error-message": "E0303: Invalid parameter value, [configuration] = [user.name]"}},
	})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no server URL anywhere", []string{"jobs"},
			[]string{"Oozie URL is not available neither in command option or in the environment", "-oozie", "OOZIE_URL"}},
		{"URL without /oozie", []string{"jobs", "-oozie", strings.TrimSuffix(real, "/oozie")},
			[]string{"404 Not Found", "the URL must end with /oozie"}},
		{"user.name refused", []string{"job", "-oozie", refusing, "-run", "-config", props},
			[]string{"E0303", "user.name [alice]", "authenticated you as [tester]", "remove user.name from " + props, "USER=alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			start := time.Now()
			code := Main(tt.args, &out, &errOut)
			if code != exitRemote {
				t.Errorf("exit %d, want %d", code, exitRemote)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			for _, bad := range []string{"context", "Authentication failed"} {
				if strings.Contains(errOut.String(), bad) {
					t.Errorf("stderr says %q:\n%s", bad, errOut.String())
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v: should fail at once", d)
			}
		})
	}
}
