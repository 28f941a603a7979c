package bundleengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/vocab"
)

// t0 is the harness's start time.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// harness runs the three engines on one SQLite store with a fake clock;
// restart replaces them by new ones on the same store, as a server
// restart does.
type harness struct {
	t     testing.TB
	dir   string
	store store.Store
	clock *enginetest.FakeClock
	wf    *engine.Engine
	co    *coordengine.Engine
	b     *Engine
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newHarnessOn(t, dir, st)
}

// newPostgresHarness is a harness on a schema of its own on the test
// PostgreSQL server (skipped without one).
func newPostgresHarness(t testing.TB) *harness {
	t.Helper()
	return newHarnessOn(t, t.TempDir(), postgres.OpenTest(t))
}

func newHarnessOn(t testing.TB, dir string, st store.Store) *harness {
	t.Helper()
	h := &harness{t: t, dir: dir, store: st, clock: enginetest.NewFakeClock(t0)}
	h.start()
	t.Cleanup(func() { h.wf.Close() })
	writeApp(t, dir)
	return h
}

func (h *harness) start() {
	h.t.Helper()
	wf, err := engine.New(engine.Options{Store: h.store, Actions: action.NewRegistry(), DataDir: h.dir, Clock: h.clock,
		PollInterval: time.Hour, DefaultUser: "tester", SystemID: "oozie-test", Logf: h.t.Logf,
		CrashJournal: filepath.Join(h.dir, "effects.journal")})
	if err != nil {
		h.t.Fatal(err)
	}
	h.wf = wf
	h.co = coordengine.New(wf, wf.Runtime(), coordengine.Options{MinFrequencyMinutes: -1})
	h.b = New(wf, h.co, wf.Runtime())
	if err := wf.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

// restart closes the engines and starts new ones on the same store.
func (h *harness) restart() {
	h.t.Helper()
	h.settle()
	h.wf.Close()
	h.start()
	h.settle()
}

// settle waits until no effect is due (enginetest.Settle).
func (h *harness) settle() {
	h.t.Helper()
	enginetest.Settle(h.t, h.store, h.clock.Now)
}

// advance moves the fake clock by d in steps of at most step, settling
// after each.
func (h *harness) advance(d, step time.Duration) {
	h.t.Helper()
	for d > 0 {
		s := min(d, step)
		h.clock.Advance(s)
		d -= s
		h.settle()
	}
}

// writeApp writes a workflow that ends at once, three coordinators of
// one action a day for two days from 2030-01-02 (c, ready, wants a file
// under data/), and the bundle definitions the tests submit.
func writeApp(t testing.TB, dir string) {
	t.Helper()
	coordXML := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="NAME" frequency="${coord:days(1)}"
    start="2030-01-02T00:00Z" end="2030-01-04T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + filepath.Join(dir, "wf") + `</app-path></workflow></action>
</coordinator-app>`
	dataCoordXML := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="data" frequency="${coord:days(1)}"
    start="2030-01-02T00:00Z" end="2030-01-04T00:00Z" timezone="UTC">
  <controls><timeout>-1</timeout></controls>
  <datasets><dataset name="in" frequency="${coord:days(1)}" initial-instance="2030-01-01T00:00Z" timezone="UTC">
    <uri-template>file://` + filepath.Join(dir, "data") + `/${YEAR}${MONTH}${DAY}</uri-template></dataset></datasets>
  <input-events><data-in name="i" dataset="in"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>` + filepath.Join(dir, "wf") + `</app-path></workflow></action>
</coordinator-app>`
	files := map[string]string{
		"wf/workflow.xml":      `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="end"/><end name="end"/></workflow-app>`,
		"c1/coordinator.xml":   strings.Replace(coordXML, "NAME", "c1", 1),
		"c2/coordinator.xml":   strings.Replace(coordXML, "NAME", "c2", 1),
		"data/coordinator.xml": dataCoordXML,
		"bad/coordinator.xml":  `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="bad"/>`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bundleXML is a bundle of the coordinators named (name=dir pairs, a
// name ending in "!" critical, one ending in "-" disabled).
func (h *harness) bundleXML(kickoff string, coords ...string) string {
	var b strings.Builder
	b.WriteString(`<bundle-app xmlns="uri:oozie:bundle:0.2" name="pipeline">`)
	if kickoff != "" {
		b.WriteString(`<controls><kick-off-time>` + kickoff + `</kick-off-time></controls>`)
	}
	for _, c := range coords {
		name, app, _ := strings.Cut(c, "=")
		attrs := ""
		if strings.HasSuffix(name, "!") {
			name, attrs = strings.TrimSuffix(name, "!"), ` critical="true"`
		}
		if strings.HasSuffix(name, "-") {
			name, attrs = strings.TrimSuffix(name, "-"), ` enabled="false"`
		}
		b.WriteString(`<coordinator name="` + name + `"` + attrs + `><app-path>` + filepath.Join(h.dir, app) +
			`</app-path><configuration><property><name>who</name><value>` + name + `</value></property></configuration></coordinator>`)
	}
	b.WriteString(`</bundle-app>`)
	return b.String()
}

// props writes a bundle definition and returns its job properties.
func (h *harness) props(xml string) *conf.Config {
	h.t.Helper()
	dir, err := os.MkdirTemp(h.dir, "bundle")
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bundle.xml"), []byte(xml), 0o644); err != nil {
		h.t.Fatal(err)
	}
	p := conf.New()
	p.Set(vocab.PropBundleAppPath, dir)
	p.Set(vocab.PropUser, "tester")
	return p
}

// submit submits (run: runs) a bundle and settles.
func (h *harness) submit(xml string, run bool) string {
	h.t.Helper()
	f := h.b.Submit
	if run {
		f = h.b.Run
	}
	id, err := f(context.Background(), h.props(xml))
	if err != nil {
		h.t.Fatal(err)
	}
	h.settle()
	return id
}

func (h *harness) job(id string) *store.BundleJob {
	h.t.Helper()
	j, err := h.b.BundleJob(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return j
}

// coords returns the bundle's coordinator jobs by name.
func (h *harness) coords(id string) map[string]*store.CoordJob {
	h.t.Helper()
	out := map[string]*store.CoordJob{}
	err := h.store.View(context.Background(), func(tx store.Tx) error {
		js, err := tx.CoordJobs(context.Background(), store.JobFilter{ParentID: id})
		for _, j := range js {
			if out[j.AppName] != nil {
				h.t.Errorf("coordinator %s of %s submitted twice", j.AppName, id)
			}
			out[j.AppName] = j
		}
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// statuses is "bundle: name=STATUS ..." for messages and comparisons.
func (h *harness) statuses(id string) string {
	h.t.Helper()
	cs := h.coords(id)
	acts, err := h.b.BundleActions(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	parts := []string{h.job(id).Status + ":"}
	for _, a := range acts {
		st := "-"
		if c := cs[a.CoordName]; c != nil {
			st = c.Status
		}
		parts = append(parts, a.CoordName+"="+st)
	}
	return strings.Join(parts, " ")
}

// want checks the bundle's and its coordinators' statuses.
func (h *harness) want(id, want string) {
	h.t.Helper()
	if got := h.statuses(id); got != want {
		h.t.Fatalf("statuses: got %q, want %q", got, want)
	}
}
