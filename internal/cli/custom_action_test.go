package cli

import (
	"bytes"
	"strings"
	"testing"
)

// examples/custom-action runs its <hello> element through the executable
// its gozie-site.xml names, and validates offline when the type is
// declared with -D (E0723 without).
func TestCustomActionExample(t *testing.T) {
	repoRoot(t)
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/custom-action/job.properties", "-site", "examples/custom-action/gozie-site.xml",
		"-data", t.TempDir()}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "Status : SUCCEEDED") {
		t.Fatalf("run: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	code, stdout, stderr := run(t, "validate", "-D", "gozie.action.executable.hello=hello.sh", "examples/custom-action/workflow.xml")
	if code != 0 || !strings.Contains(stdout, "Valid workflow-app") {
		t.Errorf("validate with the type declared: exit %d, %q %q", code, stdout, stderr)
	}
	code, _, stderr = run(t, "validate", "examples/custom-action/workflow.xml")
	if code == 0 || !strings.Contains(stderr, "E0723") || !strings.Contains(stderr, "[hello]") {
		t.Errorf("validate without the type: exit %d, %q", code, stderr)
	}
}
