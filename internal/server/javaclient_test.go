package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The key types of Oozie's JSON beans as its Java client reads them
// (JsonWorkflowJob, JsonWorkflowAction, JsonCoordinatorJob,
// JsonCoordinatorAction through JsonToBean; rest-api.md 5): "S" a string
// or null, "E" a string, "D" a date string (EEE, dd MMM yyyy HH:mm:ss zzz)
// or null, "I" an integer written without a fraction (json-simple must
// parse it as a Long), "A" an array.
var (
	beanWorkflowJob = map[string]string{"id": "E", "appName": "S", "appPath": "S", "externalId": "S", "parentId": "S",
		"conf": "S", "status": "E", "lastModTime": "D", "createdTime": "D", "startTime": "D", "endTime": "D",
		"user": "S", "group": "S", "acl": "S", "run": "I", "consoleUrl": "S", "actions": "A", "toString": "S"}
	beanWorkflowAction = map[string]string{"id": "E", "name": "E", "cred": "S", "type": "E", "conf": "S", "status": "E",
		"retries": "I", "startTime": "D", "endTime": "D", "transition": "S", "data": "S", "stats": "S",
		"externalChildIDs": "S", "externalId": "S", "externalStatus": "S", "trackerUri": "S", "consoleUrl": "S",
		"errorCode": "S", "errorMessage": "S", "userRetryInterval": "I", "userRetryCount": "I", "userRetryMax": "I",
		"toString": "S"}
	beanCoordJob = map[string]string{"coordJobId": "E", "coordJobName": "S", "coordJobPath": "S", "coordExternalId": "S",
		"bundleId": "S", "conf": "S", "status": "E", "executionPolicy": "S", "frequency": "S", "timeUnit": "S",
		"timeZone": "S", "concurrency": "I", "timeOut": "I", "lastAction": "D", "nextMaterializedTime": "D",
		"createdTime": "D", "startTime": "D", "endTime": "D", "pauseTime": "D", "user": "S", "group": "S", "acl": "S",
		"consoleUrl": "S", "mat_throttling": "I", "actions": "A", "total": "I", "toString": "S"}
	beanCoordAction = map[string]string{"id": "E", "coordJobId": "E", "type": "S", "actionNumber": "I", "createdConf": "S",
		"createdTime": "D", "nominalTime": "D", "lastModifiedTime": "D", "externalId": "S", "status": "E", "runConf": "S",
		"missingDependencies": "S", "pushMissingDependencies": "S", "externalStatus": "S", "trackerUri": "S",
		"consoleUrl": "S", "errorCode": "S", "errorMessage": "S", "toString": "S"}
	beanRetry = map[string]string{"attempt": "E", "startTime": "D", "endTime": "D", "consoleUrl": "E", "externalChildIDs": "E"}
)

// javaClient sends requests as Oozie's AuthOozieClient does: the
// pseudo-authentication handshake, then its cookie on every request.
type javaClient struct {
	t      *testing.T
	base   string // http://host/oozie
	cookie string
}

func (c *javaClient) send(method, path, ctype, body string) (int, http.Header, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// call sends a request and decodes the JSON answer, numbers kept as
// written, after checking the status.
func (c *javaClient) call(method, path, ctype, body string, want int) any {
	c.t.Helper()
	st, h, b := c.send(method, path, ctype, body)
	if st != want {
		c.t.Fatalf("%s %s: %d %s %s, want %d", method, path, st, h.Get("oozie-error-code"), b, want)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		c.t.Fatalf("%s %s: %q is not JSON: %v", method, path, b, err)
	}
	return v
}

// checkBean checks that an object has every key of a bean with the type
// the client casts it to.
func checkBean(t *testing.T, what string, v any, bean map[string]string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %T, want an object", what, v)
	}
	for k, typ := range bean {
		x, has := m[k]
		if !has {
			if typ == "S" || typ == "D" || what == "retry" {
				// JsonToBean reads an absent key as null; show=retries
				// leaves absent values out.
				continue
			}
			t.Errorf("%s: no key %q", what, k)
			continue
		}
		okType := false
		switch typ {
		case "S":
			_, isStr := x.(string)
			okType = x == nil || isStr
		case "E":
			_, okType = x.(string)
		case "D":
			s, isStr := x.(string)
			if x == nil {
				okType = true
			} else if isStr {
				_, err := time.Parse(time.RFC1123, s)
				okType = err == nil
			}
		case "I":
			n, isNum := x.(json.Number)
			okType = isNum && !strings.ContainsAny(n.String(), ".eE")
		case "A":
			_, okType = x.([]any)
		}
		if !okType {
			t.Errorf("%s: %s = %#v, want type %s", what, k, x, typ)
		}
	}
	return m
}

// TestJavaClientSequences drives the REST API through the requests Oozie's
// Java client sends, in its order, and checks each answer as its JSON
// beans read it: the handshake, submit, info, paging, the jobs list,
// rerun, coordinator info, change, kill and ignore of actions, update, and
// retries.
func TestJavaClientSequences(t *testing.T) {
	e := newEnv(t)
	c := &javaClient{t: t, base: e.base}
	const xmlCT = "application/xml;charset=UTF-8"

	// Handshake (rest-api.md 0.2): OPTIONS without a user, then with
	// user.name, whose cookie goes with every later request; then the
	// versions check.
	if st, h, _ := c.send("OPTIONS", "/versions", "", ""); st != 200 || strings.Contains(h.Get("WWW-Authenticate"), "Negotiate") {
		t.Fatalf("first OPTIONS: %d %v", st, h)
	}
	st, h, _ := c.send("OPTIONS", "/versions?user.name=joe", "", "")
	sc := h.Get("Set-Cookie")
	if st != 200 || !strings.HasPrefix(sc, `hadoop.auth="u=joe&p=joe&t=simple&e=`) {
		t.Fatalf("OPTIONS with user.name: %d %q", st, sc)
	}
	c.cookie = strings.SplitN(sc, ";", 2)[0]
	versions, ok := c.call("GET", "/versions", "", "", 200).([]any)
	if !ok || len(versions) == 0 || versions[len(versions)-1] != json.Number("2") {
		t.Fatalf("versions %v", versions)
	}

	// Submit and run: POST jobs?user=<os user> with the configuration,
	// whose user.name the client sets (createConfiguration).
	app := e.writeWF("java-client", fmt.Sprintf(`<start to="a"/>
  <action name="a" retry-max="1" retry-interval="0"><fs><chmod path="%s/missing*" permissions="755"/></fs><ok to="b"/><error to="b"/></action>
  <action name="b"><fs><mkdir path="%s/out-b"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/>`, e.dir, e.dir))
	sub := c.call("POST", "/v2/jobs?action=start&user=joe", xmlCT, confXML("user.name", "joe", "oozie.wf.application.path", app), 201)
	id, _ := sub.(map[string]any)["id"].(string)
	if !strings.HasSuffix(id, "-W") {
		t.Fatalf("submit answer %v", sub)
	}
	e.waitStatus(id, "SUCCEEDED")

	// Info as `oozie job -info` asks it (offset 0, len 0: every action).
	job := checkBean(t, "workflow job", c.call("GET", "/v2/job/"+id+"?show=info&offset=0&len=0&timezone=GMT", "", "", 200), beanWorkflowJob)
	acts := job["actions"].([]any)
	if len(acts) < 3 {
		t.Fatalf("actions %v", acts)
	}
	for i, a := range acts {
		checkBean(t, fmt.Sprintf("action %d", i), a, beanWorkflowAction)
	}
	// Paging: offset is 1-based, len counts actions.
	page := c.call("GET", "/v2/job/"+id+"?show=info&offset=2&len=1", "", "", 200).(map[string]any)["actions"].([]any)
	if len(page) != 1 || page[0].(map[string]any)["id"] != acts[1].(map[string]any)["id"] {
		t.Errorf("page offset=2 len=1: %v", page)
	}
	// One action (-info <id>@a).
	checkBean(t, "action a", c.call("GET", "/v2/job/"+id+"@a?show=info", "", "", 200), beanWorkflowAction)

	// The jobs list the client pages through (jobs -filter -offset -len).
	list := c.call("GET", "/v2/jobs?filter="+url.QueryEscape("user=joe")+"&offset=1&len=1&jobtype=wf", "", "", 200).(map[string]any)
	checkBean(t, "jobs list", list, map[string]string{"workflows": "A", "total": "I", "offset": "I", "len": "I"})
	if wfs := list["workflows"].([]any); len(wfs) != 1 {
		t.Errorf("len=1 listed %d jobs", len(wfs))
	} else {
		checkBean(t, "listed job", wfs[0], beanWorkflowJob)
	}

	// Retries (job -retries): one entry per user retry of a.
	retries := c.call("GET", "/v2/job/"+id+"@a?show=retries", "", "", 200).(map[string]any)["retries"].([]any)
	if len(retries) != 1 {
		t.Fatalf("retries %v", retries)
	}
	checkBean(t, "retry", retries[0], beanRetry)

	// Rerun (job -rerun <id> -config): PUT with the configuration and the
	// client's user parameter; run counts up.
	c.call("PUT", "/v2/job/"+id+"?action=rerun&user=joe", xmlCT,
		confXML("user.name", "joe", "oozie.wf.application.path", app, "oozie.wf.rerun.failnodes", "false"), 200)
	e.waitStatus(id, "SUCCEEDED")
	if run := c.call("GET", "/v2/job/"+id+"?show=info", "", "", 200).(map[string]any)["run"]; run != json.Number("1") {
		t.Errorf("run after rerun = %v", run)
	}

	// Coordinator: submit, info as -info asks it (offset -1, len -1),
	// change, kill and ignore an action, update.
	capp := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", capp)
	props := []string{"user.name", "joe", "oozie.coord.application.path", capp, "appDir", capp, "nameNode", "file:///",
		"jobTracker", "local", "queueName", "default"}
	cid := c.call("POST", "/v2/jobs?user=joe", xmlCT, confXML(props...), 201).(map[string]any)["id"].(string)
	e.waitStatus(cid+"@1", "SUCCEEDED")
	coord := checkBean(t, "coordinator job", c.call("GET", "/v2/job/"+cid+"?show=info&offset=-1&len=-1", "", "", 200), beanCoordJob)
	cacts := coord["actions"].([]any)
	if len(cacts) == 0 {
		t.Fatalf("coordinator actions %v", coord)
	}
	for i, a := range cacts {
		checkBean(t, fmt.Sprintf("coordinator action %d", i), a, beanCoordAction)
	}
	checkBean(t, "coordinator action 1", c.call("GET", "/v2/job/"+cid+"@1?show=info", "", "", 200), beanCoordAction)
	if v := c.call("PUT", "/v2/job/"+cid+"?action=change&value="+url.QueryEscape("concurrency=3"), "", "", 200); v != nil {
		t.Errorf("change answered %v", v)
	}
	killed := c.call("PUT", "/v2/job/"+cid+"?action=kill&type=action&scope=2", "", "", 200).(map[string]any)["actions"].([]any)
	for _, a := range killed {
		checkBean(t, "killed action", a, beanCoordAction)
	}
	ignored := c.call("PUT", "/v2/job/"+cid+"?action=ignore&type=action&scope=2", "", "", 200).(map[string]any)["actions"].([]any)
	if len(ignored) != 1 || checkBean(t, "ignored action", ignored[0], beanCoordAction)["status"] != "IGNORED" {
		t.Errorf("ignore answered %v", ignored)
	}
	// -update without -config sends an empty configuration and empty
	// dryrun/diff values.
	upd := c.call("PUT", "/v2/job/"+cid+"?action=update&dryrun=&diff=", xmlCT, "<configuration/>", 200).(map[string]any)
	diff, _ := upd["update"].(map[string]any)["diff"].(string)
	if !strings.HasPrefix(diff, "**********Job definition changes**********") {
		t.Errorf("update answered %v", upd)
	}
}
