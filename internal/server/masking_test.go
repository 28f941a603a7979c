package server

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/jobs"
)

// Secret values of the masking tests: each must reach only the job's
// owner, its ACL users and groups, and admins.
var testSecrets = map[string]string{
	"db.password":               "hunter2-db",
	"fs.s3a.secret.key":         "s3-secret-xyz",
	"oozie.email.smtp.password": "smtp-pw-123",
}

// testAccessKey is the value of fs.s3a.access.key: an access key id names
// the key (it appears in the provider's own logs and in every signed
// request) and is shown to every reader, as a user name would be.
const testAccessKey = "AKIAEXAMPLEID"

// literalSecret is written into the workflow definition itself.
const literalSecret = "literal-pw-777"

// secretApp writes a workflow whose first step carries the secrets in its
// configuration, arguments and environment and prints one (capture-output,
// so it lands in the action's data), and whose second step fails printing
// another on stderr (so it lands in the job log's stderr tail).
func (e *env) secretApp(name string) string {
	e.t.Helper()
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="` + name + `">
  <start to="step"/>
  <action name="step">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <configuration>
        <property><name>db.password</name><value>${wf:conf('db.password')}</value></property>
        <property><name>hive.password</name><value>` + literalSecret + `</value></property>
        <property><name>fs.s3a.access.key</name><value>${wf:conf('fs.s3a.access.key')}</value></property>
      </configuration>
      <exec>sh</exec>
      <argument>-c</argument><argument>echo db.password=$DB_PASSWORD; echo smtp.password=$2</argument>
      <argument>sh</argument><argument>--password</argument><argument>${wf:conf('oozie.email.smtp.password')}</argument>
      <env-var>DB_PASSWORD=${wf:conf('db.password')}</env-var>
      <capture-output/>
    </shell>
    <ok to="fail-step"/><error to="fail"/>
  </action>
  <action name="fail-step">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec>
      <argument>-c</argument><argument>echo "connect --password $1 -Dfs.s3a.secret.key=$2" >&amp;2; exit 3</argument>
      <argument>sh</argument><argument>${wf:conf('db.password')}</argument><argument>${wf:conf('fs.s3a.secret.key')}</argument>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`
	dir := filepath.Join(e.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// secretProps are the job properties of the masking tests.
func secretProps(extra ...string) []string {
	kv := []string{"fs.s3a.access.key", testAccessKey, "oozie.job.acl", "ann ops"}
	for k, v := range testSecrets {
		kv = append(kv, k, v)
	}
	return append(kv, extra...)
}

// readers are who reads a job in the masking tests, and whether they see
// its secrets: the owner (joe), a user of its ACL (ann), a member of a
// group of its ACL (carl, in ops), an admin (root), another user (bob)
// and an anonymous reader.
var readers = []struct {
	name, query string
	sees        bool
}{
	{"owner", "user.name=joe", true},
	{"acl user", "user.name=ann", true},
	{"acl group", "user.name=carl", true},
	{"admin", "user.name=root", true},
	{"other user", "user.name=bob", false},
	{"anonymous", "", false},
}

// withQuery appends a reader's query to a path.
func withQuery(path, q string) string {
	if q == "" {
		return path
	}
	if strings.Contains(path, "?") {
		return path + "&" + q
	}
	return path + "?" + q
}

// checkSecrets asserts what one reader saw of one surface: every secret of
// want in clear when sees, none of them and the mask otherwise; the
// access key id always.
func checkSecrets(t *testing.T, surface, body string, sees bool, want []string, accessKey bool) {
	t.Helper()
	for _, s := range want {
		if got := strings.Contains(body, s); got != sees {
			t.Errorf("%s: secret %q shown=%v, want %v\n%.3000s", surface, s, got, sees, body)
		}
	}
	if !sees && !strings.Contains(body, "*****") {
		t.Errorf("%s: no mask in\n%.3000s", surface, body)
	}
	if accessKey && !strings.Contains(body, testAccessKey) {
		t.Errorf("%s: the access key id %s is not shown\n%.3000s", surface, testAccessKey, body)
	}
}

// TestSecretsMaskedForReaders (issue 23 point 8): db.password,
// fs.s3a.secret.key and the like were shown in clear to every reader of a
// job, through show=info (job and action conf, action data), the
// definition, the job log, the action output and the console pages. Only
// the owner, the ACL's users and groups and admins see them now.
func TestSecretsMaskedForReaders(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "start", secretProps("oozie.wf.application.path", e.secretApp("secrets"))...)
	e.waitStatus(id, "KILLED")
	all := []string{testSecrets["db.password"], testSecrets["fs.s3a.secret.key"], testSecrets["oozie.email.smtp.password"]}
	step := []string{testSecrets["db.password"], testSecrets["oozie.email.smtp.password"], literalSecret}
	surfaces := []struct {
		name, path string
		secrets    []string
		accessKey  bool
		html       bool
	}{
		{"v2 job info", "/oozie/v2/job/" + id, append(all, literalSecret), true, false},
		{"v1 job info", "/oozie/v1/job/" + id + "?show=info", append(all, literalSecret), true, false},
		{"action info", "/oozie/v2/job/" + id + "@step", step, true, false},
		{"definition", "/oozie/v2/job/" + id + "?show=definition", []string{literalSecret}, false, false},
		{"job log", "/oozie/v2/job/" + id + "?show=log", []string{testSecrets["db.password"], testSecrets["fs.s3a.secret.key"]}, false, false},
		{"error log", "/oozie/v2/job/" + id + "?show=errorlog", []string{testSecrets["db.password"], testSecrets["fs.s3a.secret.key"]}, false, false},
		{"action stdout", "/oozie/console/action/" + id + "@step/stdout", []string{testSecrets["db.password"], testSecrets["oozie.email.smtp.password"]}, false, false},
		{"action stderr", "/oozie/console/action/" + id + "@fail-step/stderr", []string{testSecrets["db.password"], testSecrets["fs.s3a.secret.key"]}, false, false},
		{"console job page", "/oozie/console/job/" + id, append(all, literalSecret), true, true},
		{"console output tail", "/oozie/console/tail/" + id + "@fail-step/stderr", []string{testSecrets["db.password"], testSecrets["fs.s3a.secret.key"]}, false, true},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			for _, s := range surfaces {
				var r resp
				if s.html {
					r = e.do("GET", withQuery(s.path, rd.query), "", "", "Accept", "text/html")
				} else {
					r = e.do("GET", withQuery(s.path, rd.query), "", "")
				}
				if r.status != 200 {
					t.Errorf("%s: %d %s", s.name, r.status, r.body)
					continue
				}
				checkSecrets(t, s.name, string(r.body), rd.sees, s.secrets, s.accessKey)
			}
			// A reader must not find a secret by filtering the log for it.
			filter := url.QueryEscape("text=" + testSecrets["db.password"])
			r := e.do("GET", withQuery("/oozie/v2/job/"+id+"?show=log&logfilter="+filter, rd.query), "", "")
			if got := len(r.body) > 0; got != rd.sees {
				t.Errorf("log filtered by the secret: %d lines found=%v, want %v:\n%s", r.status, got, rd.sees, r.body)
			}
		})
	}
	// The masked JSON is the REST API's, conf an XML document still.
	job := e.do("GET", "/oozie/v2/job/"+id+"?user.name=bob", "", "").json(t)
	conf, _ := job["conf"].(string)
	for _, want := range []string{"<name>db.password</name>", "<value>*****</value>", "<value>" + testAccessKey + "</value>"} {
		if !strings.Contains(conf, want) {
			t.Errorf("masked conf lacks %s:\n%s", want, conf)
		}
	}
}

// TestCoordSecretsMaskedForReaders is point 8 for coordinators: the job's
// conf, its actions' createdConf and runConf, its definition, and the
// configuration diff an update writes into the job log.
func TestCoordSecretsMaskedForReaders(t *testing.T) {
	e := newEnv(t)
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	props := secretProps("oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///",
		"jobTracker", "local", "queueName", "default")
	id := e.submit("joe", "", props...)
	e.waitStatus(id+"@1", "SUCCEEDED")
	// An update by the owner changes the password: the log's diff shows
	// the old and the new value.
	const newPassword = "hunter3-db"
	for i := range props {
		if props[i] == "db.password" {
			props[i+1] = newPassword
		}
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=update&user.name=joe", "application/xml", confXML(props...)); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	all := []string{testSecrets["fs.s3a.secret.key"], testSecrets["oozie.email.smtp.password"], newPassword}
	surfaces := []struct {
		name, path string
		secrets    []string
		accessKey  bool
		html       bool
	}{
		{"coord job info", "/oozie/v2/job/" + id + "?len=5", all, true, false},
		{"coord job info v1", "/oozie/v1/job/" + id, all, true, false},
		{"coord action info", "/oozie/v2/job/" + id + "@1", []string{testSecrets["fs.s3a.secret.key"], testSecrets["db.password"]}, true, false},
		{"coord job log", "/oozie/v2/job/" + id + "?show=log", []string{testSecrets["db.password"], newPassword}, false, false},
		{"console coordinator page", "/oozie/console/job/" + id, all, true, true},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			for _, s := range surfaces {
				var r resp
				if s.html {
					r = e.do("GET", withQuery(s.path, rd.query), "", "", "Accept", "text/html")
				} else {
					r = e.do("GET", withQuery(s.path, rd.query), "", "")
				}
				if r.status != 200 {
					t.Errorf("%s: %d %s", s.name, r.status, r.body)
					continue
				}
				checkSecrets(t, s.name, string(r.body), rd.sees, s.secrets, s.accessKey)
			}
		})
	}
}

// TestMaskNamesKey: gozie.configuration.mask.names adds secret names (a
// substring, a glob) to the built-in ones, for job pages and
// admin/configuration alike; a malformed pattern stops the server at
// start, naming the key.
func TestMaskNamesKey(t *testing.T) {
	e := newEnvConfigured(t, map[string]string{keyMaskNames: "vault, *.jdbc.url"})
	id := e.submit("joe", "", "oozie.wf.application.path", e.app("names"),
		"corp.vault.path", "vault-value-1", "hive.jdbc.url", "jdbc-value-2", "plain.jdbc.url.x", "shown-value-3")
	for _, c := range []struct {
		who  string
		sees bool
	}{{"joe", true}, {"bob", false}} {
		body := string(e.do("GET", "/oozie/v2/job/"+id+"?user.name="+c.who, "", "").body)
		for _, v := range []string{"vault-value-1", "jdbc-value-2"} {
			if strings.Contains(body, v) != c.sees {
				t.Errorf("%s: %s shown=%v", c.who, v, !c.sees)
			}
		}
		if !strings.Contains(body, "shown-value-3") {
			t.Errorf("%s: a name matching no pattern was masked", c.who)
		}
	}
	admin := e.do("GET", "/oozie/v2/admin/configuration?user.name=root", "", "").json(t)
	if admin[keyMaskNames] != "vault, *.jdbc.url" {
		t.Errorf("admin/configuration %s = %v", keyMaskNames, admin[keyMaskNames])
	}
	_, err := New(Options{Engine: jobs.New(e.eng, nil, nil), Auth: AuthOptions{Secret: []byte("x")}, Config: map[string]string{keyMaskNames: "ok,[bad"}})
	if err == nil || !strings.Contains(err.Error(), keyMaskNames) || !strings.Contains(err.Error(), "[bad") {
		t.Errorf("malformed pattern: %v", err)
	}
}

// TestSecretsMaskedWithoutAuthorization: with gozie.authorization.enabled
// false anyone may change a job, but only the readers it names see its
// secrets, in pages and in the answers of coordinator commands (the
// actions' runConf, an update's diff).
func TestSecretsMaskedWithoutAuthorization(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.Authorization = false })
	id := e.submit("joe", "", secretProps("oozie.wf.application.path", e.app("noauth"))...)
	for _, rd := range readers {
		body := string(e.do("GET", withQuery("/oozie/v2/job/"+id, rd.query), "", "").body)
		checkSecrets(t, rd.name, body, rd.sees, []string{testSecrets["db.password"]}, true)
	}
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	props := secretProps("oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///",
		"jobTracker", "local", "queueName", "default")
	coord := e.submit("joe", "", props...)
	e.waitStatus(coord+"@1", "SUCCEEDED")
	for _, c := range []struct {
		who  string
		sees bool
	}{{"bob", false}, {"joe", true}} {
		r := e.do("PUT", "/oozie/v2/job/"+coord+"?action=coord-rerun&type=action&scope=1&user.name="+c.who, "application/xml", confXML())
		if r.status != 200 {
			t.Fatalf("coord-rerun by %s: %d %s", c.who, r.status, r.body)
		}
		checkSecrets(t, "coord-rerun answer to "+c.who, string(r.body), c.sees, []string{testSecrets["db.password"]}, true)
		e.waitStatus(coord+"@1", "SUCCEEDED")
		r = e.do("PUT", "/oozie/v2/job/"+coord+"?action=update&dryrun=true&user.name="+c.who, "application/xml",
			confXML(append(props, "db.password", "changed-pw-1")...))
		if r.status != 200 {
			t.Fatalf("update by %s: %d %s", c.who, r.status, r.body)
		}
		checkSecrets(t, "update answer to "+c.who, string(r.body), c.sees, []string{"changed-pw-1", testSecrets["db.password"]}, false)
	}
}
