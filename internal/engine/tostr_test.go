package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
)

// toJsonStr, toPropertiesStr and toConfigurationStr reach a program as
// Oozie delivers them: Oozie escapes them for the action's XML text and
// parses that text once more, so the program gets {"a":...}, never
// {&quot;a&quot;:...}. Checked with real shell steps: the output one
// captures, rendered into another's argument and into the action
// configuration that program reads.
func TestToStrReachesProgramsUnescaped(t *testing.T) {
	h := newHarness(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launch.RegisterBuiltins(h.e.actions, launch.Options{Launcher: []string{self}})
	out := t.TempDir()
	argFile, confFile := filepath.Join(out, "arg"), filepath.Join(out, "action.xml")
	shell := func(name, ok string, inner string) string {
		return `<action name="` + name + `"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>` +
			`<name-node>file:///</name-node>` + inner + `<capture-output/></shell><ok to="` + ok + `"/><error to="fail"/></action>`
	}
	probe := shell("probe", "use", `<exec>sh</exec><argument>-c</argument>`+
		`<argument>echo 'a=x"y'; echo 'b=&lt;&amp;&gt;'</argument>`)
	use := shell("use", "end", `<configuration>`+
		`<property><name>props</name><value>${toPropertiesStr(wf:actionData('probe'))}</value></property>`+
		`<property><name>doc</name><value>${toConfigurationStr(wf:actionData('probe'))}</value></property>`+
		`</configuration><exec>sh</exec><argument>-c</argument>`+
		`<argument>printf '%s' "$1" &gt; `+argFile+`; cp "$OOZIE_ACTION_CONF_XML" `+confFile+`; echo ok=1</argument>`+
		`<argument>sh</argument><argument>${toJsonStr(wf:actionData('probe'))}</argument>`)
	app := wf(`<start to="probe"/>` + probe + use + `<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	id := h.run(props(h.writeApp("tostr", app, nil)))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}

	const wantJSON = `{"a":"x\"y","b":"<&>"}`
	arg, err := os.ReadFile(argFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(arg) != wantJSON {
		t.Errorf("argument = %s, want %s", arg, wantJSON)
	}
	c, err := conf.LoadFile(confFile)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("props"); strings.TrimSpace(got) != "a=x\"y\nb=<&>" {
		t.Errorf("props = %q, want the properties text unescaped", got)
	}
	doc, _ := c.Get("doc")
	inner, err := conf.ParseXML(strings.NewReader(doc), "doc")
	if err != nil {
		t.Fatalf("doc is not a configuration document: %v\n%s", err, doc)
	}
	if got, _ := inner.Get("b"); got != "<&>" {
		t.Errorf("doc's b = %q, want <&>", got)
	}
}
