package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixtures parses every fixture under testdata with full validation: one
// workflow per schema version and one per extension action namespace.
func TestFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			app, err := Parse(data, DefaultOptions())
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if app.Version == "" || !strings.HasSuffix(app.Namespace, app.Version) {
				t.Errorf("namespace %q, version %q", app.Namespace, app.Version)
			}
			if app.Node(StartNodeName) == nil || app.Node(app.Start) == nil {
				t.Errorf("start node missing")
			}
			base := filepath.Base(f)
			if strings.HasPrefix(base, "ext-") {
				typ := strings.Split(base, "-")[1]
				a := app.Node("act").Action
				if a.Type != typ || !strings.HasPrefix(a.Namespace, "uri:oozie:"+typ+"-action:") {
					t.Errorf("action type %q namespace %q", a.Type, a.Namespace)
				}
			}
		})
	}
}
