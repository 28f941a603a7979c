package workflow

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the parser or the validators panic or
// loop, with schema checks on and off.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(wfXML("0.5", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>`+
		fsAction("a", "b", "k")+fsAction("b", "j", "a")+`<join name="j" to="f"/>`+killNode+`<end name="end"/>`)))
	f.Add([]byte(`<workflow-app xmlns="uri:oozie:workflow:0.1" name="x"><xstart/></workflow-app>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := DefaultOptions()
		app, err := Parse(data, opts)
		if err == nil && app == nil {
			t.Fatal("nil app without error")
		}
		if err != nil && ErrorCode(err) == "" {
			t.Fatalf("error without code: %v", err)
		}
		opts.SchemaValidation = false
		_, _ = Parse(data, opts)
		if app, err := ParseNoValidate(data); err == nil {
			_ = app.Validate(opts)
		}
	})
}
