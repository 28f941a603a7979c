package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/store/storetest"
)

// tcpProxy forwards a loopback port to a target address and can cut the
// link on command (close every connection, refuse new ones) and restore
// it on the same port: a database outage for one store, without touching
// the database server other tests share.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *tcpProxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// cut closes the listener and every connection: new connections are
// refused, open ones see a reset or end of stream.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// restore listens on the same address again.
func (p *tcpProxy) restore() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

// TestPostgresOutage runs a workflow on PostgreSQL through a proxy and
// cuts the database away while its middle step runs and ends: REST answers
// 503 E0603 meanwhile, and when the database is back the job continues and
// succeeds with every step run exactly once. Before, the transition that
// fell into the outage was only logged and the job stayed RUNNING.
func TestPostgresOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "postgres") {
		t.Skipf("needs a postgres:// URL DSN to put a proxy in, have %q", dsn)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	proxy := newTCPProxy(t, target)
	u.Host = proxy.addr
	st, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, t.TempDir(), st)

	ran := filepath.Join(e.dir, "ran.txt")
	goFile := filepath.Join(e.dir, "go")
	step := func(name, to, script string) string {
		return fmt.Sprintf(`<action name="%s">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument>
      <argument>%s echo %s >> %s</argument>
    </shell>
    <ok to="%s"/><error to="fail"/>
  </action>`, name, script, name, ran, to)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="outage">
  <start to="first"/>
  ` + step("first", "middle", "") + `
  ` + step("middle", "last", fmt.Sprintf("i=0; while test ! -e %s; do if test $i -ge 600; then break; fi; sleep 0.1; i=$((i+1)); done;", goFile)) + `
  ` + step("last", "end", "") + `
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`
	app := filepath.Join(e.dir, "apps", "outage")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	waitFor(t, "middle step running", func() bool {
		r := e.do("GET", "/oozie/v2/job/"+id+"@middle", "", "")
		return r.status == 200 && r.json(t)["status"] == "RUNNING"
	})

	// The outage: the middle step ends while the database is away.
	outage := time.Now()
	proxy.cut()
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "middle step done outside", func() bool { return strings.Contains(readFile(ran), "middle") })
	for _, tc := range []struct{ method, path, ct, body string }{
		{"GET", "/oozie/v2/job/" + id + "?show=info", "", ""},
		{"GET", "/oozie/v2/jobs?len=5", "", ""},
		{"PUT", "/oozie/v2/job/" + id + "?action=suspend&user.name=joe", "", ""},
		{"POST", "/oozie/v2/jobs?action=start&user.name=joe", "application/xml", confXML("oozie.wf.application.path", app)},
	} {
		r := e.do(tc.method, tc.path, tc.ct, tc.body)
		if r.status != http.StatusServiceUnavailable || r.header.Get("oozie-error-code") != "E0603" {
			t.Errorf("%s %s during the outage: %d %s %q, want 503 E0603", tc.method, tc.path, r.status, r.header.Get("oozie-error-code"), r.body)
		}
	}
	// Let the engine's retries and polls run into the outage for a while:
	// 3s by default, GOZIE_TEST_OUTAGE=45s to go past the 30s retry cap
	// and a sweep.
	length := 3 * time.Second
	if v := os.Getenv("GOZIE_TEST_OUTAGE"); v != "" {
		if length, err = time.ParseDuration(v); err != nil {
			t.Fatalf("GOZIE_TEST_OUTAGE: %v", err)
		}
	}
	time.Sleep(length)
	proxy.restore()
	down := time.Since(outage)

	waitFor(t, "job to succeed after the outage", func() bool {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "")
		return r.status == 200 && r.json(t)["status"] == "SUCCEEDED"
	})
	t.Logf("database away for %s; job SUCCEEDED %s after it came back", down.Round(time.Millisecond), (time.Since(outage) - down).Round(time.Millisecond))
	lines := strings.Fields(readFile(ran))
	sort.Strings(lines)
	if strings.Join(lines, ",") != "first,last,middle" {
		t.Errorf("steps run: %v, want each of first, middle, last once", lines)
	}
	list := e.do("GET", "/oozie/v2/jobs?len=10", "", "").json(t)
	if list["total"] != float64(1) {
		t.Errorf("jobs after the outage: %v; the refused submission must not have created one", list["total"])
	}
}

// TestStartIsAtomicOverREST reproduces the 201 for a job that was never
// started: the submission committed, the start failed, and the client got
// the id of a job left in PREP. Now a failed start answers 503 E0603 and
// leaves no job; a retried submission with the same external id answers
// with the job the first one created.
func TestStartIsAtomicOverREST(t *testing.T) {
	dir := t.TempDir()
	base, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.NewFaulty(base)
	e := newEnvOn(t, dir, f)
	app := e.app("atomic")
	post := func(kv ...string) resp {
		return e.do("POST", "/oozie/v2/jobs?action=start&user.name=joe", "application/xml",
			confXML(append([]string{"oozie.wf.application.path", app}, kv...)...))
	}

	// Every write fails: no job, 503.
	f.FailUpdates(0, 1, false)
	if r := post(); r.status != http.StatusServiceUnavailable || r.header.Get("oozie-error-code") != "E0603" {
		t.Fatalf("start with the store failing: %d %s", r.status, r.body)
	}
	if list := e.do("GET", "/oozie/v2/jobs", "", "").json(t); list["total"] != float64(0) {
		t.Fatalf("a failed start left a job: %v", list)
	}
	// The database commits but its acknowledgement is lost: the
	// engine finds the job by its external id, answers with it and runs
	// it (its first effects were never dispatched).
	f.FailUpdates(0, 1, true)
	r := post("oozie.wf.external.id", "req-7")
	if r.status != http.StatusCreated {
		t.Fatalf("lost acknowledgement: %d %s", r.status, r.body)
	}
	id := r.json(t)["id"].(string)
	e.waitStatus(id, "SUCCEEDED")
	// A client whose answer was lost sends the submission again: the
	// same job, not a second one.
	if again := post("oozie.wf.external.id", "req-7"); again.status != http.StatusCreated || again.json(t)["id"] != id {
		t.Fatalf("repeated submission: %d %s, want 201 %s", again.status, again.body, id)
	}
	if got := e.do("GET", "/oozie/v2/jobs?external-id=req-7", "", "").json(t)["id"]; got != id {
		t.Errorf("external-id lookup: %v, want %s", got, id)
	}
	if list := e.do("GET", "/oozie/v2/jobs", "", "").json(t); list["total"] != float64(1) {
		t.Errorf("jobs: %v, want the one", list["total"])
	}
	// Reads while the store is down answer 503 too.
	f.FailViews(true)
	f.FailUpdates(0, 1, false)
	if r := e.do("GET", "/oozie/v2/job/"+id, "", ""); r.status != http.StatusServiceUnavailable || r.header.Get("oozie-error-code") != "E0603" {
		t.Errorf("read with the store down: %d %s", r.status, r.body)
	}
	f.FailUpdates(0, 0, false)
}

// TestPostgresFlapping runs a chain of eight short shell steps while the
// proxy to PostgreSQL is cut for 300ms of every 700ms for five seconds:
// transitions fall into outages at every stage (effect commits, checks,
// polls, submissions of the next step). The job must still succeed with
// every step run exactly once.
func TestPostgresFlapping(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "postgres") {
		t.Skipf("needs a postgres:// URL DSN to put a proxy in, have %q", dsn)
	}
	proxy := newTCPProxy(t, u.Host)
	u.Host = proxy.addr
	st, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, t.TempDir(), st)
	ran := filepath.Join(e.dir, "ran.txt")
	const steps = 8
	var b strings.Builder
	b.WriteString(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="flap"><start to="s0"/>`)
	for i := 0; i < steps; i++ {
		to := fmt.Sprintf("s%d", i+1)
		if i == steps-1 {
			to = "end"
		}
		fmt.Fprintf(&b, `<action name="s%d"><shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument><argument>sleep 0.2; echo s%d >> %s</argument>
    </shell><ok to="%s"/><error to="fail"/></action>`, i, i, ran, to)
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	app := filepath.Join(e.dir, "apps", "flap")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	start := time.Now()
	cuts := 0
	for time.Since(start) < 5*time.Second {
		time.Sleep(400 * time.Millisecond)
		proxy.cut()
		cuts++
		time.Sleep(300 * time.Millisecond)
		proxy.restore()
	}
	waitFor(t, "job to succeed", func() bool {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "")
		return r.status == 200 && (r.json(t)["status"] == "SUCCEEDED" || r.json(t)["status"] == "KILLED")
	})
	t.Logf("%d cuts of 300ms; job ended %s after the first", cuts, time.Since(start).Round(time.Millisecond))
	if got := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "").json(t)["status"]; got != "SUCCEEDED" {
		t.Fatalf("job %v", got)
	}
	lines := strings.Fields(readFile(ran))
	sort.Strings(lines)
	var want []string
	for i := 0; i < steps; i++ {
		want = append(want, fmt.Sprintf("s%d", i))
	}
	if strings.Join(lines, ",") != strings.Join(want, ",") {
		t.Errorf("steps run: %v, want each of %v once", lines, want)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
