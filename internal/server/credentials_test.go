package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredentialsAtSubmission is issue 30: an action naming a credential
// its workflow does not define (JA021), or one of a type the server
// cannot obtain (JA020, naming the type), is refused at submission, so
// no action runs without what it asked for. A defined built-in type
// passes.
func TestCredentialsAtSubmission(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, creds, cred string
		status            int
		code, msg         string
	}{
		{"undefined", `<credential name="hs2" type="hive2"/>`, "meta", http.StatusBadRequest, "JA021", "Could not load credentials with name [meta]"},
		{"unknown type", `<credential name="v" type="vault"/>`, "v", http.StatusBadRequest, "JA020", "Could not load credentials of type [vault] with name [v]"},
		{"built-in", `<credential name="meta" type="hcat"><property><name>hcat.metastore.uri</name><value>thrift://ms:9083</value></property></credential>`,
			"meta", http.StatusCreated, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(e.dir, "apps", "cred-"+strings.ReplaceAll(tt.name, " ", "-"))
			os.MkdirAll(dir, 0o755)
			wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="c"><credentials>` + tt.creds + `</credentials>
<start to="a"/><action name="a" cred="` + tt.cred + `"><fs><mkdir path="` + filepath.Join(dir, "out") + `"/></fs><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>x</message></kill><end name="end"/></workflow-app>`
			if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
				t.Fatal(err)
			}
			r := e.do("POST", "/oozie/v2/jobs?user.name=joe", "application/xml;charset=UTF-8", confXML("oozie.wf.application.path", dir))
			if r.status != tt.status || r.header.Get("oozie-error-code") != tt.code || !strings.Contains(r.header.Get("oozie-error-message"), tt.msg) {
				t.Errorf("%d %s %q; want %d %s %q", r.status, r.header.Get("oozie-error-code"), r.header.Get("oozie-error-message"), tt.status, tt.code, tt.msg)
			}
		})
	}
}
