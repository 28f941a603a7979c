package engine

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// TestSubmissionLimits reproduces the submissions that took the server
// down: a configuration whose ${var} expansion grows to gigabytes (the job
// stayed in PREP and starting it killed the server again), an app path of
// /dev/zero (read until out of memory) and FIFOs (the request hung). Each
// must be refused at submission, quickly, with an Oozie code and the
// property or path named, and leave no job behind. The coordinator's
// cases are in package coordengine (TestCoordSubmissionLimits).
func TestSubmissionLimits(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Expand = conf.ExpandLimits{Value: 64 << 10, Total: 1 << 20}
		o.MaxDefinitionBytes = 4096
	})
	good := wf(`<start to="a"/>` + testAction("a", "end", "end") + `<end name="end"/>`)
	big := strings.Repeat("x", 1000)
	bomb := strings.Repeat("${big}", 1000)
	fifo := func(name string) string {
		p := filepath.Join(h.dir, "fifos", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifoIn := func(app, name string) string {
		dir := h.writeApp(app, good, nil)
		if name == "workflow.xml" {
			os.Remove(filepath.Join(dir, name))
		}
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cases := []struct {
		name     string
		props    func() *conf.Config
		code     string
		mentions string
	}{
		{"expansion bomb in job properties", func() *conf.Config {
			return props(h.writeApp("bomb", good, nil), "big", big, "bomb", bomb)
		}, "E1004", "property [bomb] expands to more than 65536 bytes"},
		{"expansion bomb in config-default.xml", func() *conf.Config {
			c := conf.New()
			c.Set("big", big)
			c.Set("bomb", bomb)
			var b strings.Builder
			c.WriteXML(&b)
			return props(h.writeApp("bomb-default", good, map[string]string{"config-default.xml": b.String()}))
		}, "E1004", "[bomb]"},
		{"expansion bomb through parameters", func() *conf.Config {
			return props(h.writeApp("bomb-param", `<workflow-app xmlns="uri:oozie:workflow:1.0" name="p">
				<parameters><property><name>bomb</name><value>`+strings.Repeat("${big}", 70)+`</value></property></parameters>`+
				`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/></workflow-app>`, nil), "big", big)
		}, "E1004", "[bomb]"},
		{"total expansion", func() *conf.Config {
			kv := []string{"big", strings.Repeat("y", 60<<10)}
			for i := range 20 {
				kv = append(kv, "v"+string(rune('a'+i)), "${big}")
			}
			return props(h.writeApp("total", good, nil), kv...)
		}, "E1004", "expanded configuration is larger than 1048576 bytes"},
		{"app path /dev/zero", func() *conf.Config { return props("/dev/zero") }, "E0710", "[/dev/zero] is a device"},
		{"app path is a FIFO", func() *conf.Config { return props(fifo("app.xml")) }, "E0710", "named pipe"},
		{"workflow.xml is a FIFO", func() *conf.Config { return props(fifoIn("fifo-wf", "workflow.xml")) }, "E0710", "workflow.xml] is a named pipe"},
		{"config-default.xml is a FIFO", func() *conf.Config { return props(fifoIn("fifo-default", "config-default.xml")) }, "E0710", "config-default.xml] is a named pipe"},
		{"definition over the limit", func() *conf.Config {
			return props(h.writeApp("huge", wf(`<!--`+strings.Repeat("z", 5000)+`-->`+`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil))
		}, "E0736", "maximum allowed length [4096]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The deadline is a safety net: a FIFO read would block.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			_, err := h.e.Submit(ctx, c.props())
			if err == nil {
				t.Fatal("submission accepted")
			}
			if ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.mentions) {
				t.Fatalf("err = %v, want code %s mentioning %q", err, c.code, c.mentions)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusal took %v", d)
			}
		})
	}
	jobs, _, err := h.e.Jobs(context.Background(), store.JobFilter{})
	if err != nil || len(jobs) != 0 {
		t.Errorf("jobs after refused submissions: %d, %v", len(jobs), err)
	}
}

// TestSubmissionReadCanceled: a submission whose request is gone does not
// read the definition.
func TestSubmissionReadCanceled(t *testing.T) {
	h := newHarness(t)
	app := h.writeApp("ok", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.e.Submit(ctx, props(app)); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err = %v, want context canceled", err)
	}
}

// TestDefinitionLimitRaised: raising MaxDefinitionBytes (the server's
// gozie.definition.max.bytes) lets a definition over Oozie's 100,000 bytes
// through both the bounded reader and the parser's own length check.
func TestDefinitionLimitRaised(t *testing.T) {
	for _, tc := range []struct {
		max  int64
		code string
	}{{0, "E0736"}, {200_000, ""}} {
		h := newHarness(t, func(o *Options) { o.MaxDefinitionBytes = tc.max })
		app := h.writeApp("large", wf(`<!--`+strings.Repeat("z", 150_000)+`-->`+`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
		_, err := h.e.Submit(context.Background(), props(app))
		if ErrorCode(err) != tc.code {
			t.Errorf("limit %d: err = %v, want code %q", tc.max, err, tc.code)
		}
	}
}

// TestStoredExpansionBomb: a job stored in PREP with a configuration that
// expands past the limits (submitted before submissions were checked) is
// refused with E1004 when started, instead of being expanded.
func TestStoredExpansionBomb(t *testing.T) {
	h := newHarness(t)
	app := h.writeApp("ok", wf(`<start to="a"/>`+testAction("a", "end", "end")+`<end name="end"/>`), nil)
	id, err := h.e.Submit(context.Background(), props(app))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = h.store.Update(ctx, func(tx store.Tx) error {
		j, err := tx.Job(ctx, id)
		if err != nil {
			return err
		}
		c := conf.New()
		c.Set(PropAppPath, app)
		c.Set(PropUser, "tester")
		c.Set("big", strings.Repeat("x", 1<<20))
		for i := range 40 {
			c.Set(fmt.Sprintf("v%d", i), "${big}")
		}
		var b strings.Builder
		if err := c.WriteXML(&b); err != nil {
			return err
		}
		j.Conf = b.String()
		return tx.PutJob(ctx, j)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.e.StartJob(ctx, id); ErrorCode(err) != "E1004" {
		t.Fatalf("StartJob = %v, want E1004", err)
	}
}

// TestActionAmplification reproduces the probe's EL amplification: 300
// <argument>${big}</argument> of a 900 KB property took the server to 4.69
// GB, stored 271 MB as the action's configuration and served 270 MB on
// show=info. The action must fail with E1004 naming the limit and the
// action, before its executor is asked to start anything; what is stored
// and served stays small, and the memory the engine allocates for the
// whole run (TotalAlloc bounds the peak from above) stays far below the
// amplified size.
func TestActionAmplification(t *testing.T) {
	h := newHarness(t)
	var body strings.Builder
	body.WriteString(`<test xmlns="uri:gozie:test:1.0">`)
	for range 300 {
		body.WriteString(`<argument>${big}</argument>`)
	}
	body.WriteString(`</test>`)
	app := h.writeApp("amplify", wf(`<start to="a"/><action name="a">`+body.String()+
		`<ok to="end"/><error to="fail"/></action><kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	p := props(app, "big", strings.Repeat("b", 900_000))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	id := h.run(p)
	j := h.wait(id)
	runtime.ReadMemStats(&after)

	_, acts := h.job(id)
	a := acts["a"]
	if a == nil || a.Status != store.ActionError || a.ErrorCode != "E1004" ||
		!strings.Contains(a.ErrorMessage, "action [a]") || !strings.Contains(a.ErrorMessage, fmt.Sprint(DefaultMaxActionBytes)) {
		t.Fatalf("action a: %+v; want ERROR E1004 naming the action and the limit", a)
	}
	if j.Status != store.JobKilled {
		t.Errorf("job %s, want KILLED through the error transition", j.Status)
	}
	if n := h.exec.count(h.exec.starts, "a"); n != 0 {
		t.Errorf("executor started a %d times", n)
	}
	if len(a.Conf) > DefaultMaxActionBytes {
		t.Errorf("stored action configuration is %d bytes", len(a.Conf))
	}
	j, all, err := h.e.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(NewJobJSON(j, all, ""))
	if err != nil {
		t.Fatal(err)
	}
	// The job's own configuration holds the 900 KB property once.
	if len(info) > 3<<20 {
		t.Errorf("show=info is %d bytes", len(info))
	}
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("the run allocated %d MB in all", grew>>20)
	if grew > 100<<20 {
		t.Errorf("the run allocated %d MB; the amplified action is 270 MB", grew>>20)
	}
}

// TestResolveActionLimit: the bound is on the action's XML after EL, at
// the limit included; escaping counts (a text of quotes grows fivefold);
// and evaluation stops at the first text that passes the limit instead of
// resolving the rest.
func TestResolveActionLimit(t *testing.T) {
	evals := 0
	funcs := el.Basic()
	funcs.Define("t", "count", nil, func(*el.Call) (any, error) { evals++; return "", nil })
	ev := &el.Evaluator{Funcs: funcs, Vars: el.MapVars{"k": strings.Repeat("k", 1000), "q": strings.Repeat(`"`, 300)}}
	args := func(n int, text string) *workflow.Element {
		e := &workflow.Element{Name: xml.Name{Local: "test"}}
		for range n {
			e.Children = append(e.Children, &workflow.Element{Name: xml.Name{Local: "arg"}, Text: text})
		}
		return e
	}
	// <test><arg>...</arg>x3</test> with 1000-byte texts: 6+3*(5+1000+6)+7.
	const three = 6 + 3*1011 + 7
	tests := []struct {
		name  string
		body  *workflow.Element
		limit int
		ok    bool
		evals int // t:count calls, when the body uses it
	}{
		{"at the limit", args(3, "${k}"), three, true, 0},
		{"one byte over", args(3, "${k}"), three - 1, false, 0},
		{"literal text counts", args(3, strings.Repeat("k", 1000)), three - 1, false, 0},
		{"escaping counts", args(1, "${q}"), 6 + 5 + 300 + 6 + 7, false, 0},
		{"attributes count", &workflow.Element{Name: xml.Name{Local: "test"},
			Attrs: []xml.Attr{{Name: xml.Name{Local: "a"}, Value: "${k}"}}}, 500, false, 0},
		{"stops at the first text over", &workflow.Element{Name: xml.Name{Local: "test"}, Children: append(args(3, "${k}").Children,
			args(5, "${t:count()}").Children...)}, 2000, false, 0},
		{"resolves everything under the limit", &workflow.Element{Name: xml.Name{Local: "test"}, Children: append(args(1, "${k}").Children,
			args(5, "${t:count()}").Children...)}, 2000, true, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evals = 0
			out, x, err := resolveAction(ev, tc.body, tc.limit)
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, errActionTooLarge) {
				t.Fatalf("err = %v, want errActionTooLarge", err)
			}
			if tc.ok && (out == nil || len(x) > tc.limit) {
				t.Fatalf("xml of %d bytes over the limit %d", len(x), tc.limit)
			}
			if evals != tc.evals {
				t.Errorf("t:count evaluated %d times, want %d", evals, tc.evals)
			}
		})
	}
}
