package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeWF writes workflow.xml into a new application directory.
func (e *env) writeWF(name, body string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	wf := fmt.Sprintf(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s">%s</workflow-app>`, name, body)
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// TestShowRetries: show=retries of a workflow action lists each run that
// ended in a user retry, with string values as JsonTags/the client read
// them (attempt, startTime, endTime, consoleUrl, externalChildIDs).
func TestShowRetries(t *testing.T) {
	e := newEnv(t)
	app := e.writeWF("retries", fmt.Sprintf(`<start to="a"/>
  <action name="a" retry-max="2" retry-interval="0"><fs><chmod path="%s/missing*" permissions="755"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/>`, e.dir))
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	e.waitStatus(id, "KILLED")
	r := e.do("GET", "/oozie/v2/job/"+id+"@a?show=retries", "", "")
	if r.status != http.StatusOK {
		t.Fatalf("retries: %d %s", r.status, r.body)
	}
	list, ok := r.json(t)["retries"].([]any)
	if !ok || len(list) != 2 {
		t.Fatalf("retries = %s, want 2 entries", r.body)
	}
	for i, x := range list {
		m := x.(map[string]any)
		for k, v := range m {
			if _, isStr := v.(string); !isStr {
				t.Errorf("retry %d: %s is %T, want a string", i, k, v)
			}
		}
		if m["attempt"] != fmt.Sprint(i+1) {
			t.Errorf("retry %d: attempt %v", i, m["attempt"])
		}
		for _, k := range []string{"startTime", "endTime"} {
			if s, _ := m[k].(string); !strings.HasSuffix(s, " GMT") {
				t.Errorf("retry %d: %s = %v, want an RFC 822 GMT date", i, k, m[k])
			}
		}
	}
	// An action without retries has an empty list; v1 does not know it;
	// a job id is not an action.
	id2 := e.submit("joe", "start", "oozie.wf.application.path", e.app("noretry"))
	e.waitStatus(id2, "SUCCEEDED")
	if r := e.do("GET", "/oozie/v2/job/"+id2+"@prepare?show=retries", "", ""); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"retries":[]}` {
		t.Errorf("no retries: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v1/job/"+id+"@a?show=retries", "", ""); r.status != 400 || r.header.Get("oozie-error-code") != "E0302" {
		t.Errorf("v1: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=retries", "", ""); r.status != 400 {
		t.Errorf("job id: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"@zz?show=retries", "", ""); r.status != 400 || r.header.Get("oozie-error-code") != "E0605" {
		t.Errorf("unknown action: %d %s", r.status, r.body)
	}
}

// TestCoordUpdate: PUT action=update re-reads coordinator.xml (and, with a
// configuration, replaces the job's), answers {"update":{"diff":...}} as
// Oozie does, and changes nothing on dryrun=true.
func TestCoordUpdate(t *testing.T) {
	e := newEnv(t)
	if e.srv.coords == nil {
		t.Skip("no coordinator engine")
	}
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	base := []string{"oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///", "jobTracker", "local", "queueName", "default"}
	id := e.submit("joe", "", base...)
	defPath := filepath.Join(app, "coordinator.xml")
	def, err := os.ReadFile(defPath)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) {
		t.Helper()
		if err := os.WriteFile(defPath, []byte(strings.Replace(string(def), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	update := func(ver, user, query, body string) resp {
		t.Helper()
		return e.do("PUT", "/oozie/"+ver+"/job/"+id+"?action=update&user.name="+user+query, "application/xml;charset=UTF-8", body)
	}
	concurrency := func() float64 {
		t.Helper()
		return e.do("GET", "/oozie/v2/job/"+id+"?show=info", "", "").json(t)["concurrency"].(float64)
	}
	edit("<concurrency>2</concurrency>", "<concurrency>3</concurrency>")

	// Dry run: the diff, nothing changed.
	r := update("v2", "joe", "&dryrun=true&diff=", "<configuration/>")
	if r.status != 200 {
		t.Fatalf("dry run: %d %s", r.status, r.body)
	}
	diff := r.json(t)["update"].(map[string]any)["diff"].(string)
	for _, want := range []string{`(?m)^\*{10}Job definition changes\*{10}\n@@ -\d+,7 \+\d+,7 @@\n`, `(?m)^-\s*<concurrency>2</concurrency>\n\+\s*<concurrency>3</concurrency>\n`,
		`(?m)^\*{10}Job conf changes\*{16}\nNo conf update requested\n\*{42}\n\z`} {
		if !regexp.MustCompile(want).MatchString(diff) {
			t.Errorf("diff does not match %s:\n%s", want, diff)
		}
	}
	if c := concurrency(); c != 2 {
		t.Errorf("dry run changed concurrency to %v", c)
	}
	// diff=false: the update is applied, the answer's diff is empty.
	r = update("v2", "joe", "&dryrun=&diff=false", "")
	if r.status != 200 || r.json(t)["update"].(map[string]any)["diff"] != "" {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	if c := concurrency(); c != 3 {
		t.Errorf("concurrency after update = %v, want 3", c)
	}
	if d := e.do("GET", "/oozie/v2/job/"+id+"?show=definition", "", "").body; !strings.Contains(string(d), "<concurrency>3</concurrency>") {
		t.Errorf("definition not updated:\n%s", d)
	}
	// A configuration replaces the job's: its changes are reported.
	withConf := append(append([]string{}, base...), "queueName", "night")
	r = update("v2", "joe", "", confXML(withConf...))
	if r.status != 200 {
		t.Fatalf("conf update: %d %s", r.status, r.body)
	}
	if diff := r.json(t)["update"].(map[string]any)["diff"].(string); !strings.Contains(diff, "+") || !strings.Contains(diff, "night") {
		t.Errorf("conf diff:\n%s", diff)
	}

	edit(`frequency="${coord:hours(1)}"
                 start`, `frequency="${coord:hours(2)}"
                 start`)
	errCases := []struct {
		name, ver, user string
		status          int
		code            string
	}{
		{"frequency change", "v2", "joe", 400, "E1023"},
		{"v1", "v1", "joe", 400, "E0302"},
		{"stranger", "v2", "bob", 401, "E0509"},
	}
	for _, c := range errCases {
		r := update(c.ver, c.user, "", "")
		if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
			t.Errorf("%s: %d %s %q, want %d %s", c.name, r.status, r.header.Get("oozie-error-code"), r.header.Get("oozie-error-message"), c.status, c.code)
		}
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=update&user.name=joe", "", ""); r.header.Get("oozie-error-code") != "E0300" {
		t.Errorf("update without XML: %d %s", r.status, r.body)
	}
}

// TestSimpleAuthUserName: with simple authentication, a submission takes
// its owner from the authenticated user, else from its configuration's
// user.name, else from the user parameter the plain OozieClient sends; a
// configuration naming another user is overwritten and the job log says
// so. gozie.authentication.simple.strict.user refuses both instead.
func TestSimpleAuthUserName(t *testing.T) {
	cases := []struct {
		name, query string
		conf        []string
		strict      bool
		status      int
		code, owner string
		logLine     string // in the job log
	}{
		{name: "authenticated, same user.name", query: "?user.name=joe", conf: []string{"user.name", "joe"}, status: 201, owner: "joe"},
		{name: "authenticated, other user.name", query: "?user.name=joe", conf: []string{"user.name", "bob"}, status: 201, owner: "joe",
			logLine: "user.name [bob] replaced by the authenticated user [joe]"},
		{name: "authenticated, other mapreduce user", query: "?user.name=joe", conf: []string{"mapreduce.job.user.name", "bob"}, status: 201, owner: "joe",
			logLine: "mapreduce.job.user.name [bob] replaced by the authenticated user [joe]"},
		{name: "anonymous, user.name in conf", conf: []string{"user.name", "bob"}, status: 201, owner: "bob"},
		{name: "anonymous, plain OozieClient's user parameter", query: "?user=ann", status: 201, owner: "ann"},
		{name: "anonymous, conf wins over user parameter", query: "?user=ann", conf: []string{"user.name", "bob"}, status: 201, owner: "bob"},
		{name: "anonymous, no user at all", status: 400, code: "E0401"},
		{name: "strict, other user.name", query: "?user.name=joe", conf: []string{"user.name", "bob"}, strict: true, status: 400, code: "E0303"},
		{name: "strict, anonymous", conf: []string{"user.name", "bob"}, strict: true, status: 401, code: "E0500"},
		{name: "strict, same user.name", query: "?user.name=joe", conf: []string{"user.name", "joe"}, strict: true, status: 201, owner: "joe"},
	}
	envs := map[bool]*env{
		false: newEnv(t),
		true:  newEnv(t, func(a *AuthOptions) { a.StrictSimpleUser = true }),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := envs[c.strict]
			kv := append([]string{"oozie.wf.application.path", e.app("u")}, c.conf...)
			r := e.do("POST", "/oozie/v2/jobs"+c.query, "application/xml", confXML(kv...))
			if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
				t.Fatalf("%d %s %q, want %d %s", r.status, r.header.Get("oozie-error-code"), r.header.Get("oozie-error-message"), c.status, c.code)
			}
			if c.code == "E0303" {
				msg := r.header.Get("oozie-error-message")
				for _, want := range []string{"[bob]", "[joe]", "gozie.authentication.simple.strict.user"} {
					if !strings.Contains(msg, want) {
						t.Errorf("refusal %q does not name %s", msg, want)
					}
				}
			}
			if c.status != 201 {
				return
			}
			id := r.json(t)["id"].(string)
			info := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)
			if info["user"] != c.owner {
				t.Errorf("owner %v, want %s", info["user"], c.owner)
			}
			if !strings.Contains(info["conf"].(string), "<value>"+c.owner+"</value>") {
				t.Errorf("conf does not name %s:\n%s", c.owner, info["conf"])
			}
			log := string(e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", "").body)
			if c.logLine != "" && !strings.Contains(log, c.logLine) {
				t.Errorf("job log lacks %q:\n%s", c.logLine, log)
			}
			if c.logLine == "" && strings.Contains(log, "replaced by") {
				t.Errorf("job log reports a replacement:\n%s", log)
			}
		})
	}
}

// TestAdminsOutOfTheBox: authorization stays on, but the OS user running
// the server is an admin without any configuration; a refused admin call
// names the keys that grant it, and a request without a user may read but
// not change a job (401 with an Oozie code the client prints).
func TestAdminsOutOfTheBox(t *testing.T) {
	dir := t.TempDir()
	cfg, err := LoadConfig("", func(k string) string { return map[string]string{"GOZIE_DATA": dir}[k] })
	if err != nil {
		t.Fatal(err)
	}
	opts, err := AuthFromConfig(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := serverUser(); opts.ServerUser != want || want == "" || !opts.Authorization {
		t.Fatalf("ServerUser %q (OS user %q), authorization %v", opts.ServerUser, want, opts.Authorization)
	}

	e := newEnv(t, func(a *AuthOptions) { a.ServerUser = "srv"; a.AdminUsers = []string{"root"} })
	id := e.submit("joe", "", "oozie.wf.application.path", e.app("adm"))
	cases := []struct {
		name, method, path string
		status             int
		code, msgHas       string
	}{
		{"server user sets the system mode", "PUT", "/oozie/v2/admin/status?systemmode=NORMAL&user.name=srv", 200, "", ""},
		{"gozie.admin.users too", "PUT", "/oozie/v2/admin/status?systemmode=NORMAL&user.name=root", 200, "", ""},
		{"others are told which key", "PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=joe", 401, "E0503", "gozie.admin.users"},
		{"the refusal names the server user", "PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=joe", 401, "E0503", "[srv]"},
		{"server user reads admin configuration", "GET", "/oozie/v2/admin/configuration?user.name=srv", 200, "", ""},
		{"server user kills any job", "PUT", "/oozie/v2/job/" + id + "?action=kill&user.name=srv", 200, "", ""},
		{"anonymous reads a job", "GET", "/oozie/v2/job/" + id, 200, "", ""},
		{"anonymous may not start a job", "PUT", "/oozie/v2/job/" + id + "?action=start", 401, "E0500", "user.name"},
		{"anonymous may not set the system mode", "PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE", 401, "E0500", "user.name"},
		{"a stranger may not kill", "PUT", "/oozie/v2/job/" + id + "?action=kill&user.name=bob", 401, "E0508", "bob"},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, "", "")
		if r.status != c.status || r.header.Get("oozie-error-code") != c.code || !strings.Contains(r.header.Get("oozie-error-message"), c.msgHas) {
			t.Errorf("%s: %d %s %q, want %d %s containing %q", c.name, r.status, r.header.Get("oozie-error-code"),
				r.header.Get("oozie-error-message"), c.status, c.code, c.msgHas)
		}
	}
}

// TestPlainOozieClientRerun: the plain OozieClient (no handshake) names its
// user only with the user parameter of submissions and reruns; with simple
// authentication it identifies the caller of a rerun, and start or kill
// without any user stays refused with a code.
func TestPlainOozieClientRerun(t *testing.T) {
	e := newEnv(t)
	app := e.app("plain")
	r := e.do("POST", "/oozie/v2/jobs?action=start&user=joe", "application/xml", confXML("user.name", "joe", "oozie.wf.application.path", app))
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	id := r.json(t)["id"].(string)
	e.waitStatus(id, "SUCCEEDED")
	cases := []struct {
		name, query string
		status      int
		code        string
	}{
		{"kill without a user", "?action=kill", 401, "E0500"},
		{"rerun by another user", "?action=rerun&user=bob", 401, "E0508"},
		{"rerun with a bad user", "?action=rerun&user=a%26b", 400, "E0303"},
		{"rerun by the owner", "?action=rerun&user=joe", 200, ""},
	}
	for _, c := range cases {
		r := e.do("PUT", "/oozie/v2/job/"+id+c.query, "application/xml", confXML("oozie.wf.rerun.failnodes", "false"))
		if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
			t.Errorf("%s: %d %s %q, want %d %s", c.name, r.status, r.header.Get("oozie-error-code"), r.header.Get("oozie-error-message"), c.status, c.code)
		}
	}
	strict := newEnv(t, func(a *AuthOptions) { a.StrictSimpleUser = true })
	if r := strict.do("PUT", "/oozie/v2/job/"+id+"?action=rerun&user=joe", "application/xml", "<configuration/>"); r.status != 401 || r.header.Get("oozie-error-code") != "E0500" {
		t.Errorf("strict rerun with user=: %d %s", r.status, r.body)
	}
}
