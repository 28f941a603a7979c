package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
)

var update = flag.Bool("update", false, "rewrite the golden files of the remote command tests")

// reply is a canned server answer: a JSON file under testdata/golden/server,
// or a literal body, with a status and extra headers.
type reply struct {
	status int
	file   string
	body   string
	header map[string]string
}

// seen is one request the fake server received.
type seen struct {
	method, path, query, ctype, cookie, auth string
	body                                     string
}

// fakeOozie answers /versions, the OPTIONS handshake and the routes of one
// test. Routes are keyed "METHOD /path?query" with the query in
// url.Values.Encode order (sorted, URL-encoded), so that a route matching is
// itself the check of the request's shape.
type fakeOozie struct {
	t      *testing.T
	routes map[string]reply
	mu     sync.Mutex
	hits   map[string]int
	reqs   []seen
}

func newFakeOozie(t *testing.T, routes map[string]reply) (*fakeOozie, string) {
	f := &fakeOozie{t: t, routes: routes, hits: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL + "/oozie"
}

func (f *fakeOozie) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	q := r.URL.Query()
	if r.Method == http.MethodOptions {
		if u := q.Get("user.name"); u != "" {
			w.Header().Add("Set-Cookie", `hadoop.auth="u=`+u+`&p=`+u+`&t=simple&e=9999999999999&s=sig"; Path=/; HttpOnly`)
		}
		return
	}
	if r.URL.Path == "/oozie/versions" {
		fmt.Fprint(w, "[0,1,2]")
		return
	}
	key := r.Method + " " + r.URL.Path
	if len(q) > 0 {
		key += "?" + q.Encode()
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, seen{method: r.Method, path: r.URL.Path, query: q.Encode(), ctype: r.Header.Get("Content-Type"),
		cookie: r.Header.Get("Cookie"), auth: r.Header.Get("Authorization"), body: string(body)})
	f.hits[key]++
	f.mu.Unlock()
	rep, ok := f.routes[key]
	if !ok {
		f.t.Errorf("unexpected request %s", key)
		w.Header().Set("oozie-error-code", "E0301")
		w.Header().Set("oozie-error-message", "E0301: Invalid resource ["+key+"]")
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	data := []byte(rep.body)
	if rep.file != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", "golden", "server", rep.file)); err != nil {
			f.t.Fatal(err)
		}
	}
	w.WriteHeader(status)
	w.Write(data)
}

// checkAllHit fails the test for every route the command did not call.
func (f *fakeOozie) checkAllHit() {
	f.t.Helper()
	var missed []string
	for k := range f.routes {
		if f.hits[k] == 0 {
			missed = append(missed, k)
		}
	}
	sort.Strings(missed)
	for _, k := range missed {
		f.t.Errorf("expected request not made: %s", k)
	}
}

// pinEnv makes the remote commands independent of the caller's
// environment: no OOZIE_* variables, user "tester", local zone UTC.
func pinEnv(t *testing.T) {
	for _, k := range []string{"OOZIE_URL", "OOZIE_TIMEZONE", "OOZIE_AUTH", "GOZIE_TOKEN", "OOZIE_DEBUG"} {
		t.Setenv(k, "")
	}
	t.Setenv("USER", "tester")
	old, oldSleep := localZone, retrySleep
	localZone = func() *time.Location { return time.UTC }
	retrySleep = func(time.Duration) { t.Error("unexpected retry wait") }
	t.Cleanup(func() { localZone, retrySleep = old, oldSleep })
}

const (
	wfID    = "0000001-260101000000000-oozie-root-W"
	coordID = "0000003-260101000000000-oozie-root-C"
	bundle  = "0000005-260101000000000-oozie-root-B"
)

// remoteCase is one golden-output test: the command line (without -oozie),
// the server routes it must call, its exit status and its stderr.
type remoteCase struct {
	name   string
	args   []string
	routes map[string]reply
	code   int
	stderr string
}

func infoKey(id, extra string) string { return "GET /oozie/v2/job/" + id + "?" + extra }

var remoteCases = []remoteCase{
	{name: "job-info-wf", args: []string{"job", "-info", wfID},
		routes: map[string]reply{infoKey(wfID, "len=0&offset=0&show=info"): {file: "wf-job.json"}}},
	{name: "job-info-wf-verbose-tz", args: []string{"job", "-info", wfID, "-verbose", "-timezone", "America/Los_Angeles"},
		routes: map[string]reply{infoKey(wfID, "len=0&offset=0&show=info"): {file: "wf-job.json"}}},
	{name: "job-info-wf-noactions-offset", args: []string{"job", "-info", "0000002-260101000000000-oozie-root-W", "-offset", "2", "-len", "5", "-timezone", "GMT+05:30"},
		routes: map[string]reply{infoKey("0000002-260101000000000-oozie-root-W", "len=5&offset=2&show=info"): {file: "wf-job-running.json"}}},
	{name: "job-info-doas", args: []string{"job", "-info", wfID, "-doas", "bob"},
		routes: map[string]reply{infoKey(wfID, "doAs=bob&len=0&offset=0&show=info"): {file: "wf-job-running.json"}}},
	{name: "job-info-wf-action", args: []string{"job", "-info", wfID + "@mkdir"},
		routes: map[string]reply{infoKey(wfID+"@mkdir", "show=info"): {file: "wf-action.json"}}},
	{name: "job-info-wf-action-verbose", args: []string{"job", "-info", wfID + "@mkdir", "-verbose"},
		routes: map[string]reply{infoKey(wfID+"@mkdir", "show=info"): {file: "wf-action.json"}}},
	{name: "job-info-coord", args: []string{"job", "-info", coordID},
		routes: map[string]reply{infoKey(coordID, "len=-1&offset=-1&show=info"): {file: "coord-job.json"}}},
	{name: "job-info-coord-verbose-filter", args: []string{"job", "-info", coordID, "-verbose", "-filter", "status!=SUCCEEDED", "-order", "desc", "-len", "10"},
		routes: map[string]reply{infoKey(coordID, "filter=status%21%3DSUCCEEDED&len=10&offset=-1&order=desc&show=info"): {file: "coord-job.json"}}},
	{name: "job-info-coord-action", args: []string{"job", "-info", coordID + "@2"},
		routes: map[string]reply{infoKey(coordID+"@2", "show=info"): {file: "coord-action.json"}}},
	{name: "job-info-allruns", args: []string{"job", "-info", coordID + "@1", "-allruns"},
		routes: map[string]reply{infoKey(coordID+"@1", "show=allruns"): {file: "allruns.json"}}},
	{name: "job-info-bundle", args: []string{"job", "-info", bundle},
		routes: map[string]reply{infoKey(bundle, "show=info"): {file: "bundle-job.json"}}},
	{name: "job-info-json", args: []string{"job", "-info", coordID + "@2", "-json"},
		routes: map[string]reply{infoKey(coordID+"@2", "show=info"): {file: "coord-action.json"}}},
	{name: "job-info-not-found", args: []string{"job", "-info", "0000099-260101000000000-oozie-root-W"}, code: 255,
		stderr: "Error: E0604 : E0604: Job does not exist [0000099-260101000000000-oozie-root-W]\n",
		routes: map[string]reply{infoKey("0000099-260101000000000-oozie-root-W", "len=0&offset=0&show=info"): {status: 400,
			header: map[string]string{"oozie-error-code": "E0604", "oozie-error-message": "E0604: Job does not exist [0000099-260101000000000-oozie-root-W]"}}}},
	{name: "job-info-bare-404", args: []string{"job", "-info", wfID}, code: 255,
		stderr: "Error: HTTP error code: 404 : Not Found\n",
		routes: map[string]reply{infoKey(wfID, "len=0&offset=0&show=info"): {status: 404}}},
	{name: "job-info-bundle-filter", args: []string{"job", "-info", bundle, "-filter", "status=RUNNING"}, code: 255,
		stderr: "Error: Filter option is currently not supported for a Bundle job\n"},
	{name: "job-kill", args: []string{"job", "-kill", wfID},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=kill": {}}},
	{name: "job-suspend", args: []string{"job", "-suspend", wfID},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=suspend": {}}},
	{name: "job-resume", args: []string{"job", "-resume", wfID},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=resume": {}}},
	{name: "job-start", args: []string{"job", "-start", wfID},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=start": {}}},
	{name: "job-change", args: []string{"job", "-change", coordID, "-value", "endtime=2026-02-01T00:00Z;concurrency=2"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=change&value=endtime%3D2026-02-01T00%3A00Z%3Bconcurrency%3D2": {}}},
	{name: "job-change-no-value", args: []string{"job", "-change", coordID}, code: 255,
		stderr: "Error: -value option needs to be specified for -change option\n"},
	{name: "job-kill-coord-range", args: []string{"job", "-kill", coordID, "-action", "1-2"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=kill&scope=1-2&type=action": {file: "coord-actions.json"}}},
	{name: "job-kill-coord-both", args: []string{"job", "-kill", coordID, "-action", "1", "-date", "2026-01-01T00:00Z"}, code: 255,
		stderr: "Error: Invalid options provided for kill: either -date or -action expected. Don't use both at the same time.\n"},
	{name: "job-rerun-coord", args: []string{"job", "-rerun", coordID, "-date", "2026-01-01T00:00Z::2026-01-01T01:00Z", "-refresh"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=coord-rerun&failed=false&nocleanup=false&refresh=true&scope=2026-01-01T00%3A00Z%3A%3A2026-01-01T01%3A00Z&type=date": {body: `{"actions":[]}`}}},
	{name: "job-rerun-bundle", args: []string{"job", "-rerun", bundle, "-coordinator", "daily", "-date", "2026-01-01T00:00Z"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=bundle-rerun&coord-scope=daily&date-scope=2026-01-01T00%3A00Z&nocleanup=false&refresh=false": {}}},
	{name: "job-rerun-bundle-all", args: []string{"job", "-rerun", bundle, "-date", "2026-01-01T00:00Z::2026-01-02T00:00Z", "-refresh", "-nocleanup"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=bundle-rerun&date-scope=2026-01-01T00%3A00Z%3A%3A2026-01-02T00%3A00Z&nocleanup=true&refresh=true": {}}},
	{name: "job-rerun-bundle-action", args: []string{"job", "-rerun", bundle, "-action", "1"}, code: 255,
		stderr: "Error: Invalid options provided for bundle rerun. -action is not valid, use -date and/or -coordinator\n"},
	{name: "job-change-bundle", args: []string{"job", "-change", bundle, "-value", "endtime=2026-02-01T00:00Z;pausetime="},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=change&value=endtime%3D2026-02-01T00%3A00Z%3Bpausetime%3D": {}}},
	{name: "job-change-bundle-refused", args: []string{"job", "-change", bundle, "-value", "concurrency=2"}, code: 255,
		stderr: "Error: E1317 : E1317: Invalid bundle job change value [concurrency=2]\n",
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=change&value=concurrency%3D2": {status: 400,
			header: map[string]string{"oozie-error-code": "E1317", "oozie-error-message": "E1317: Invalid bundle job change value [concurrency=2]"}}}},
	{name: "job-start-bundle", args: []string{"job", "-start", bundle},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=start": {}}},
	{name: "job-suspend-bundle", args: []string{"job", "-suspend", bundle},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=suspend": {}}},
	{name: "job-kill-bundle", args: []string{"job", "-kill", bundle},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=kill": {}}},
	{name: "job-info-bundle-verbose-tz", args: []string{"job", "-info", bundle, "-verbose", "-timezone", "America/Los_Angeles"},
		routes: map[string]reply{infoKey(bundle, "show=info"): {file: "bundle-job.json"}}},
	{name: "job-definition-bundle", args: []string{"job", "-definition", bundle},
		routes: map[string]reply{infoKey(bundle, "show=definition"): {body: `<bundle-app name="daily-bundle" xmlns="uri:oozie:bundle:0.2"/>`}}},
	{name: "job-configcontent-bundle", args: []string{"job", "-configcontent", bundle},
		routes: map[string]reply{infoKey(bundle, "show=info"): {file: "bundle-job.json"}}},
	{name: "job-log-bundle", args: []string{"job", "-log", bundle},
		routes: map[string]reply{infoKey(bundle, "show=log"): {body: "2026-01-01 00:00:00,000 INFO BundleStartXCommand:520 - USER[root] GROUP[-] TOKEN[-] APP[daily-bundle] JOB[" + bundle + "] ACTION[-] started\n"}}},
	{name: "job-poll-bundle-verbose", args: []string{"job", "-poll", bundle, "-verbose"},
		routes: map[string]reply{infoKey(bundle, "show=status"): {body: `{"status":"DONEWITHERROR"}`}}},
	{name: "job-ignore", args: []string{"job", "-ignore", coordID, "-action", "1-2"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=ignore&scope=1-2&type=action": {file: "coord-actions.json"}}},
	{name: "job-definition", args: []string{"job", "-definition", wfID},
		routes: map[string]reply{infoKey(wfID, "show=definition"): {body: `<workflow-app name="fs-demo" xmlns="uri:oozie:workflow:1.0"/>`}}},
	{name: "job-log", args: []string{"job", "-log", coordID, "-action", "1", "-logfilter", "loglevel=ERROR;limit=3"},
		routes: map[string]reply{infoKey(coordID, "logfilter=loglevel%3DERROR%3Blimit%3D3&scope=1&show=log&type=action"): {body: "2026-01-01 00:00:00,000 ERROR x\n"}}},
	{name: "job-log-wf-action-flag", args: []string{"job", "-log", wfID, "-action", "1"}, code: 255,
		stderr: "Error: Invalid options provided for log retrieval. -action and -date are valid only for coordinator job log retrieval\n"},
	{name: "job-graph-dot", args: []string{"job", "-graph", wfID, "-format", "dot"},
		routes: map[string]reply{infoKey(wfID, "format=dot&show=graph"): {body: "digraph {\n}\n"}}},
	{name: "job-graph-layout", args: []string{"job", "-graph", wfID, "-layout", "WRAP"},
		routes: map[string]reply{infoKey(wfID, "format=svg&layout=wrap&show=graph"): {body: "<svg/>\n"}}},
	{name: "job-configcontent", args: []string{"job", "-configcontent", wfID},
		routes: map[string]reply{infoKey(wfID, "len=0&offset=0&show=info"): {file: "wf-job.json"}}},
	{name: "job-configcontent-bad-id", args: []string{"job", "-configcontent", "abc"}},
	{name: "job-poll-verbose", args: []string{"job", "-poll", wfID, "-verbose"},
		routes: map[string]reply{infoKey(wfID, "show=status"): {body: `{"status":"SUCCEEDED"}`}}},
	{name: "job-no-action", args: []string{"job", "-oozie", "http://x"}, code: 255,
		stderr: "Invalid sub-command: Missing required option: one of -" + strings.Join(jobActions, ", -") + "\n\nuse 'help [sub-command]' for help details\n"},
	{name: "job-two-actions", args: []string{"job", "-info", wfID, "-kill", wfID}, code: 255,
		stderr: "Invalid sub-command: The option 'kill' was specified but an option from this group has already been selected: 'info'\n\nuse 'help [sub-command]' for help details\n"},
	{name: "job-empty-id", args: []string{"job", "-info", " "}, code: 255,
		stderr: "Invalid sub-command: Missing argument for option: info\n\nuse 'help [sub-command]' for help details\n"},
	{name: "job-submit-false", args: []string{"job", "-submit=false", "-info", wfID},
		routes: map[string]reply{infoKey(wfID, "len=0&offset=0&show=info"): {file: "wf-job-running.json"}}},
	{name: "job-bad-flag", args: []string{"job", "-nosuch"}, code: 255,
		stderr: "Invalid sub-command: flag provided but not defined: -nosuch\n\nuse 'help [sub-command]' for help details\n"},
	{name: "job-submit-no-config", args: []string{"job", "-submit"}, code: 255,
		stderr: "Error: configuration is not specified\n"},
	{name: "job-submit-missing-config", args: []string{"job", "-submit", "-config", "testdata/none.properties"}, code: 255,
		stderr: "Error: configuration file [testdata/none.properties] not found\n"},
	{name: "job-submit-bad-ext", args: []string{"job", "-submit", "-config", "testdata/cycle.txt"}, code: 255,
		stderr: "Error: configuration must be a '.properties' or a '.xml' file\n"},
	{name: "job-update-dryrun", args: []string{"job", "-update", coordID, "-dryrun"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=update&diff=&dryrun=true": {body: `{"update":{"diff":"**********Job definition changes**********\n**********Job conf changes**********"}}`}}},
	{name: "job-missingdeps", args: []string{"job", "-missingdeps", coordID, "-action", "2"},
		routes: map[string]reply{infoKey(coordID, "action-list=2&show=missing-dependencies"): {file: "missingdeps.json"}}},
	{name: "job-slaenable", args: []string{"job", "-slaenable", coordID, "-action", "1-2"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=sla-enable&action-list=1-2": {}}},
	{name: "job-slachange", args: []string{"job", "-slachange", wfID, "-value", "sla-max-duration=30"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=sla-change&value=sla-max-duration%3D30": {}}},
	{name: "job-retries", args: []string{"job", "-retries", wfID + "@mkdir"},
		routes: map[string]reply{infoKey(wfID+"@mkdir", "show=retries"): {file: "retries.json"}}},
	{name: "job-help", args: []string{"job", "-help"}},
	{name: "jobs-bundle-verbose", args: []string{"jobs", "-jobtype", "bundle", "-verbose", "-localtime"},
		routes: map[string]reply{"GET /oozie/v2/jobs?jobtype=bundle&len=0&offset=0": {file: "jobs-bundle.json"}}},
	{name: "jobs-bulk-monitor", args: []string{"jobs", "-bulk", "bundle=daily-bundle;actionstatus=KILLED"},
		routes: map[string]reply{"GET /oozie/v2/jobs?bulk=bundle%3Ddaily-bundle%3Bactionstatus%3DKILLED&len=0&offset=0": {file: "bulk.json"}}},
	{name: "jobs-bulk-monitor-verbose", args: []string{"jobs", "-bulk", "bundle=daily-bundle", "-verbose"},
		routes: map[string]reply{"GET /oozie/v2/jobs?bulk=bundle%3Ddaily-bundle&len=0&offset=0": {file: "bulk.json"}}},
	{name: "jobs-bad-jobtype", args: []string{"jobs", "-jobtype", "pig"}, code: 255,
		stderr: "Error: Invalid jobtype [pig]: expected wf, coordinator or bundle\n"},
	{name: "jobs-wf", args: []string{"jobs"},
		routes: map[string]reply{"GET /oozie/v2/jobs?jobtype=wf&len=0&offset=0": {file: "jobs-wf.json"}}},
	{name: "jobs-wf-verbose", args: []string{"jobs", "-verbose", "-filter", "user=alice;status=RUNNING", "-len", "10", "-offset", "2"},
		routes: map[string]reply{"GET /oozie/v2/jobs?filter=user%3Dalice%3Bstatus%3DRUNNING&jobtype=wf&len=10&offset=2": {file: "jobs-wf.json"}}},
	{name: "jobs-coord", args: []string{"jobs", "-jobtype", "coordinator"},
		routes: map[string]reply{"GET /oozie/v2/jobs?jobtype=coord&len=0&offset=0": {file: "jobs-coord.json"}}},
	{name: "jobs-coord-verbose", args: []string{"jobs", "-jobtype", "COORD", "-verbose"},
		routes: map[string]reply{"GET /oozie/v2/jobs?jobtype=coord&len=0&offset=0": {file: "jobs-coord.json"}}},
	{name: "jobs-bundle", args: []string{"jobs", "-jobtype", "bundle"},
		routes: map[string]reply{"GET /oozie/v2/jobs?jobtype=bundle&len=0&offset=0": {file: "jobs-bundle.json"}}},
	{name: "jobs-empty", args: []string{"jobs", "-filter", "name=none"},
		routes: map[string]reply{"GET /oozie/v2/jobs?filter=name%3Dnone&jobtype=wf&len=0&offset=0": {file: "jobs-empty.json"}}},
	{name: "jobs-bulk-kill", args: []string{"jobs", "-kill", "-filter", "user=alice"},
		routes: map[string]reply{"PUT /oozie/v2/jobs?action=kill&filter=user%3Dalice&jobtype=wf&len=0&offset=0": {file: "bulk-kill.json"}}},
	{name: "jobs-bulk-suspend-none", args: []string{"jobs", "-suspend", "-filter", "user=bob", "-jobtype", "WF"},
		routes: map[string]reply{"PUT /oozie/v2/jobs?action=suspend&filter=user%3Dbob&jobtype=WF&len=0&offset=0": {body: `{"coordinatorjobs":[],"total":0,"offset":1,"len":50,"ids":[]}`}}},
	{name: "admin-status", args: []string{"admin", "-status"},
		routes: map[string]reply{"GET /oozie/v2/admin/status": {body: `{"systemMode":"NORMAL"}`}}},
	{name: "admin-systemmode", args: []string{"admin", "-systemmode", "safemode"},
		routes: map[string]reply{"PUT /oozie/v2/admin/status?systemmode=SAFEMODE": {}}},
	{name: "admin-systemmode-bad", args: []string{"admin", "-systemmode", "off"}, code: 255,
		stderr: "Error: Invalid input provided for option: systemmode value given :OFF Expected values are: NORMAL/NOWEBSERVICE/SAFEMODE \n"},
	{name: "admin-version", args: []string{"admin", "-version"},
		routes: map[string]reply{"GET /oozie/v2/admin/build-version": {file: "build-version.json"}}},
	{name: "admin-queuedump", args: []string{"admin", "-queuedump"},
		routes: map[string]reply{"GET /oozie/v2/admin/queue-dump": {file: "queue-dump.json"}}},
	{name: "admin-configuration", args: []string{"admin", "-configuration"},
		routes: map[string]reply{"GET /oozie/v2/admin/configuration": {file: "configuration.json"}}},
	{name: "admin-osenv-json", args: []string{"admin", "-osenv", "-json"},
		routes: map[string]reply{"GET /oozie/v2/admin/os-env": {body: `{"HOME":"/root"}`}}},
	{name: "admin-metrics", args: []string{"admin", "-metrics"},
		routes: map[string]reply{"GET /oozie/v2/admin/metrics": {file: "metrics.json"}}},
	{name: "admin-metrics-unavailable", args: []string{"admin", "-metrics"},
		routes: map[string]reply{"GET /oozie/v2/admin/metrics": {status: 503}}},
	{name: "admin-instrumentation", args: []string{"admin", "-instrumentation"},
		routes: map[string]reply{"GET /oozie/v2/admin/instrumentation": {file: "instrumentation.json"}}},
	{name: "admin-timezones", args: []string{"admin", "-timezones"},
		routes: map[string]reply{"GET /oozie/v2/admin/available-timezones": {file: "timezones.json"}}},
	{name: "admin-purge", args: []string{"admin", "-purge", "WF=30;limit=10"},
		routes: map[string]reply{"PUT /oozie/v2/admin/purge?bundle=&coord=&limit=10&oldcoordaction=&wf=30": {body: `{"purge":"Purge command executed successfully"}`}}},
	{name: "admin-purge-bad", args: []string{"admin", "-purge", "wf=-1"}, code: 255,
		stderr: "Error: INVALID_INPUT : Invalid purge option [wf=-1] specified.\n"},
	{name: "admin-servers", args: []string{"admin", "-servers"},
		routes: map[string]reply{"GET /oozie/v2/admin/available-oozie-servers": {body: `{"b-host":"http://b:11000/oozie","a-host":"http://a:11000/oozie"}`}}},
	{name: "admin-javasysprops", args: []string{"admin", "-javasysprops"},
		routes: map[string]reply{"GET /oozie/v2/admin/java-sys-properties": {body: `{"java.version":"go1.26","file.encoding":"UTF-8"}`}}},
	{name: "admin-shareliblist", args: []string{"admin", "-shareliblist", "pig.*"},
		routes: map[string]reply{"GET /oozie/v2/admin/list_sharelib?lib=pig.%2A": {body: `{"sharelib":[{"name":"pig","files":["file:///share/lib/pig/pig.jar","file:///share/lib/pig/antlr.jar"]}]}`}}},
	{name: "admin-sharelibupdate", args: []string{"admin", "-sharelibupdate"},
		routes: map[string]reply{"GET /oozie/v2/admin/update_sharelib?allservers=true": {body: `{"sharelibUpdate":{"host":"http://a:11000/oozie","status":"Successful","sharelibDirOld":"/share/lib_1","sharelibDirNew":"/share/lib_2"}}`}}},
	{name: "admin-two-options", args: []string{"admin", "-status", "-version"}, code: 255,
		stderr: "Invalid sub-command: The option 'version' was specified but an option from this group has already been selected: 'status'\n\nuse 'help [sub-command]' for help details\n"},
	{name: "admin-nothing", args: []string{"admin"}},
}

func TestRemoteGolden(t *testing.T) {
	pinEnv(t)
	for _, tc := range remoteCases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := newFakeOozie(t, tc.routes)
			var stdout, stderr bytes.Buffer
			args := append(cloneArgs(tc.args), "-oozie", url)
			code := Main(args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr:\n%q\nwant:\n%q", stderr.String(), tc.stderr)
			}
			f.checkAllHit()
			golden(t, tc.name, stdout.Bytes())
		})
	}
}

func cloneArgs(s []string) []string { return append([]string(nil), s...) }

// golden compares got with testdata/golden/<name>.txt, rewriting it under
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestRemoteSubmit checks the request shapes of -submit, -run, -dryrun and
// workflow -rerun (cli.md §2.1, rest-api §9.2): method, query, XML content
// type, the configuration body (user.name first, then the file, then -D) and
// the hadoop.auth cookie of the SIMPLE handshake.
func TestRemoteSubmit(t *testing.T) {
	pinEnv(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "job.properties")
	if err := os.WriteFile(props, []byte("oozie.wf.application.path=file:///apps/fs-demo\nqueue=default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	coordDry := "<coordinator-app name=\"c\"/>action for new instance<action n=\"1\"/>action for new instance<action n=\"2\"/>"
	tests := []struct {
		name, key, answer string
		status            int
		args              []string
		stdout            string
	}{
		{"submit", "POST /oozie/v2/jobs?user=tester", `{"id":"` + wfID + `"}`, 201,
			[]string{"job", "-submit", "-config", props, "-D", "queue=fast"}, "job: " + wfID + "\n"},
		{"run", "POST /oozie/v2/jobs?action=start&user=tester", `{"id":"` + wfID + `"}`, 201,
			[]string{"job", "-run", "-config", props, "-Dqueue=fast"}, "job: " + wfID + "\n"},
		{"dryrun-wf", "POST /oozie/v2/jobs?action=dryrun&user=tester", `{"id":"OK"}`, 201,
			[]string{"job", "-dryrun", "-config", props, "-D", "queue=fast"}, "OK\n"},
		{"dryrun-coord", "POST /oozie/v2/jobs?action=dryrun&user=tester", `{"id":` + strconvQuote(coordDry) + `}`, 201,
			[]string{"job", "-dryrun", "-config", props, "-D", "queue=fast"},
			"***coordJob after parsing: ***\n<coordinator-app name=\"c\"/>\n***total coord actions is 2 ***\n" +
				ruler + "\ncoordAction instance: 1:\n<action n=\"1\"/>\n" + ruler + "\ncoordAction instance: 2:\n<action n=\"2\"/>\n"},
		{"dryrun-bundle", "POST /oozie/v2/jobs?action=dryrun&user=tester", `{"id":"<bundle-app name=\"b\"/>"}`, 201,
			[]string{"job", "-dryrun", "-config", props, "-D", "queue=fast"},
			"***Bundle job after parsing: ***\n<bundle-app name=\"b\"/>\n"},
		{"rerun-wf", "PUT /oozie/v2/job/" + wfID + "?action=rerun&user=tester", "", 200,
			[]string{"job", "-rerun", wfID, "-config", props, "-D", "queue=fast"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, url := newFakeOozie(t, map[string]reply{tc.key: {status: tc.status, body: tc.answer}})
			var stdout, stderr bytes.Buffer
			if code := Main(append(cloneArgs(tc.args), "-oozie", url), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			f.checkAllHit()
			if stdout.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
			if len(f.reqs) != 1 {
				t.Fatalf("requests: %+v", f.reqs)
			}
			r := f.reqs[0]
			if r.ctype != "application/xml;charset=UTF-8" {
				t.Errorf("content type %q", r.ctype)
			}
			if !strings.HasPrefix(r.cookie, `hadoop.auth="u=tester&`) {
				t.Errorf("cookie %q, want the hadoop.auth token of the handshake", r.cookie)
			}
			for _, want := range []string{"<name>user.name</name>", "<value>tester</value>",
				"<name>oozie.wf.application.path</name>", "<value>file:///apps/fs-demo</value>", "<value>fast</value>"} {
				if !strings.Contains(r.body, want) {
					t.Errorf("body lacks %s:\n%s", want, r.body)
				}
			}
			if strings.Contains(r.body, "<value>default</value>") {
				t.Errorf("-D queue=fast did not win over the file:\n%s", r.body)
			}
			if strings.Index(r.body, "user.name") > strings.Index(r.body, "oozie.wf.application.path") {
				t.Errorf("user.name should come first:\n%s", r.body)
			}
		})
	}
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// TestRemoteAuth checks the authentication options: BASIC sends the
// Authorization header and no handshake, -token/GOZIE_TOKEN a bearer token,
// and -username without -password is refused.
func TestRemoteAuth(t *testing.T) {
	pinEnv(t)
	key := "GET /oozie/v2/admin/status"
	tests := []struct {
		name     string
		args     []string
		env      string
		wantAuth string
		code     int
		stderr   string
	}{
		{"basic", []string{"-username", "ann", "-password", "pw"}, "", "Basic YW5uOnB3", 0, ""},
		{"token-flag", []string{"-token", "s3cret"}, "", "Bearer s3cret", 0, ""},
		{"token-env", nil, "envtok", "Bearer envtok", 0, ""},
		{"simple", []string{"-auth", "simple"}, "", "", 0, ""},
		{"user-no-password", []string{"-username", "ann"}, "", "", 255,
			"Error: No password specified, it is required, if username is set!\n"},
		{"bad-auth", []string{"-auth", "digest"}, "", "", 255,
			"Error: Invalid options provided for auth: DIGEST, (SIMPLE, BASIC, TOKEN or KERBEROS expected.)\n"},
		{"kerberos without tickets", []string{"-auth", "kerberos"}, "", "", 255,
			"Error: AUTHENTICATION : no Kerberos ticket cache at /nonexistent/krb5cc (open /nonexistent/krb5cc: no such file or directory): run kinit first\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOZIE_TOKEN", tc.env)
			t.Setenv("KRB5CCNAME", "FILE:/nonexistent/krb5cc")
			t.Setenv("KRB5_CONFIG", writeKrb5Conf(t))
			routes := map[string]reply{key: {body: `{"systemMode":"NORMAL"}`}}
			if tc.code != 0 {
				routes = nil
			}
			f, url := newFakeOozie(t, routes)
			var stdout, stderr bytes.Buffer
			args := append([]string{"admin", "-status", "-oozie", url}, tc.args...)
			if code := Main(args, &stdout, &stderr); code != tc.code || stderr.String() != tc.stderr {
				t.Fatalf("exit %d stderr %q, want %d %q", code, stderr.String(), tc.code, tc.stderr)
			}
			f.checkAllHit()
			if tc.code != 0 {
				return
			}
			if got := f.reqs[0].auth; got != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tc.wantAuth)
			}
		})
	}
}

// TestRemoteUnreachable: a refused connection is retried as the Java
// client does (4 times after 1, 2, 4 and 8 seconds) except on a loopback
// address, where nothing listening means no server running: 3 retries
// after 0.25, 0.5 and 1 second, reported within 2 s (issue 26 point 13);
// then IO_ERROR with exit 255, never Go's "dial tcp" text.
func TestRemoteUnreachable(t *testing.T) {
	pinEnv(t)
	var waits []time.Duration
	retrySleep = func(d time.Duration) { waits = append(waits, d) }
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/oozie"
	srv.Close() // nothing listens there any more
	var stdout, stderr bytes.Buffer
	code := Main([]string{"jobs", "-oozie", url}, &stdout, &stderr)
	if code != 255 {
		t.Errorf("exit %d, want 255", code)
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
	for i, l := range lines[:3] {
		want := fmt.Sprintf("]. Trying after %s sec. Retry count = %d", []string{"0.25", "0.5", "1"}[i], i+1)
		if !strings.HasPrefix(l, "Connection exception has occurred [ connection refused") || !strings.HasSuffix(l, want) {
			t.Errorf("retry line %d: %q", i+1, l)
		}
	}
	if !strings.HasPrefix(lines[3], "Error: IO_ERROR : Error while connecting Oozie server. No of retries = 3. Exception = connection refused (is the server running") {
		t.Errorf("last line %q", lines[3])
	}
	if strings.Contains(stderr.String(), "dial tcp") {
		t.Errorf("stderr leaks Go's dial text:\n%s", stderr.String())
	}
	if want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q", stdout.String())
	}
}

// TestRemoteURLFromEnv: OOZIE_URL is the default of -oozie.
func TestRemoteURLFromEnv(t *testing.T) {
	pinEnv(t)
	f, url := newFakeOozie(t, map[string]reply{"GET /oozie/v2/admin/status": {body: `{"systemMode":"SAFEMODE"}`}})
	t.Setenv("OOZIE_URL", url)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"admin", "-status"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f.checkAllHit()
	if stdout.String() != "System mode: SAFEMODE\n" {
		t.Errorf("stdout %q", stdout.String())
	}
}

// TestMaskDate follows cli.md §0.6: "-" for no date, minutes or (verbose)
// seconds, the zone's short name, custom offsets without "GMT", and an
// unknown -timezone id meaning GMT.
func TestMaskDate(t *testing.T) {
	pinEnv(t)
	at := client.Time{Time: time.Date(2026, 7, 1, 12, 34, 56, 0, time.UTC)}
	tests := []struct {
		timezone, env string
		localtime     bool
		verbose       bool
		t             client.Time
		want          string
	}{
		{"", "", false, false, at, "2026-07-01 12:34 GMT"},
		{"", "", false, true, at, "2026-07-01 12:34:56 GMT"},
		{"", "", false, false, client.Time{}, "-"},
		{"America/Los_Angeles", "", false, false, at, "2026-07-01 05:34 PDT"},
		{"", "Asia/Kolkata", false, false, at, "2026-07-01 18:04 IST"},
		{"UTC", "Asia/Kolkata", false, false, at, "2026-07-01 12:34 UTC"},
		{"GMT-0700", "", false, true, at, "2026-07-01 05:34:56 -07:00"},
		{"GMT+05:30", "", false, false, at, "2026-07-01 18:04 +05:30"},
		{"Not/AZone", "", false, false, at, "2026-07-01 12:34 GMT"},
		{"America/Los_Angeles", "", true, false, at, "2026-07-01 12:34 UTC"}, // -localtime wins; tests pin local to UTC
	}
	for _, tc := range tests {
		t.Setenv("OOZIE_TIMEZONE", tc.env)
		r := &remoteFlags{timezone: tc.timezone, localtime: tc.localtime, verbose: tc.verbose}
		if got := r.dates().mask(tc.t); got != tc.want {
			t.Errorf("tz %q env %q local %v verbose %v: got %q, want %q", tc.timezone, tc.env, tc.localtime, tc.verbose, got, tc.want)
		}
	}
}

// TestRemoteValidate: `gozie validate -oozie URL FILE` uploads the file to
// POST /v2/validate?file=<abs>&user=<you> (cli.md §5): the verdict on
// stdout, a schema error as its message only, a 404 silently.
func TestRemoteValidate(t *testing.T) {
	pinEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "workflow.xml")
	if err := os.WriteFile(file, []byte(`<workflow-app name="x"/>`), 0o644); err != nil {
		t.Fatal(err)
	}
	key := "POST /oozie/v2/validate?file=" + url.QueryEscape(file) + "&user=tester"
	schemaErr := reply{status: 400, header: map[string]string{"oozie-error-code": "E0701",
		"oozie-error-message": "E0701: XML schema error, " + file + ", cvc-complex-type.4: missing start"}}
	tests := []struct {
		name   string
		arg    string
		rep    *reply
		code   int
		stdout string
		stderr string
	}{
		{"valid", file, &reply{body: `{"validate":"Valid workflow-app"}`}, 0, "Valid workflow-app\n", ""},
		{"file-uri", "file://" + file, &reply{body: `{"validate":"Valid workflow-app"}`}, 0, "Valid workflow-app\n", ""},
		{"schema-error", file, &schemaErr, 255, "", "Error: E0701: XML schema error, " + file + ", cvc-complex-type.4: missing start\n"},
		{"not-found", file, &reply{status: 404}, 0, "", ""},
		{"missing-file", filepath.Join(dir, "none.xml"), nil, 255, "", "Error: File does not exist : " + filepath.Join(dir, "none.xml") + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			routes := map[string]reply{}
			if tc.rep != nil {
				routes[key] = *tc.rep
			}
			f, base := newFakeOozie(t, routes)
			var stdout, stderr bytes.Buffer
			code := Main([]string{"validate", "-oozie", base, tc.arg}, &stdout, &stderr)
			if code != tc.code || stdout.String() != tc.stdout || stderr.String() != tc.stderr {
				t.Errorf("exit %d stdout %q stderr %q; want %d %q %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
			f.checkAllHit()
			if tc.rep != nil && (f.reqs[0].body != `<workflow-app name="x"/>` || f.reqs[0].ctype != "application/xml;charset=UTF-8") {
				t.Errorf("request %+v", f.reqs[0])
			}
		})
	}
}

// TestRemotePoll: -poll asks for the status every -interval minutes until
// the job ends or -timeout passes; a timeout is not a failure (cli.md §2.1).
// The clock is simulated: each wait advances it.
func TestRemotePoll(t *testing.T) {
	pinEnv(t)
	tests := []struct {
		name     string
		statuses []string
		args     []string
		stdout   string
		waits    string
	}{
		{"ends", []string{"PREP", "RUNNING", "SUCCEEDED"}, []string{"-interval", "2"}, "PREP\nRUNNING\nSUCCEEDED\n", "[2m0s 2m0s]"},
		{"killed", []string{"RUNNING", "KILLED"}, nil, "RUNNING\nKILLED\n", "[5m0s]"},
		{"times-out", []string{"RUNNING", "RUNNING", "RUNNING", "RUNNING"}, []string{"-interval", "2", "-timeout", "3"},
			"RUNNING\nRUNNING\nRUNNING\n", "[2m0s 1m0s]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.Method == http.MethodOptions:
				case r.URL.Path == "/oozie/versions":
					fmt.Fprint(w, "[0,1,2]")
				case r.URL.Query().Get("show") == "status":
					fmt.Fprintf(w, `{"status":%q}`, tc.statuses[min(calls, len(tc.statuses)-1)])
					calls++
				default:
					t.Errorf("unexpected %s %s", r.Method, r.URL)
				}
			}))
			defer srv.Close()
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var waits []time.Duration
			old := pollClock
			pollClock.now = func() time.Time { return now }
			pollClock.sleep = func(d time.Duration) { waits = append(waits, d); now = now.Add(d) }
			defer func() { pollClock = old }()
			var stdout, stderr bytes.Buffer
			args := append([]string{"job", "-oozie", srv.URL + "/oozie", "-poll", wfID, "-verbose"}, tc.args...)
			if code := Main(args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if stdout.String() != tc.stdout || fmt.Sprint(waits) != tc.waits {
				t.Errorf("stdout %q waits %v; want %q %s", stdout.String(), waits, tc.stdout, tc.waits)
			}
		})
	}
}

// writeKrb5Conf writes a minimal krb5.conf (no KDC is contacted).
func writeKrb5Conf(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(p, []byte("[libdefaults]\n default_realm = GOZIE.TEST\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
