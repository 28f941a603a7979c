package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBundleApp writes a workflow, two daily coordinators of three past
// days each (they catch up at once) and a bundle of them plus a disabled
// one, and returns the job properties file.
func writeBundleApp(t *testing.T, bundleXML string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"wf/workflow.xml": `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="end"/><end name="end"/></workflow-app>`,
		"app/bundle.xml":  strings.ReplaceAll(bundleXML, "DIR", dir),
		"job.properties":  "oozie.bundle.application.path=" + filepath.Join(dir, "app") + "\n",
	}
	for _, c := range []string{"c1", "c2"} {
		files[c+"/coordinator.xml"] = `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="` + c + `" frequency="${coord:days(1)}"
  start="2020-01-01T00:00Z" end="2020-01-04T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + filepath.Join(dir, "wf") + `</app-path></workflow></action></coordinator-app>`
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "job.properties")
}

// TestRunBundle: gozie run runs a bundle's coordinators in-process until
// the bundle ends, and exits 0 only when it SUCCEEDED.
func TestRunBundle(t *testing.T) {
	rows := []struct {
		name, xml string
		code      int
		out, err  []string
	}{
		{"succeeds", `<bundle-app xmlns="uri:oozie:bundle:0.2" name="demo">
  <coordinator name="first"><app-path>DIR/c1</app-path></coordinator>
  <coordinator name="second" critical="true"><app-path>DIR/c2</app-path></coordinator>
  <coordinator name="off" enabled="false"><app-path>DIR/c2</app-path></coordinator></bundle-app>`,
			exitOK, []string{"Status : SUCCEEDED", "first ", "second ", "actions: SUCCEEDED=3"},
			[]string{"bundle demo RUNNING", "bundle demo SUCCEEDED", "coordinator first", "(coordinator action "}},
		{"a coordinator cannot be submitted", `<bundle-app xmlns="uri:oozie:bundle:0.2" name="demo">
  <coordinator name="first"><app-path>DIR/c1</app-path></coordinator>
  <coordinator name="missing"><app-path>DIR/nowhere</app-path></coordinator></bundle-app>`,
			exitFail, []string{"Status : FAILED"}, []string{"bundle demo FAILED"}},
		{"refused", `<bundle-app xmlns="uri:oozie:bundle:0.2" name="demo"><oops/></bundle-app>`,
			exitFail, nil, []string{"E0701"}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runRun([]string{"-config", writeBundleApp(t, r.xml), "-data", t.TempDir()}, &out, &errOut)
			if code != r.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, r.code, &out, &errOut)
			}
			for _, w := range r.out {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, &out)
				}
			}
			for _, w := range r.err {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, &errOut)
				}
			}
			if strings.Contains(out.String(), "off ") {
				t.Errorf("the disabled coordinator ran:\n%s", &out)
			}
		})
	}
}
