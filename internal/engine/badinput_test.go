package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// TestRefusedSubmissions: bad applications are refused at submission with
// Oozie's error code and a message naming the node, property or path.
func TestRefusedSubmissions(t *testing.T) {
	h := newHarness(t)
	good := twoStepApp()
	cases := []struct {
		name     string
		app      func() string // returns the app path
		props    []string
		code     string
		mentions string
	}{
		{"missing app dir", func() string { return filepath.Join(h.dir, "no-such-app") }, nil, "E0504", "no-such-app"},
		{"dir without workflow.xml", func() string {
			d := filepath.Join(h.dir, "empty-app")
			os.MkdirAll(d, 0o755)
			return d
		}, nil, "E0505", "workflow.xml"},
		{"hdfs app path", func() string { return "hdfs://nn:8020/apps/x" }, nil, "E0711", "hdfs"},
		{"malformed xml", func() string { return h.writeApp("bad-xml", "<workflow-app", nil) }, nil, "E0701", ""},
		{"transition to nowhere", func() string {
			return h.writeApp("bad-trans", wf(`<start to="a"/>`+testAction("a", "nowhere", "end")+`<end name="end"/>`), nil)
		}, nil, "E0708", "nowhere"},
		{"unknown extension action", func() string {
			return h.writeApp("bad-type", wf(`<start to="a"/><action name="a"><frob xmlns="uri:custom:frob:0.1"/>
				<ok to="end"/><error to="end"/></action><end name="end"/>`), nil)
		}, nil, "E0723", "frob"},
		{"built-in action without executor", func() string {
			return h.writeApp("no-exec", wf(`<start to="a"/><action name="a"><map-reduce><job-tracker>j</job-tracker>
				<name-node>n</name-node></map-reduce><ok to="end"/><error to="end"/></action><end name="end"/>`), nil)
		}, nil, "E0723", "node [a] type [map-reduce]"},
		{"user.name in config-default", func() string {
			return h.writeApp("bad-default", good, map[string]string{"config-default.xml": confXML("user.name", "x")})
		}, nil, "E0804", "user.name"},
		{"no app path", func() string { return "" }, nil, "E0405", "oozie.wf.application.path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := props(c.app(), c.props...)
			_, err := h.e.Run(context.Background(), p)
			if err == nil {
				t.Fatal("submission accepted")
			}
			if ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.mentions) {
				t.Fatalf("err = %v, want code %s mentioning %q", err, c.code, c.mentions)
			}
		})
	}
}

// TestRuntimeELErrorsFailTheJob: EL that fails when a node executes fails
// the job; the node's record carries EL_ERROR and the EL problem.
func TestRuntimeELErrorsFailTheJob(t *testing.T) {
	cases := []struct {
		name, nodes, node, mentions string
	}{
		{"missing property in action", `<start to="a"/><action name="a"><shell ` + shellNS + `>
			<job-tracker>j</job-tracker><name-node>n</name-node><exec>echo</exec><argument>${nope}</argument>
			</shell><ok to="end"/><error to="end"/></action><end name="end"/>`, "a", "variable [nope] cannot be resolved"},
		{"EL syntax error in action", `<start to="a"/><action name="a"><shell ` + shellNS + `>
			<job-tracker>j</job-tracker><name-node>n</name-node><exec>echo</exec><argument>${1 +}</argument>
			</shell><ok to="end"/><error to="end"/></action><end name="end"/>`, "a", ""},
		{"missing property in decision", `<start to="d"/><decision name="d"><switch>
			<case to="end">${undefinedFlag}</case><default to="end"/></switch></decision><end name="end"/>`,
			"d", "variable [undefinedFlag] cannot be resolved"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.e.actions.Register("shell", h.exec)
			id := h.run(props(h.writeApp("el", wf(c.nodes), nil)))
			if j := h.wait(id); j.Status != store.JobFailed {
				t.Fatalf("status %s: %s", j.Status, h.describe(id))
			}
			_, m := h.job(id)
			a := m[c.node]
			if a == nil || a.Status != store.ActionFailed || a.ErrorCode != CodeELError || !strings.Contains(a.ErrorMessage, c.mentions) {
				t.Fatalf("record of %s = %+v", c.node, a)
			}
			if h.exec.count(h.exec.starts, c.node) != 0 {
				t.Fatal("executor started despite the EL error")
			}
		})
	}
}

func TestHadoopCountersEmpty(t *testing.T) {
	h := newHarness(t)
	app := h.writeApp("hc", wf(`<start to="d"/><decision name="d"><switch>
		<case to="fail">${hadoop:counters('a')[RECORDS][MAP_IN] gt 0}</case><default to="end"/></switch></decision>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
}

func TestFSFunctionsInDecision(t *testing.T) {
	h := newHarness(t)
	data := filepath.Join(h.dir, "data")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "f"), []byte("12345"), 0o644)
	app := h.writeApp("fs", wf(`<start to="d"/><decision name="d"><switch>
		<case to="fail">${not fs:exists(dir)}</case>
		<case to="fail">${not fs:isDir(dir)}</case>
		<case to="fail">${fs:dirSize(dir) ne 5}</case>
		<case to="fail">${fs:fileSize(concat(dir, '/f')) ne 5}</case>
		<case to="fail">${fs:fileSize(concat(dir, '/none')) ne -1}</case>
		<default to="end"/></switch></decision>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app, "dir", "file://"+data))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
}
