package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDryrunBundle: gozie dryrun of a bundle prints what Oozie's client
// prints (the header, then the resolved bundle XML), offline; validate
// checks it with and without -config.
func TestDryrunBundle(t *testing.T) {
	dir := t.TempDir()
	xml := "<!-- c -->\n<bundle-app name='b-${x}' xmlns='uri:oozie:bundle:0.2'><coordinator name='c'><app-path>${x}</app-path></coordinator></bundle-app>\n"
	if err := os.WriteFile(filepath.Join(dir, "bundle.xml"), []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, props string
		run         func(args []string, stdout, stderr *bytes.Buffer) int
		code        int
		out, errOut string
	}{
		{"dryrun", "x=one\n", func(a []string, o, e *bytes.Buffer) int { return runDryrun(a, o, e) }, exitOK,
			"***Bundle job after parsing: ***\n\n<bundle-app name='b-one' xmlns='uri:oozie:bundle:0.2'><coordinator name='c'><app-path>one</app-path></coordinator></bundle-app>\n\n\n", ""}, // the file's newline, the dry run's separator, println's
		{"dryrun undefined", "", func(a []string, o, e *bytes.Buffer) int { return runDryrun(a, o, e) }, exitFail,
			"", "E1310: Bundle Job submission Error: [E1004"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pf := filepath.Join(t.TempDir(), "job.properties")
			os.WriteFile(pf, []byte("oozie.bundle.application.path="+dir+"\n"+tt.props), 0o644)
			var out, errOut bytes.Buffer
			code := tt.run([]string{"-config", pf}, &out, &errOut)
			if code != tt.code || out.String() != tt.out || !strings.Contains(errOut.String(), tt.errOut) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), tt.code, tt.out, tt.errOut)
			}
		})
	}
}
