package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

const shellNS = `xmlns="uri:oozie:shell-action:0.3"`

func paramApp() string {
	return `<workflow-app xmlns="uri:oozie:workflow:0.5" name="params-${mode}">
	<parameters>
		<property><name>inputDir</name></property>
		<property><name>mode</name><value>fast</value></property>
	</parameters>
	<global>
		<job-tracker>${jobTracker}</job-tracker>
		<name-node>${nameNode}</name-node>
		<job-xml>conf/global.xml</job-xml>
		<configuration>
			<property><name>g1</name><value>global</value></property>
			<property><name>shared</name><value>global</value></property>
		</configuration>
	</global>
	<start to="a"/>
	<action name="a">
		<shell ` + shellNS + `>
			<job-xml>conf/job1.xml</job-xml>
			<configuration>
				<property><name>shared</name><value>action</value></property>
				<property><name>dotted</name><value>${wf:conf('dotted.name')}</value></property>
				<property><name>user</name><value>${wf:user()}</value></property>
			</configuration>
			<exec>echo</exec>
			<argument>${inputDir}|${mode}|${outputDir}|${wf:name()}</argument>
		</shell>
		<ok to="end"/>
		<error to="fail"/>
	</action>
	<kill name="fail"><message>x</message></kill>
	<end name="end"/>
</workflow-app>`
}

func confXML(kv ...string) string {
	var b strings.Builder
	b.WriteString("<configuration>")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>")
	}
	b.WriteString("</configuration>")
	return b.String()
}

func TestParameterizationPrecedence(t *testing.T) {
	h := newHarness(t)
	h.e.actions.Register("shell", h.exec)
	app := h.writeApp("params", paramApp(), map[string]string{
		"config-default.xml": confXML("outputDir", "default-out", "onlyDefault", "d", "shared", "default"),
		"conf/global.xml":    confXML("gx", "fromglobalxml", "jx", "globalxml"),
		"conf/job1.xml":      confXML("jx", "fromjobxml", "shared", "jobxml"),
	})
	p := props(app, "jobTracker", "local", "nameNode", "file:///", "inputDir", "in",
		"outputDir", "job-out", "dotted.name", "dv", "user.name", "alice")
	id := h.run(p)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	j, _ := h.job(id)
	if j.AppName != "params-fast" || j.User != "alice" {
		t.Errorf("job name %q user %q", j.AppName, j.User)
	}
	actx := h.exec.contexts["a"]
	// Job properties beat config-default.xml; <parameters> defaults fill
	// what neither sets; EL sees Java-identifier properties as variables.
	if got := actx.Element.ChildText("argument"); got != "in|fast|job-out|params-fast" {
		t.Errorf("argument = %q", got)
	}
	want := map[string]string{
		"shared":      "action",        // action <configuration> over global, job-xml and defaults
		"g1":          "global",        // <global> configuration
		"jx":          "fromjobxml",    // action job-xml over global job-xml
		"gx":          "fromglobalxml", // global job-xml
		"onlyDefault": "d",             // config-default.xml seeds the action configuration
		"dotted":      "dv",            // non-identifier properties through wf:conf
		"user":        "alice",
	}
	for k, v := range want {
		if got, _ := actx.Conf.Get(k); got != v {
			t.Errorf("action conf %s = %q, want %q", k, got, v)
		}
	}
	if v, _ := actx.JobConf.Get("mode"); v != "fast" {
		t.Errorf("job conf mode = %q (parameter default not applied)", v)
	}
	if !strings.HasPrefix(actx.WorkDir, filepath.Join(h.dir, "actions", id+"@a")) {
		t.Errorf("work dir %s", actx.WorkDir)
	}
}

func TestMissingRequiredParameterRefused(t *testing.T) {
	h := newHarness(t)
	h.e.actions.Register("shell", h.exec)
	app := h.writeApp("params", paramApp(), nil)
	_, err := h.e.Run(context.Background(), props(app, "jobTracker", "x", "nameNode", "y"))
	if ErrorCode(err) != "E0738" || !strings.Contains(err.Error(), "inputDir") {
		t.Fatalf("err = %v, want E0738 naming inputDir", err)
	}
}

// TestConformanceConfigResolution runs the config_resolution vector: the
// action configuration holds config-default.xml entries, ${var}-expanded
// against the job configuration, under the action's own properties.
func TestConformanceConfigResolution(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "conformance", "basic_el.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		ID       string            `json:"id"`
		Kind     string            `json:"kind"`
		Defaults map[string]string `json:"config_default_xml"`
		Job      map[string]string `json:"job_configuration"`
		Action   map[string]string `json:"action_configuration_in_workflow"`
		Expected map[string]string `json:"expected_action_configuration"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vectors {
		if v.Kind != "config_resolution" {
			continue
		}
		n++
		t.Run(v.ID, func(t *testing.T) {
			h := newHarness(t)
			h.e.actions.Register("shell", h.exec)
			subst := func(s string) string {
				return strings.NewReplacer("{NAME_NODE}", "file:///", "{JOB_TRACKER}", "local").Replace(s)
			}
			var defaults, action []string
			for k, val := range v.Defaults {
				defaults = append(defaults, k, val)
			}
			for k, val := range v.Action {
				action = append(action, k, val)
			}
			app := h.writeApp("cr", wf(`<start to="a"/><action name="a"><shell `+shellNS+`>
				<job-tracker>${jobTracker}</job-tracker><name-node>${nameNode}</name-node>`+
				confXML(action...)+`<exec>true</exec></shell><ok to="end"/><error to="end"/></action><end name="end"/>`),
				map[string]string{"config-default.xml": confXML(defaults...)})
			p := props(app)
			for k, val := range v.Job {
				p.Set(k, subst(val))
			}
			id := h.run(p)
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("status %s: %s", j.Status, h.describe(id))
			}
			actx := h.exec.contexts["a"]
			for k, want := range v.Expected {
				if got, _ := actx.Conf.Get(k); got != subst(want) {
					t.Errorf("action conf %s = %q, want %q", k, got, subst(want))
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no config_resolution vectors")
	}
}
