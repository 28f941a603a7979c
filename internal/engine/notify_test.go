package engine

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
)

// recorder is enginetest's notification recorder.
type recorder = enginetest.Recorder

func newRecorder(t *testing.T, answer func(uri string, n int) int) *recorder {
	return enginetest.NewRecorder(t, answer)
}

// countingStore counts the notification effects written, done or not.
type countingStore = enginetest.CountingStore

// pendingNotifications lists the notification effects not yet done.
func pendingNotifications(t *testing.T, s store.Store) []*store.Effect {
	return enginetest.Pending(t, s, EffectHTTPNotify)
}

// notifyHarness is a workflow harness whose store counts notification
// effects.
func notifyHarness(t *testing.T, configure ...func(*Options)) (*harness, *countingStore) {
	var cs *countingStore
	h := newHarness(t, append([]func(*Options){func(o *Options) {
		cs = &countingStore{Store: o.Store, Kind: EffectHTTPNotify}
		o.Store = cs
	}}, configure...)...)
	return h, cs
}

func TestNotificationTokens(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"job, every token", jobTokens("0000001-260301120000000-oozie-test-W", "SUCCEEDED", "0000002-260301120000000-oozie-test-C@3").
			Replace("http://h/wf?id=$jobId&status=$status&parent=$parentId"),
			"http://h/wf?id=0000001-260301120000000-oozie-test-W&status=SUCCEEDED&parent=0000002-260301120000000-oozie-test-C@3"},
		{"job, no parent is empty", jobTokens("J-W", "RUNNING", "").Replace("http://h/wf?id=$jobId&p=$parentId&s=$status"),
			"http://h/wf?id=J-W&p=&s=RUNNING"},
		{"job, token twice", jobTokens("J-W", "KILLED", "").Replace("http://h/$jobId/$status?again=$jobId"),
			"http://h/J-W/KILLED?again=J-W"},
		{"job, no tokens", jobTokens("J-W", "KILLED", "").Replace("http://h/fixed"), "http://h/fixed"},
		{"job, node token not replaced", jobTokens("J-W", "KILLED", "").Replace("http://h/?n=$nodeName"), "http://h/?n=$nodeName"},
		{"node, started", nodeTokens("J-W", "mr-node", "S:RUNNING").Replace("http://h/n?job=$jobId&node=$nodeName&status=$status"),
			"http://h/n?job=J-W&node=mr-node&status=S:RUNNING"},
		{"node, ended", nodeTokens("J-W", "mr-node", "T:end").Replace("http://h/n?job=$jobId&node=$nodeName&status=$status"),
			"http://h/n?job=J-W&node=mr-node&status=T:end"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestNotificationPayload(t *testing.T) {
	for _, tt := range []struct{ url, proxy string }{
		{"http://h/a?b=c", ""}, {"http://h/a", "myhttpproxyhost.mydomain.com:80"}, {"http://h/a", "socks@mysockshost.mydomain.com:1080"},
	} {
		u, p := splitNotifyPayload(NotifyPayload(tt.url, tt.proxy))
		if u != tt.url || p != tt.proxy {
			t.Errorf("payload of (%q, %q) reads back as (%q, %q)", tt.url, tt.proxy, u, p)
		}
	}
}

func TestParseNotificationProxy(t *testing.T) {
	tests := []struct{ in, want string }{
		// The specification's examples (5.1, 5.2).
		{"myhttpproxyhost.mydomain.com:80", "http://myhttpproxyhost.mydomain.com:80"},
		{"socks@mysockshost.mydomain.com:1080", "socks5://mysockshost.mydomain.com:1080"},
		{"xyz:4080", "http://xyz:4080"},
		{"http@proxy:3128", "http://proxy:3128"},
		{"SOCKS@s:1080", "socks5://s:1080"},
		{"ftp@proxy:21", ""},
		{"proxy", ""},
		{"proxy:", ""},
		{":80", ""},
		{"http://proxy:80", ""},
	}
	for _, tt := range tests {
		u, err := parseNotificationProxy(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%q: got %s, want an error", tt.in, u)
		case tt.want != "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.want != "" && u.String() != tt.want:
			t.Errorf("%q: got %s, want %s", tt.in, u, tt.want)
		}
	}
}

// waitDelivered waits until no notification is pending and n were
// answered.
func waitDelivered(h *harness, s store.Store, r *recorder, n int) {
	h.t.Helper()
	h.eventually("notifications delivered", func() bool {
		return len(r.Delivered()) >= n && len(pendingNotifications(h.t, s)) == 0
	})
}

func TestWorkflowNotifications(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		setup func(h *harness)
		drive func(h *harness, id string)
		want  []string // {job} and {node} are the two URL prefixes
		// unordered compares the node notifications between the job's
		// first and last as a set, keeping each node's own order.
		unordered bool
	}{
		{name: "action ok", nodes: `<start to="a"/>` + testAction("a", "end", "fail") + `<kill name="fail"><message>m</message></kill><end name="end"/>`,
			want: []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{node}a&s=T:end", "{job}SUCCEEDED&p="}},
		{name: "action error", nodes: `<start to="a"/>` + testAction("a", "end", "fail") + `<kill name="fail"><message>m</message></kill><end name="end"/>`,
			setup: func(h *harness) {
				h.exec.set("a", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "X1"}}})
			},
			want: []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{node}a&s=T:fail", "{job}KILLED&p="}},
		{name: "decision", nodes: `<start to="d"/><decision name="d"><switch><case to="b">${1 gt 2}</case><case to="a">${2 gt 1}</case>` +
			`<default to="end"/></switch></decision>` + testAction("a", "end", "end") + testAction("b", "end", "end") + `<end name="end"/>`,
			want: []string{"{job}RUNNING&p=", "{node}d&s=T:a", "{node}a&s=S:RUNNING", "{node}a&s=T:end", "{job}SUCCEEDED&p="}},
		{name: "fork and join", nodes: `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			testAction("a", "j", "k") + testAction("b", "j", "k") + `<join name="j" to="end"/><kill name="k"><message>m</message></kill><end name="end"/>`,
			unordered: true, // the paths run in parallel
			want:      []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{node}a&s=T:j", "{node}b&s=S:RUNNING", "{node}b&s=T:j", "{job}SUCCEEDED&p="}},
		{name: "suspend and resume", nodes: `<start to="a"/>` + testAction("a", "end", "end") + `<end name="end"/>`,
			setup: func(h *harness) { h.exec.set("a", &behaviour{async: true}) },
			drive: func(h *harness, id string) {
				ctx := context.Background()
				h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
				if err := h.e.Suspend(ctx, id); err != nil {
					h.t.Fatal(err)
				}
				if err := h.e.Resume(ctx, id); err != nil {
					h.t.Fatal(err)
				}
				h.exec.finish(h.t, "a", action.Result{Status: action.OK})
			},
			want: []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{job}SUSPENDED&p=", "{job}RUNNING&p=", "{node}a&s=T:end", "{job}SUCCEEDED&p="}},
		{name: "kill", nodes: `<start to="a"/>` + testAction("a", "end", "end") + `<end name="end"/>`,
			setup: func(h *harness) { h.exec.set("a", &behaviour{async: true}) },
			drive: func(h *harness, id string) {
				h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
				if err := h.e.Kill(context.Background(), id); err != nil {
					h.t.Fatal(err)
				}
			},
			want: []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{node}a&s=S:KILLED", "{job}KILLED&p="}},
		{name: "user retry enters the node again", nodes: `<start to="a"/><action name="a" retry-max="1" retry-interval="1"><test xmlns="uri:gozie:test:1.0"/>` +
			`<ok to="end"/><error to="end"/></action><end name="end"/>`,
			setup: func(h *harness) {
				h.exec.set("a", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "JA018"}, {Done: true, Status: action.OK}}})
			},
			drive: func(h *harness, id string) {
				h.eventually("a in USER_RETRY", func() bool {
					return h.actionStatus(id, "a") == store.ActionUserRetry && h.clock.Pending() > 0
				})
				h.clock.Advance(time.Minute)
			},
			want: []string{"{job}RUNNING&p=", "{node}a&s=S:RUNNING", "{node}a&s=S:RUNNING", "{node}a&s=T:end", "{job}SUCCEEDED&p="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, cs := notifyHarness(t)
			r := newRecorder(t, nil)
			if tt.setup != nil {
				tt.setup(h)
			}
			app := h.writeApp("n", wf(tt.nodes), nil)
			id := h.run(props(app,
				PropWorkflowNotificationURL, r.URL+"/wf?id=$jobId&s=$status&p=$parentId",
				PropActionNotificationURL, r.URL+"/node?id=$jobId&n=$nodeName&s=$status"))
			if tt.drive != nil {
				tt.drive(h, id)
			}
			h.wait(id)
			waitDelivered(h, cs, r, len(tt.want))
			var want []string
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "{job}", "/wf?id="+id+"&s=")
				w = strings.ReplaceAll(w, "{node}", "/node?id="+id+"&n=")
				want = append(want, w)
			}
			got := r.Delivered()
			if tt.unordered && len(got) == len(want) {
				got = byNode(got)
				want = byNode(want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("notifications\n got %q\nwant %q", got, want)
			}
			if n := int(cs.Added()); n != len(want) {
				t.Errorf("%d notification effects written, want %d", n, len(want))
			}
		})
	}
}

func TestNotificationNoURL(t *testing.T) {
	for _, kv := range [][]string{
		nil,
		{PropWorkflowNotificationURL, "  "},
		{PropWorkflowNotificationProxy, "proxy:80"},
	} {
		h, cs := notifyHarness(t)
		app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
		id := h.run(props(app, kv...))
		if j := h.wait(id); j.Status != store.JobSucceeded {
			t.Fatalf("job %s", j.Status)
		}
		if n := cs.Added(); n != 0 {
			t.Errorf("properties %q: %d notification effects written, want none", kv, n)
		}
	}
}

// logHas reports whether a job's log has a line containing s at level.
func logHas(t *testing.T, e *Engine, jobID, level, s string) bool {
	t.Helper()
	logs, err := e.Logs(context.Background(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if l.Level == level && strings.Contains(l.Message, s) {
			return true
		}
	}
	return false
}

func TestNotificationRetry(t *testing.T) {
	tests := []struct {
		name     string
		retries  int
		failures int // answers 500 to the first RUNNING notifications
		want     []string
		gaveUp   bool
	}{
		{name: "fails once then delivered", retries: 3, failures: 1,
			want: []string{"RUNNING", "RUNNING", "SUCCEEDED"}},
		{name: "fails three times then delivered", retries: 3, failures: 3,
			want: []string{"RUNNING", "RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"}},
		{name: "gives up after the retries", retries: 2, failures: 100,
			want: []string{"RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"}, gaveUp: true},
		{name: "no retries", retries: -1, failures: 100,
			want: []string{"RUNNING", "SUCCEEDED"}, gaveUp: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const interval = time.Minute
			h, cs := notifyHarness(t, func(o *Options) {
				o.NotificationRetries, o.NotificationRetryInterval = tt.retries, interval
			})
			var fails atomic.Int32
			r := newRecorder(t, func(uri string, n int) int {
				if strings.Contains(uri, "RUNNING") && int(fails.Add(1)) <= tt.failures {
					return http.StatusInternalServerError
				}
				return http.StatusOK
			})
			app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
			id := h.run(props(app, PropWorkflowNotificationURL, r.URL+"/wf?s=$status"))
			h.wait(id)
			// Each failure is followed by a retry after the doubled
			// interval; SUCCEEDED waits behind RUNNING.
			for k := 1; k <= max(tt.retries, 0); k++ {
				var head *store.Effect
				h.eventually("retry scheduled or delivered", func() bool {
					p := pendingNotifications(t, cs)
					if len(p) == 0 {
						return true
					}
					head = p[0]
					return head.Attempt == k && h.clock.Pending() > 0
				})
				if head == nil || len(r.Attempts()) != k {
					break
				}
				if got := r.Attempts(); strings.Contains(got[len(got)-1], "SUCCEEDED") {
					t.Fatalf("SUCCEEDED sent before RUNNING was delivered: %q", got)
				}
				if want := h.clock.Now().Add(interval << (k - 1)); !head.NotBefore.Equal(want.Truncate(time.Millisecond)) {
					t.Errorf("retry %d not before %s, want %s", k, head.NotBefore, want)
				}
				h.clock.Advance(interval << (k - 1))
				head = nil
			}
			h.eventually("queue empty", func() bool { return len(pendingNotifications(t, cs)) == 0 && len(r.Attempts()) >= len(tt.want) })
			var got []string
			for _, u := range r.Attempts() {
				got = append(got, strings.TrimPrefix(u, "/wf?s="))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("requests %q, want %q", got, tt.want)
			}
			if has := logHas(t, h.e, id, LevelWarn, "giving up"); has != tt.gaveUp {
				t.Errorf("give-up line in the job log: %v, want %v", has, tt.gaveUp)
			}
			if !logHas(t, h.e, id, LevelInfo, "/wf?s=SUCCEEDED] delivered, HTTP status [200]") {
				t.Errorf("no delivery line for SUCCEEDED in the job log")
			}
		})
	}
}

func TestNotificationBadTarget(t *testing.T) {
	tests := []struct{ name, url, proxy, want string }{
		{"not http", "ftp://h/x?s=$status", "", "invalid notification URL [ftp://h/x?s=RUNNING]"},
		{"no host", "http:///x", "", "invalid notification URL"},
		{"bad proxy type", "http://h/x", "gopher@p:70", "type must be http or socks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, cs := notifyHarness(t)
			app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
			kv := []string{PropWorkflowNotificationURL, tt.url}
			if tt.proxy != "" {
				kv = append(kv, PropWorkflowNotificationProxy, tt.proxy)
			}
			id := h.run(props(app, kv...))
			h.wait(id)
			// Given up at once, without waiting for a retry.
			h.eventually("given up", func() bool { return len(pendingNotifications(t, cs)) == 0 })
			if !logHas(t, h.e, id, LevelWarn, tt.want) {
				logs, _ := h.e.Logs(context.Background(), id)
				for _, l := range logs {
					t.Log(l.Level, l.Message)
				}
				t.Errorf("no WARN line with %q", tt.want)
			}
		})
	}
}

func TestNotificationProxyUsed(t *testing.T) {
	// The recorder plays the HTTP proxy: a proxied GET carries the whole
	// target URL in its request line.
	h, cs := notifyHarness(t)
	r := newRecorder(t, nil)
	proxy := strings.TrimPrefix(r.URL, "http://")
	app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
	id := h.run(props(app, PropWorkflowNotificationURL, "http://notify.invalid/wf?s=$status",
		PropWorkflowNotificationProxy, proxy))
	h.wait(id)
	waitDelivered(h, cs, r, 2)
	want := []string{"http://notify.invalid/wf?s=RUNNING", "http://notify.invalid/wf?s=SUCCEEDED"}
	if got := r.Delivered(); !reflect.DeepEqual(got, want) {
		t.Errorf("proxy saw %q, want %q", got, want)
	}
}

func TestNotificationRestart(t *testing.T) {
	// The first engine commits the notifications but is closed while the
	// first one is in flight; the next engine delivers each exactly once.
	var opts *Options
	h, cs := notifyHarness(t, func(o *Options) { opts = o })
	arrived := make(chan struct{})
	release := make(chan struct{})
	var first atomic.Bool
	r := newRecorder(t, func(uri string, n int) int {
		if first.CompareAndSwap(false, true) {
			close(arrived)
			<-release
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	defer close(release)
	app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
	id := h.run(props(app, PropWorkflowNotificationURL, r.URL+"/wf?s=$status",
		PropActionNotificationURL, r.URL+"/node?n=$nodeName&s=$status"))
	h.wait(id)
	<-arrived
	h.e.Close()
	if n := len(pendingNotifications(t, cs)); n != 4 {
		t.Fatalf("%d notifications pending after the crash, want 4", n)
	}

	reg := action.NewRegistry()
	reg.Register("test", h.exec)
	o := *opts
	o.Actions = reg
	e2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.e = e2 // closed by the harness's cleanup
	if err := e2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitDelivered(h, cs, r, 4)
	want := []string{"/wf?s=RUNNING", "/node?n=a&s=S:RUNNING", "/node?n=a&s=T:end", "/wf?s=SUCCEEDED"}
	if got := r.Delivered(); !reflect.DeepEqual(got, want) {
		t.Errorf("after restart delivered %q, want %q", got, want)
	}
	if n := cs.Added(); n != 4 {
		t.Errorf("%d notification effects written, want 4 (the restart adds none)", n)
	}
}

// byNode keeps the first and last notification in place and orders the
// ones between by node, stably, so each node's own order still counts.
func byNode(uris []string) []string {
	out := append([]string(nil), uris...)
	mid := out[1 : len(out)-1]
	node := func(u string) string { _, n, _ := strings.Cut(u, "&n="); n, _, _ = strings.Cut(n, "&"); return n }
	sort.SliceStable(mid, func(i, j int) bool { return node(mid[i]) < node(mid[j]) })
	return out
}

// socks5Proxy is a minimal SOCKS5 server (no authentication, CONNECT
// only) that records the targets it connects to.
func socks5Proxy(t *testing.T) (addr string, targets func() []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var seen []string
	serve := func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 262)
		// Greeting: version, method count, methods; answer "no auth".
		if _, err := io.ReadFull(c, buf[:2]); err != nil || buf[0] != 5 {
			return
		}
		if _, err := io.ReadFull(c, buf[:buf[1]]); err != nil {
			return
		}
		c.Write([]byte{5, 0})
		// Request: version, CONNECT, reserved, address type, address, port.
		if _, err := io.ReadFull(c, buf[:4]); err != nil || buf[1] != 1 {
			return
		}
		var host string
		switch buf[3] {
		case 1:
			io.ReadFull(c, buf[:4])
			host = net.IP(buf[:4]).String()
		case 3:
			io.ReadFull(c, buf[:1])
			n := int(buf[0])
			io.ReadFull(c, buf[:n])
			host = string(buf[:n])
		default:
			return
		}
		io.ReadFull(c, buf[:2])
		target := net.JoinHostPort(host, fmt.Sprint(int(buf[0])<<8|int(buf[1])))
		mu.Lock()
		seen = append(seen, target)
		mu.Unlock()
		up, err := net.Dial("tcp", target)
		if err != nil {
			c.Write([]byte{5, 1, 0, 1, 0, 0, 0, 0, 0, 0})
			return
		}
		defer up.Close()
		c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
		go io.Copy(up, c)
		io.Copy(c, up)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestNotificationSocksProxy(t *testing.T) {
	h, cs := notifyHarness(t)
	r := newRecorder(t, nil)
	proxy, targets := socks5Proxy(t)
	app := h.writeApp("n", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
	id := h.run(props(app, PropWorkflowNotificationURL, r.URL+"/wf?s=$status",
		PropWorkflowNotificationProxy, "socks@"+proxy))
	h.wait(id)
	waitDelivered(h, cs, r, 2)
	if got, want := r.Delivered(), []string{"/wf?s=RUNNING", "/wf?s=SUCCEEDED"}; !reflect.DeepEqual(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	host := strings.TrimPrefix(r.URL, "http://")
	if got := targets(); len(got) == 0 || got[0] != host {
		t.Errorf("SOCKS proxy connected to %q, want %s", got, host)
	}
}

// BenchmarkNotifyLinear1000 is BenchmarkNoopLinear1000 with job and node
// notifications to a local listener: the job's 1,000 actions plus the
// time until all 2,002 notifications are delivered.
func BenchmarkNotifyLinear1000(b *testing.B) {
	backends(b, func(b *testing.B, backend string) {
		env := newBenchEnv(b, backend, false)
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
		b.Cleanup(srv.Close)
		app := env.app(b, "linear", linearApp(1000, "noop", noopBody))
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			before := n.Load()
			id, err := env.e.Run(ctx, props(app, PropWorkflowNotificationURL, srv.URL+"/wf?id=$jobId&s=$status",
				PropActionNotificationURL, srv.URL+"/n?id=$jobId&n=$nodeName&s=$status"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := env.e.Wait(ctx, id); err != nil {
				b.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for n.Load()-before < 2002 {
				if time.Now().After(deadline) {
					b.Fatalf("%d of 2002 notifications delivered", n.Load()-before)
				}
				time.Sleep(time.Millisecond)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*1000), "µs/action")
	})
}
