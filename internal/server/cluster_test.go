package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

// monoClock is a fake clock for the members' liveness watching.
type monoClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *monoClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *monoClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// clusterEnvs starts n servers sharing one PostgreSQL schema, each a member
// named s0, s1, ... with its own data directory.
func clusterEnvs(t *testing.T, n int, clk *monoClock) ([]*env, []*cluster.Member) {
	dsn := postgres.TestDSN(t)
	var envs []*env
	var members []*cluster.Member
	for i := range n {
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		name := "s" + string(rune('0'+i))
		e := newEnvJoined(t, t.TempDir(), st, func(base string) Cluster {
			m, err := cluster.Join(context.Background(), cluster.Options{Store: st.(store.Cluster), Name: name, URL: base,
				Lease: 20 * time.Second, Now: clk.Now, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			members = append(members, m)
			return m
		})
		envs = append(envs, e)
	}
	return envs, members
}

// TestCommandsReachTheOwner: a command or callback sent to any server is
// carried out by the server that owns the job, with the caller's
// credentials; the live servers are listed by every server.
func TestCommandsReachTheOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	clk := &monoClock{now: time.Unix(1000, 0)}
	envs, members := clusterEnvs(t, 2, clk)
	a, b := envs[0], envs[1]

	// A job submitted to a (not started) is a's.
	id := a.submit("joe", "", "oozie.wf.application.path", a.app("fwd"))
	if url, local, err := members[1].Route(context.Background(), id); err != nil || local || url != a.base {
		t.Fatalf("b routes %s to %q (local %v, %v), want a", id, url, local, err)
	}
	// Started through b: b passes the request to a, which runs the job.
	r := b.do("PUT", "/oozie/v2/job/"+id+"?action=start&user.name=joe", "", "")
	if r.status != http.StatusOK {
		t.Fatalf("start through b: %d %s", r.status, r.body)
	}
	b.waitStatus(id, "SUCCEEDED")
	if got := b.srv.metrics.forwarded.Load(); got != 1 {
		t.Errorf("b forwarded %d requests, want 1", got)
	}
	if got := a.srv.metrics.forwarded.Load(); got != 0 {
		t.Errorf("a forwarded %d requests, want 0", got)
	}
	// The owner checks authorization as usual: another user may not kill.
	id2 := a.submit("joe", "", "oozie.wf.application.path", a.app("fwd2"))
	if r := b.do("PUT", "/oozie/v2/job/"+id2+"?action=kill&user.name=mallory", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("kill by another user through b: %d %s", r.status, r.body)
	}
	if r := b.do("PUT", "/oozie/v2/job/"+id2+"?action=kill&user.name=joe", "", ""); r.status != http.StatusOK {
		t.Errorf("kill through b: %d %s", r.status, r.body)
	}
	b.waitStatus(id2, "KILLED")
	// A callback for a's action, sent to b, reaches a.
	before := a.srv.metrics.callbacks.Load()
	if r := b.do("GET", "/oozie/callback?id="+id+"@prepare&status=SUCCEEDED", "", ""); r.status != http.StatusOK {
		t.Errorf("callback through b: %d", r.status)
	}
	if a.srv.metrics.callbacks.Load() != before+1 {
		t.Error("the callback did not reach the owner")
	}
	// A bulk kill sent to b kills a's jobs through a.
	bulk := []string{
		a.submit("joe", "", "oozie.wf.application.path", a.app("bulk")),
		a.submit("joe", "", "oozie.wf.application.path", a.app("bulk")),
	}
	if r := b.do("PUT", "/oozie/v2/jobs?action=kill&jobtype=wf&filter=name%3Dbulk&user.name=joe", "", ""); r.status != http.StatusOK {
		t.Errorf("bulk kill through b: %d %s", r.status, r.body)
	}
	for _, id := range bulk {
		b.waitStatus(id, "KILLED")
	}
	// Both servers list both, by name.
	for _, e := range envs {
		m := e.do("GET", "/oozie/v2/admin/available-oozie-servers", "", "").json(t)
		if len(m) != 2 || m["s0"] != a.base || m["s1"] != b.base {
			t.Errorf("available-oozie-servers = %v", m)
		}
	}

	// The console's system page lists both, marking the one serving it.
	page := string(b.do("GET", "/oozie/console/system", "", "").body)
	for _, want := range []string{`id="servers"`, "s0", a.base, "s1 (this one)", b.base} {
		if !strings.Contains(page, want) {
			t.Errorf("system page lacks %q", want)
		}
	}

	// a goes silent: once b has watched it for a lease, b stops listing it
	// and answers a command on a's job with 503 E0606 (retry) instead of
	// forwarding, until a live server takes a's jobs over.
	id3 := a.submit("joe", "", "oozie.wf.application.path", a.app("fwd3"))
	members[1].Tick(context.Background())
	clk.add(20 * time.Second)
	r = b.do("PUT", "/oozie/v2/job/"+id3+"?action=start&user.name=joe", "", "")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.header.Get("oozie-error-code"), "E0606") {
		t.Errorf("command on a silent server's job: %d %v %s", r.status, r.header, r.body)
	}
	if m := b.do("GET", "/oozie/v2/admin/available-oozie-servers", "", "").json(t); len(m) != 1 || m["s1"] != b.base {
		t.Errorf("available-oozie-servers without a = %v", m)
	}
	members[1].Tick(context.Background()) // takes a's jobs over
	if r := b.do("PUT", "/oozie/v2/job/"+id3+"?action=start&user.name=joe", "", ""); r.status != http.StatusOK {
		t.Fatalf("start after the take-over: %d %s", r.status, r.body)
	}
	b.waitStatus(id3, "SUCCEEDED")
}

// TestSubmissionsSpread: a server with clearly more unfinished jobs than a
// live peer passes a new submission to it; the job is the peer's.
func TestSubmissionsSpread(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	clk := &monoClock{now: time.Unix(1000, 0)}
	envs, members := clusterEnvs(t, 2, clk)
	a := envs[0]
	for range 6 {
		a.submit("joe", "", "oozie.wf.application.path", a.app("load"))
	}
	members[0].Tick(context.Background())
	members[1].Tick(context.Background())
	clk.add(time.Second)
	members[0].Tick(context.Background())
	id := a.submit("joe", "start", "oozie.wf.application.path", a.app("spread"))
	if url, local, err := members[0].Route(context.Background(), id); err != nil || local || url != envs[1].base {
		t.Errorf("the new job went to %q (local %v, %v), want the idle server", url, local, err)
	}
	a.waitStatus(id, "SUCCEEDED")
	// A dry run creates no job: it is answered where it arrives.
	r := a.do("POST", "/oozie/v2/jobs?action=dryrun&user.name=joe", "application/xml", confXML("oozie.wf.application.path", a.app("dry")))
	if r.status/100 != 2 || a.srv.metrics.forwarded.Load() != 1 {
		t.Errorf("dry run: %d, forwarded %d (want 1, the submission only)", r.status, a.srv.metrics.forwarded.Load())
	}
}

// TestRefusedForwardIsAudited: a command for a job whose server could not
// be reached was refused with 503 E0606 and left no trace in the job's
// audit log (the owner audits commands, and it never saw this one), and a
// callback was swallowed with 200. The refusal is now an audit line of
// the job, and the 503 names the job and its server.
func TestRefusedForwardIsAudited(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	clk := &monoClock{now: time.Unix(1000, 0)}
	envs, members := clusterEnvs(t, 2, clk)
	a, b := envs[0], envs[1]
	type command struct {
		op, method, query, ct, body string
		node                        bool // the id is an action's: <job>@prepare
	}
	commands := []command{
		{op: "start", method: "PUT", query: "?action=start&user.name=joe"},
		{op: "kill", method: "PUT", query: "?action=kill&user.name=joe"},
		{op: "suspend", method: "PUT", query: "?action=suspend&user.name=joe"},
		{op: "rerun", method: "PUT", query: "?action=rerun&user.name=joe", ct: "application/xml",
			body: confXML("oozie.wf.rerun.failnodes", "true")},
		{op: "callback", method: "GET", node: true},
	}
	phases := []struct {
		name  string
		owner string // what the message says of the owner
		down  func()
	}{
		// a heartbeats but its HTTP server is gone: the proxy fails.
		{"owner not answering", "s0", func() { a.ts.Close() }},
		// a's heartbeats stopped for a lease: b does not even try.
		{"owner's lease run out", "s0#", func() {
			members[1].Tick(context.Background())
			clk.add(20 * time.Second)
		}},
	}
	jobs := map[string]string{}
	for i, p := range phases {
		for _, c := range commands {
			jobs[p.name+c.op] = a.submit("joe", "", "oozie.wf.application.path", a.app("refused"))
		}
		// One more for a bulk kill, found by its name.
		jobs[p.name+"bulk"] = a.submit("joe", "", "oozie.wf.application.path", a.app("bulk"+strconv.Itoa(i)))
	}
	for i, p := range phases {
		p.down()
		t.Run(p.name+"/bulk kill", func(t *testing.T) {
			id := jobs[p.name+"bulk"]
			r := b.do("PUT", "/oozie/v2/jobs?action=kill&jobtype=wf&filter=name%3Dbulk"+strconv.Itoa(i)+"&user.name=joe", "", "")
			if r.status != http.StatusOK {
				t.Fatalf("bulk kill: %d %s", r.status, r.body)
			}
			audit := string(b.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", "").body)
			want := "USER [joe] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [kill] PARAMETER [" + id +
				"] STATUS [FAILED] HTTPCODE [503] ERRORCODE [E0606] ERRORMESSAGE [E0606: Could not get lock [" + id + "]"
			if !strings.Contains(audit, want) || !strings.Contains(audit, p.owner) {
				t.Errorf("auditlog lacks\n  %s ... %s\nhas:\n%s", want, p.owner, audit)
			}
		})
		for _, c := range commands {
			t.Run(p.name+"/"+c.op, func(t *testing.T) {
				id := jobs[p.name+c.op]
				path := "/oozie/v2/job/" + id + c.query
				param := id
				if c.node {
					param = id + "@prepare"
					path = "/oozie/callback?id=" + param + "&status=OK"
				}
				r := b.do(c.method, path, c.ct, c.body)
				msg := r.header.Get("oozie-error-message")
				if r.status != http.StatusServiceUnavailable || r.header.Get("oozie-error-code") != "E0606" {
					t.Fatalf("%d %q %s, want 503 E0606", r.status, msg, r.body)
				}
				if !strings.Contains(msg, "["+param+"]") || !strings.Contains(msg, p.owner) {
					t.Errorf("message %q names neither %s nor its server %s", msg, param, p.owner)
				}
				audit := string(b.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", "").body)
				user := "joe"
				if c.node {
					user = "?" // callbacks are not authenticated
				}
				want := "USER [" + user + "] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [" + c.op + "] PARAMETER [" + param +
					"] STATUS [FAILED] HTTPCODE [503] ERRORCODE [E0606] ERRORMESSAGE [" + msg + "]"
				if !strings.Contains(audit, " INFO oozieaudit - IP [127.0.0.1] "+want) {
					t.Errorf("auditlog lacks\n  %s\nhas:\n%s", want, audit)
				}
			})
		}
	}
}
