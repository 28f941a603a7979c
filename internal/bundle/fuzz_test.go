package bundle

import (
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

// FuzzSubmit: any bytes are refused with an Oozie-coded error or submit
// (every variable defined as "1"); what submits loads back, and its
// check without properties gives a coded error or none. Nothing panics.
func FuzzSubmit(f *testing.F) {
	f.Add([]byte(doc("0.2", `name="${x}"`, `<parameters><property><name>p</name></property></parameters><controls><kick-off-time>${k}</kick-off-time></controls>`+
		coordEl(`name="${bundle:conf('c')}" enabled="${e}"`, `<app-path>${p}</app-path><configuration><property><name>a</name><value>${concat('a', x)}</value></property></configuration>`))))
	f.Add([]byte(doc("0.1", "", coordEl(`name="a-1" critical="true"`, `<app-path>/a</app-path>`))))
	f.Add([]byte("<!-- x -->" + doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path>`))))
	f.Add([]byte("<bundle-app"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := CheckDefinition(data); err != nil && ErrorCode(err) == "" {
			t.Fatalf("check error without a code: %v", err)
		}
		p := conf.New()
		p.SetResolver(func(string) (string, bool) { return "1", true })
		p.Set(PropUser, "u")
		p.Set(PropAppPath, "/b")
		a, job, err := Submit(p, SubmitOptions{ReadFile: memFiles(map[string]string{"/b/bundle.xml": string(data)})})
		if err != nil {
			if ErrorCode(err) == "" {
				t.Fatalf("submit error without a code: %v", err)
			}
			return
		}
		if _, err := Load(a.Definition, job); err != nil && ErrorCode(err) == "" {
			t.Fatalf("load error without a code: %v", err)
		}
		for _, c := range a.Coordinators {
			CoordProps(job, c, "B")
		}
	})
}
