package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/vocab"
)

// fakeBundles is a bundle engine of fixed jobs that records the commands
// it receives: what the faces need of the real one (server.Bundles and
// console.Bundles).
type fakeBundles struct {
	mu    sync.Mutex
	jobs  map[string]*store.BundleJob
	coord map[string][]*rest.CoordJob // by bundle id
	calls []string
}

func (f *fakeBundles) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeBundles) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeBundles) get(id string) (*store.BundleJob, error) {
	j, ok := f.jobs[id]
	if !ok {
		return nil, vocab.Errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", id)
	}
	return j, nil
}

// bean is the REST bean of a stored job, as a fresh copy each time.
func (f *fakeBundles) bean(j *store.BundleJob, withCoords bool) *rest.BundleJob {
	b := &rest.BundleJob{BundleJobID: j.ID, BundleJobName: rest.Str(j.AppName), BundleJobPath: rest.Str(j.AppPath),
		Conf: rest.Str(j.Conf), Status: j.Status, TimeUnit: "NONE", TimeOut: -1, KickoffTime: rest.Date(j.KickoffTime),
		StartTime: rest.Date(j.StartTime), EndTime: rest.Date(j.EndTime), CreatedTime: rest.Date(j.CreatedTime),
		User: rest.Str(j.User), Group: rest.Str(j.Group), ACL: rest.Str(j.ACL), BundleCoordJobs: []*rest.CoordJob{},
		ToString: "Bundle id[" + j.ID + "] status[" + j.Status + "]"}
	if withCoords {
		for _, c := range f.coord[j.ID] {
			cp := *c
			b.BundleCoordJobs = append(b.BundleCoordJobs, &cp)
		}
	}
	return b
}

func (f *fakeBundles) BundleJobInfo(ctx context.Context, id string) (*rest.BundleJob, error) {
	j, err := f.get(id)
	if err != nil {
		return nil, err
	}
	return f.bean(j, true), nil
}

func (f *fakeBundles) BundleJobList(ctx context.Context, flt store.JobFilter) ([]*rest.BundleJob, int, error) {
	var ids []string
	for id := range f.jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []*rest.BundleJob
	for _, id := range ids {
		j := f.jobs[id]
		match := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
		if match(flt.Names, j.AppName) && match(flt.Users, j.User) && match(flt.Statuses, j.Status) && match(flt.IDs, j.ID) {
			out = append(out, f.bean(j, false))
		}
	}
	total := len(out)
	out = out[min(flt.Offset, len(out)):]
	if flt.Limit > 0 && len(out) > flt.Limit {
		out = out[:flt.Limit]
	}
	return out, total, nil
}

func (f *fakeBundles) BundleDryrun(ctx context.Context, props *conf.Config) (string, error) {
	p, _ := props.Get("oozie.bundle.application.path")
	return `<bundle-app name="dry" xmlns="uri:oozie:bundle:0.2"><!-- ` + p + ` --></bundle-app>`, nil
}

func (f *fakeBundles) BundleChange(ctx context.Context, id, value string) error {
	if _, err := f.get(id); err != nil {
		return err
	}
	f.record("change %s %s", id, value)
	return nil
}

func (f *fakeBundles) BundleRerun(ctx context.Context, id, coordScope, dateScope string, refresh, noCleanup bool) error {
	if _, err := f.get(id); err != nil {
		return err
	}
	f.record("rerun %s coords=%s dates=%s refresh=%t nocleanup=%t", id, coordScope, dateScope, refresh, noCleanup)
	return nil
}

func (f *fakeBundles) BundleOwner(ctx context.Context, id string) (string, string, string, error) {
	j, err := f.get(id)
	if err != nil {
		return "", "", "", err
	}
	return j.User, j.Group, j.ACL, nil
}

func (f *fakeBundles) BundleDefinition(ctx context.Context, id string) (string, error) {
	j, err := f.get(id)
	if err != nil {
		return "", err
	}
	return j.Definition, nil
}

func (f *fakeBundles) BundleJob(ctx context.Context, id string) (*store.BundleJob, error) {
	return f.get(id)
}

const (
	bundleA  = "0000001-260101000000000-oozie-test-B"
	bundleB  = "0000002-260101000000000-oozie-test-B"
	coordOne = "0000003-260101000000000-oozie-test-C"
	coordTwo = "0000004-260101000000000-oozie-test-C"
)

// secretConf is a bundle configuration with a secret property.
const secretConf = `<configuration><property><name>db.password</name><value>hunter2secret</value></property>` +
	`<property><name>queue</name><value>default</value></property></configuration>`

// newBundleEnv is a server with a fake bundle engine of two bundles (one
// joe's with two coordinators whose actions are in the store, one ann's)
// on a real workflow and coordinator engine.
func newBundleEnv(t *testing.T) (*env, *fakeBundles) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fb := &fakeBundles{jobs: map[string]*store.BundleJob{
		bundleA: {ID: bundleA, AppName: "daily-bundle", AppPath: "/apps/bundle", User: "joe", Status: store.BundleRunning,
			Conf: secretConf, Definition: `<bundle-app name="daily-bundle"><parameters><property><name>db.password</name><value>hunter2secret</value></property></parameters></bundle-app>`,
			KickoffTime: day, CreatedTime: day},
		bundleB: {ID: bundleB, AppName: "other", AppPath: "/apps/other", User: "ann", Status: store.BundlePrep, CreatedTime: day},
	}, coord: map[string][]*rest.CoordJob{bundleA: {
		{CoordJobID: coordTwo, CoordJobName: "hourly", Status: "RUNNING", BundleID: bundleA, Frequency: "60", TimeUnit: "MINUTE",
			StartTime: rest.Date(day), NextMaterializedTime: rest.Date(day.Add(3 * time.Hour)), Actions: []*rest.CoordAction{}},
		{CoordJobID: coordOne, CoordJobName: "daily", Status: "RUNNING", BundleID: bundleA, Frequency: "1440", TimeUnit: "MINUTE",
			StartTime: rest.Date(day), NextMaterializedTime: rest.Date(day.AddDate(0, 0, 1)), Actions: []*rest.CoordAction{}},
	}}}
	// The coordinators' actions, for bulk monitoring: finished jobs the
	// coordinator engine leaves alone.
	err = st.Update(context.Background(), func(tx store.Tx) error {
		for _, c := range []struct {
			id, name string
			statuses []string
		}{{coordOne, "daily", []string{"SUCCEEDED", "KILLED", "FAILED"}}, {coordTwo, "hourly", []string{"KILLED", "SUCCEEDED"}}} {
			if err := tx.PutCoordJob(context.Background(), &store.CoordJob{ID: c.id, AppName: c.name, User: "joe", ParentID: bundleA,
				Status: "DONEWITHERROR", Frequency: "60", TimeUnit: "MINUTE", StartTime: day, EndTime: day.AddDate(0, 0, 1)}); err != nil {
				return err
			}
			for i, s := range c.statuses {
				n := i + 1
				a := &store.CoordAction{ID: vocab.CoordActionID(c.id, n), JobID: c.id, Number: n, Status: s,
					NominalTime: day.Add(time.Duration(i) * time.Hour), CreatedTime: day.Add(time.Duration(i) * time.Hour),
					CreatedConf: secretConf, ErrorMessage: "failed with hunter2secret"}
				if err := tx.PutCoordAction(context.Background(), a); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, dir, st, nil, nil, fb)
	return e, fb
}

// TestBundleShow: GET job/<B id> with every show value a bundle takes
// (rest-api.md 4.1), masked for readers the bundle does not name.
func TestBundleShow(t *testing.T) {
	e, _ := newBundleEnv(t)
	if err := e.eng.Note(context.Background(), bundleA, "INFO", "bundle started with password hunter2secret"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		status     int
		code       string
		has, lacks []string
	}{
		{name: "info of the owner", path: "/oozie/v2/job/" + bundleA + "?user.name=joe", status: 200,
			has: []string{`"bundleJobId":"` + bundleA + `"`, `"bundleCoordJobs":[{"coordJobId":"` + coordTwo, "hunter2secret",
				`"kickoffTime":"Thu, 01 Jan 2026 00:00:00 GMT"`, `"toString":"Bundle id[` + bundleA + `] status[RUNNING]"`}},
		{name: "info of a stranger", path: "/oozie/v2/job/" + bundleA + "?show=info&user.name=bob", status: 200,
			has: []string{`"bundleJobName":"daily-bundle"`, "*****"}, lacks: []string{"hunter2secret"}},
		{name: "v1 info", path: "/oozie/v1/job/" + bundleA + "?user.name=joe", status: 200, has: []string{`"bundleJobId"`}},
		{name: "timezone", path: "/oozie/v2/job/" + bundleA + "?timezone=America/Los_Angeles&user.name=joe", status: 200,
			has: []string{`"kickoffTime":"Wed, 31 Dec 2025 16:00:00 PST"`, `"nextMaterializedTime":"Wed, 31 Dec 2025 19:00:00 PST"`}},
		{name: "definition", path: "/oozie/v2/job/" + bundleA + "?show=definition&user.name=joe", status: 200,
			has: []string{`<bundle-app name="daily-bundle">`, "hunter2secret"}},
		{name: "definition of a stranger", path: "/oozie/v2/job/" + bundleA + "?show=definition&user.name=bob", status: 200,
			has: []string{`<bundle-app name="daily-bundle">`}, lacks: []string{"hunter2secret"}},
		{name: "status", path: "/oozie/v2/job/" + bundleA + "?show=status", status: 200, has: []string{`{"status":"RUNNING"}`}},
		{name: "status in v1", path: "/oozie/v1/job/" + bundleA + "?show=status", status: 400, code: "E0302"},
		{name: "log", path: "/oozie/v2/job/" + bundleA + "?show=log&user.name=joe", status: 200,
			has: []string{"bundle started with password hunter2secret", "APP[daily-bundle]"}},
		{name: "log of a stranger", path: "/oozie/v2/job/" + bundleA + "?show=log&user.name=bob", status: 200,
			has: []string{"bundle started"}, lacks: []string{"hunter2secret"}},
		{name: "auditlog", path: "/oozie/v2/job/" + bundleA + "?show=auditlog", status: 200},
		{name: "graph", path: "/oozie/v2/job/" + bundleA + "?show=graph", status: 400, code: "E0306"},
		{name: "allruns", path: "/oozie/v2/job/" + bundleA + "?show=allruns", status: 400, code: "E0303"},
		{name: "unknown bundle", path: "/oozie/v2/job/0000009-260101000000000-oozie-test-B", status: 400, code: "E0604"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", tc.path, "", "")
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %q, want %d %q", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			for _, want := range tc.has {
				if !strings.Contains(string(r.body), want) {
					t.Errorf("answer lacks %s:\n%s", want, r.body)
				}
			}
			for _, bad := range tc.lacks {
				if strings.Contains(string(r.body), bad) {
					t.Errorf("answer holds %s:\n%s", bad, r.body)
				}
			}
		})
	}
}

// TestBundleCommands: PUT job/<B id> (rest-api.md 4.2): change and the
// reruns reach the bundle engine with their parameters, the generic
// commands reach the jobs service, and strangers get E0509.
func TestBundleCommands(t *testing.T) {
	e, fb := newBundleEnv(t)
	const xml = "application/xml;charset=UTF-8"
	for _, tc := range []struct {
		name, query, ct string
		status          int
		code            string
		call            string // the bundle engine's last call after it
	}{
		{name: "change", query: "action=change&value=endtime%3D2026-02-01T00%3A00Z%3Bpausetime%3D&user.name=joe", status: 200,
			call: "change " + bundleA + " endtime=2026-02-01T00:00Z;pausetime="},
		{name: "bundle-rerun", query: "action=bundle-rerun&coord-scope=daily&date-scope=2026-01-01T00%3A00Z&refresh=true&nocleanup=false&user.name=joe",
			ct: xml, status: 200, call: "rerun " + bundleA + " coords=daily dates=2026-01-01T00:00Z refresh=true nocleanup=false"},
		{name: "rerun routes to the bundle rerun", query: "action=rerun&coord-scope=daily,hourly&nocleanup=true&user.name=joe", ct: xml, status: 200,
			call: "rerun " + bundleA + " coords=daily,hourly dates= refresh=false nocleanup=true"},
		{name: "bundle-rerun needs XML", query: "action=bundle-rerun&coord-scope=daily&user.name=joe", status: 400, code: "E0300"},
		{name: "coord-rerun of a bundle", query: "action=coord-rerun&type=action&scope=1&user.name=joe", ct: xml, status: 400, code: "E0303"},
		{name: "ignore of a bundle", query: "action=ignore&user.name=joe", status: 400, code: "E0302"},
		{name: "change by a stranger", query: "action=change&value=endtime%3D2026-02-01T00%3A00Z&user.name=bob", status: 401, code: "E0509"},
		{name: "kill by a stranger", query: "action=kill&user.name=bob", status: 401, code: "E0509"},
		{name: "rerun by a stranger", query: "action=bundle-rerun&user.name=bob", ct: xml, status: 401, code: "E0509"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fb.last()
			r := e.do("PUT", "/oozie/v2/job/"+bundleA+"?"+tc.query, tc.ct, "")
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %q, want %d %q", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			if got := fb.last(); tc.call != "" && got != tc.call {
				t.Errorf("engine call %q, want %q", got, tc.call)
			} else if tc.call == "" && got != before {
				t.Errorf("a refused command reached the engine: %q", got)
			}
		})
	}
	// bundle-rerun is a bundle's own: on a coordinator it is refused.
	if r := e.do("PUT", "/oozie/v2/job/"+coordOne+"?action=bundle-rerun&user.name=joe", xml, ""); r.header.Get("oozie-error-code") != "E0303" {
		t.Errorf("bundle-rerun of a coordinator: %d %v %s", r.status, r.header, r.body)
	}
	// The owner's kill, suspend, resume and start are no longer refused
	// by the server: they go to the jobs service, which routes them by
	// kind (the bundle engine, once it joins it).
	for _, act := range []string{"kill", "suspend", "resume", "start"} {
		r := e.do("PUT", "/oozie/v2/job/"+bundleA+"?action="+act+"&user.name=joe", "", "")
		if code := r.header.Get("oozie-error-code"); code == "E0509" || code == "E0302" || (code == "E0303" && act == "start") {
			t.Errorf("%s by the owner refused by the server: %d %s %s", act, r.status, code, r.body)
		}
	}
}

// TestBundleListsAndSubmissions: GET jobs?jobtype=bundle with filters and
// paging, PUT jobs bulk modify of bundles, POST jobs dryrun of a bundle.
func TestBundleListsAndSubmissions(t *testing.T) {
	e, _ := newBundleEnv(t)
	list := func(q string) *rest.JobList {
		t.Helper()
		r := e.do("GET", "/oozie/v2/jobs?jobtype=bundle"+q, "", "")
		if r.status != 200 {
			t.Fatalf("list %s: %d %s", q, r.status, r.body)
		}
		var l rest.JobList
		if err := l.UnmarshalJSON(r.body); err != nil {
			t.Fatal(err)
		}
		if !l.Has("bundlejobs") {
			t.Fatalf("list %s has no bundlejobs: %s", q, r.body)
		}
		return &l
	}
	for _, tc := range []struct {
		query string
		ids   []string
		total int
	}{
		{"", []string{bundleA, bundleB}, 2},
		{"&filter=user%3Djoe", []string{bundleA}, 1},
		{"&filter=name%3Dother", []string{bundleB}, 1},
		{"&filter=status%3DPREP", []string{bundleB}, 1},
		{"&filter=id%3D" + bundleA, []string{bundleA}, 1},
		{"&offset=2&len=1", []string{bundleB}, 2},
	} {
		l := list(tc.query)
		var ids []string
		for _, b := range l.BundleJobs {
			ids = append(ids, b.BundleJobID)
		}
		if !slices.Equal(ids, tc.ids) || l.Total != tc.total {
			t.Errorf("jobs%s: %v total %d, want %v total %d", tc.query, ids, l.Total, tc.ids, tc.total)
		}
	}
	// Dates in another zone (which the bean decodes as null, as Oozie's
	// client does: only GMT is read) are checked in the text.
	if r := e.do("GET", "/oozie/v2/jobs?jobtype=bundle&timezone=America/Los_Angeles", "", ""); !strings.Contains(string(r.body), `"createdTime":"Wed, 31 Dec 2025 16:00:00 PST"`) {
		t.Errorf("list in a zone: %s", r.body)
	}
	if r := e.do("GET", "/oozie/v2/jobs?jobtype=bundle&filter=status%3Dbogus", "", ""); r.header.Get("oozie-error-code") != "E0420" {
		t.Errorf("bad filter: %d %v", r.status, r.header)
	}

	// Bulk modify: joe may only change his own bundle.
	r := e.do("PUT", "/oozie/v2/jobs?action=suspend&jobtype=bundle&filter=status%3DPREP&user.name=joe", "application/xml", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"bundlejobs":[`) || !strings.Contains(string(r.body), `"ids":[]`) {
		t.Errorf("bulk suspend: %d %s", r.status, r.body)
	}

	// Submissions: a dry run answers the bundle XML; a submission reaches
	// the jobs service instead of the old refusal.
	props := []string{"oozie.bundle.application.path", "/apps/bundle"}
	dry := e.do("POST", "/oozie/v2/jobs?action=dryrun&user.name=joe", "application/xml", confXML(props...))
	if dry.status != 201 || !strings.HasPrefix(dry.json(t)["id"].(string), "<bundle-app") {
		t.Errorf("dryrun: %d %s", dry.status, dry.body)
	}
	sub := e.do("POST", "/oozie/v2/jobs?user.name=joe", "application/xml", confXML(props...))
	if strings.Contains(string(sub.body), "not supported") {
		t.Errorf("bundle submission refused by the server: %d %s", sub.status, sub.body)
	}
}

// TestBundleBulkMonitor: GET jobs?bulk= (rest-api.md 3.4) over the
// coordinators of a bundle, with its filters, paging and errors.
func TestBundleBulkMonitor(t *testing.T) {
	e, _ := newBundleEnv(t)
	for _, tc := range []struct {
		name, bulk, page string
		status           int
		code             string
		actions          []string
		total            int
	}{
		{name: "default statuses KILLED and FAILED, by coordinator id then creation", bulk: "bundle=daily-bundle", status: 200,
			actions: []string{coordOne + "@2", coordOne + "@3", coordTwo + "@1"}, total: 3},
		{name: "by id", bulk: "bundle=" + bundleA + ";actionstatus=SUCCEEDED", status: 200,
			actions: []string{coordOne + "@1", coordTwo + "@2"}, total: 2},
		{name: "one coordinator", bulk: "BUNDLE=daily-bundle;coordinators=hourly", status: 200,
			actions: []string{coordTwo + "@1"}, total: 1},
		{name: "unknown coordinator", bulk: "bundle=daily-bundle;coordinators=nope", status: 200, total: 0},
		{name: "scheduled window", bulk: "bundle=daily-bundle;startscheduledtime=2026-01-01T02:00Z;endscheduledtime=2026-01-01T03:00Z",
			status: 200, actions: []string{coordOne + "@3"}, total: 1},
		{name: "paged", bulk: "bundle=daily-bundle", page: "&offset=2&len=1", status: 200, actions: []string{coordOne + "@3"}, total: 3},
		{name: "no bundle key", bulk: "coordinators=daily", status: 400, code: "E0305"},
		{name: "unknown key", bulk: "bundle=daily-bundle;color=red", status: 400, code: "E0420"},
		{name: "bad status", bulk: "bundle=daily-bundle;actionstatus=DONE", status: 400, code: "E0420"},
		{name: "bad time", bulk: "bundle=daily-bundle;startcreatedtime=yesterday", status: 400, code: "E0420"},
		{name: "unknown bundle", bulk: "bundle=nope", status: 400, code: "E0603"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", "/oozie/v2/jobs?bulk="+url.QueryEscape(tc.bulk)+tc.page+"&user.name=bob", "", "")
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %s, want %d %q", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			if r.status != http.StatusOK {
				return
			}
			var l rest.BulkList
			if err := jsonUnmarshal(r.body, &l); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range l.Responses {
				ids = append(ids, x.Action.ID)
				if x.Bundle.BundleJobName != "daily-bundle" || x.Coord.CoordJobID != x.Action.CoordJobID {
					t.Errorf("response %s: bundle %q coord %q", x.Action.ID, x.Bundle.BundleJobName, x.Coord.CoordJobID)
				}
			}
			if !slices.Equal(ids, tc.actions) || l.Total != tc.total {
				t.Errorf("actions %v total %d, want %v total %d", ids, l.Total, tc.actions, tc.total)
			}
			if strings.Contains(string(r.body), "hunter2secret") || strings.Contains(string(r.body), "createdConf\":\"<") {
				t.Errorf("a stranger's bulk answer shows configurations or secrets: %s", r.body)
			}
		})
	}
}

// TestNoBundleEngine: without a bundle engine, bundle requests are refused
// E0302 as before.
func TestNoBundleEngine(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ method, path, ct, body string }{
		{"GET", "/oozie/v2/job/" + bundleA, "", ""},
		{"PUT", "/oozie/v2/job/" + bundleA + "?action=kill&user.name=joe", "", ""},
		{"GET", "/oozie/v2/jobs?jobtype=bundle", "", ""},
		{"GET", "/oozie/v2/jobs?bulk=bundle%3Dx", "", ""},
		{"POST", "/oozie/v2/jobs?user.name=joe", "application/xml", confXML("oozie.bundle.application.path", "/a")},
	} {
		r := e.do(tc.method, tc.path, tc.ct, tc.body)
		if r.status != 400 || r.header.Get("oozie-error-code") != "E0302" {
			t.Errorf("%s %s: %d %v %s", tc.method, tc.path, r.status, r.header.Get("oozie-error-code"), r.body)
		}
	}
}

// jsonUnmarshal decodes a JSON answer.
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
