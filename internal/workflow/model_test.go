package workflow

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func mustParseFile(t *testing.T, name string, opts Options) *App {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	app, err := Parse(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func TestModelVersion10(t *testing.T) {
	app := mustParseFile(t, "wf-1.0.xml", DefaultOptions())
	if app.Name != "${wfName}" || app.Version != "1.0" || app.Start != "decide" {
		t.Errorf("app = %q %q %q", app.Name, app.Version, app.Start)
	}
	wantParams := []Parameter{
		{Name: "inputDir"},
		{Name: "queue", Value: "default", HasValue: true, Description: "the queue"},
	}
	if !reflect.DeepEqual(app.Parameters, wantParams) {
		t.Errorf("parameters = %+v", app.Parameters)
	}
	if g := app.Global; g == nil || g.JobTracker != "${resourceManager}" || !g.ResourceManager || g.NameNode != "${nameNode}" {
		t.Errorf("global = %+v", app.Global)
	}
	if len(app.Credentials) != 1 || app.Credentials[0].Type != "hcat" || app.Credentials[0].Properties[0].Value != "thrift://host:9083" {
		t.Errorf("credentials = %+v", app.Credentials)
	}
	if app.SLA == nil || app.SLA.ChildText("app-name") != "wf" {
		t.Errorf("app SLA missing")
	}
	var kinds []string
	for _, n := range app.Nodes {
		kinds = append(kinds, n.Name+":"+n.Kind.String())
	}
	wantKinds := []string{":start::start", "decide:decision", "forking:fork", "mr:action", "pig-node:action", "joining:join",
		"java-node:action", "fs-node:action", "sub:action", "fail:kill", "end:end"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("nodes = %v", kinds)
	}
	d := app.Node("decide")
	if len(d.Cases) != 1 || d.Cases[0].Predicate != "${fs:exists(inputDir)}" || d.Default != "fs-node" {
		t.Errorf("decision = %+v", d)
	}
	if got := d.Targets(); !reflect.DeepEqual(got, []string{"forking", "fs-node"}) {
		t.Errorf("decision targets = %v", got)
	}
	if got := app.Node("forking").Paths; !reflect.DeepEqual(got, []string{"mr", "pig-node"}) {
		t.Errorf("fork paths = %v", got)
	}
	mr := app.Node("mr")
	a := mr.Action
	if a.Type != "map-reduce" || !a.BuiltIn() || a.RetryMax != "3" || a.RetryInterval != "1" || a.RetryPolicy != "exponential" || a.Cred != "hcat" {
		t.Errorf("action = %+v", a)
	}
	if a.SLA == nil || a.SLA.ChildText("should-end") != "${10 * MINUTES}" {
		t.Errorf("action SLA = %+v", a.SLA)
	}
	if a.JobTracker() != "${resourceManager}" || a.NameNode() != "${nameNode}" {
		t.Errorf("cluster = %q %q", a.JobTracker(), a.NameNode())
	}
	if got := a.JobXML(); !reflect.DeepEqual(got, []string{"job.xml", "global.xml"}) {
		t.Errorf("job-xml = %v", got)
	}
	wantPrep := []PrepareOp{{"delete", "${nameNode}/out"}, {"mkdir", "${nameNode}/tmp"}}
	if got := a.Prepare(); !reflect.DeepEqual(got, wantPrep) {
		t.Errorf("prepare = %v", got)
	}
	wantConf := map[string]string{
		"mapred.job.queue.name":    "${queue}",
		"oozie.launcher.memory.mb": "1024",
		"oozie.launcher.queue":     "${queue}",
		"mapred.input.dir":         "${inputDir}",
	}
	for k, v := range wantConf {
		if got, ok := a.ConfigValue(k); !ok || got != v {
			t.Errorf("conf %s = %q (%v), want %q", k, got, ok, v)
		}
	}
	// Sub-workflow and kill are left alone by global resolution.
	if sub := app.Node("sub").Action; sub.NameNode() != "" || len(sub.Configuration()) != 1 {
		t.Errorf("sub-workflow changed: %+v", sub.Configuration())
	}
	if msg := app.Node("fail").Message; msg != "Failed, error message[${wf:errorMessage(wf:lastErrorNode())}]" {
		t.Errorf("kill message = %q", msg)
	}
}

func TestModelVersion01(t *testing.T) {
	app := mustParseFile(t, "wf-0.1.xml", DefaultOptions())
	ssh := app.Node("ssh-node").Action
	if ssh.Type != "ssh" || !ssh.BuiltIn() || ssh.Body.ChildText("host") != "user@host" {
		t.Errorf("ssh = %+v", ssh)
	}
	if app.Node("mr").Action.JobTracker() != "${jobTracker}" {
		t.Errorf("job tracker lost")
	}
}

func TestServerDefaults(t *testing.T) {
	x := wfXML("0.5", `<start to="a"/><action name="a"><shell xmlns="uri:oozie:shell-action:0.3"><exec>ls</exec></shell><ok to="e"/><error to="e"/></action><end name="e"/>`)
	opts := DefaultOptions()
	opts.DefaultJobTracker, opts.DefaultNameNode = "jt:8032", "hdfs://nn"
	app, err := Parse([]byte(x), opts)
	if err != nil {
		t.Fatal(err)
	}
	a := app.Node("a").Action
	if a.JobTracker() != "jt:8032" || a.NameNode() != "hdfs://nn" {
		t.Errorf("defaults not applied: %q %q", a.JobTracker(), a.NameNode())
	}
	if _, err := Parse([]byte(x), DefaultOptions()); ErrorCode(err) != "E0701" {
		t.Errorf("missing cluster: %v", err)
	}
}

func TestExtensionActionsOption(t *testing.T) {
	x := wfXML("0.5", `<start to="a"/><action name="a"><hello xmlns="uri:example:hello-action:0.1"><greeting>u</greeting></hello><ok to="e"/><error to="e"/></action><end name="e"/>`)
	if _, err := Parse([]byte(x), DefaultOptions()); ErrorCode(err) != "E0723" {
		t.Fatalf("hello not registered: %v", err)
	}
	opts := DefaultOptions()
	opts.ExtensionActions["hello"] = true
	app, err := Parse([]byte(x), opts)
	if err != nil {
		t.Fatal(err)
	}
	if a := app.Node("a").Action; a.Type != "hello" || a.Namespace != "uri:example:hello-action:0.1" || a.BuiltIn() {
		t.Errorf("generic action = %+v", a)
	}
}

// git (uri:oozie:git-action:1.0) is a known extension: accepted by
// default, its required elements checked.
func TestGitExtension(t *testing.T) {
	ok := wfXML("0.5", `<start to="a"/><action name="a"><git xmlns="uri:oozie:git-action:1.0"><name-node>file:///</name-node><git-uri>u</git-uri><destination-uri>/d</destination-uri></git><ok to="e"/><error to="e"/></action><end name="e"/>`)
	if _, err := Parse([]byte(ok), DefaultOptions()); err != nil {
		t.Errorf("git: %v", err)
	}
	bad := wfXML("0.5", `<start to="a"/><action name="a"><git xmlns="uri:oozie:git-action:1.0"><name-node>file:///</name-node><git-uri>u</git-uri></git><ok to="e"/><error to="e"/></action><end name="e"/>`)
	if _, err := Parse([]byte(bad), DefaultOptions()); ErrorCode(err) != "E0701" || !strings.Contains(err.Error(), "destination-uri") {
		t.Errorf("git without destination-uri: %v", err)
	}
}

func TestParseNoValidate(t *testing.T) {
	// A broken graph still yields a model.
	x := wfXML("0.5", `<start to="a"/>`+fsAction("a", "a", "nowhere")+`<end name="e"/>`)
	app, err := ParseNoValidate([]byte(x))
	if err != nil {
		t.Fatal(err)
	}
	if n := app.Node("a"); n == nil || n.OK != "a" || n.Error != "nowhere" {
		t.Errorf("node a = %+v", n)
	}
	if err := app.Validate(DefaultOptions()); ErrorCode(err) != "E0706" {
		t.Errorf("Validate = %v", err)
	}
	if _, err := ParseNoValidate([]byte("<a")); ErrorCode(err) != "E0701" {
		t.Errorf("malformed = %v", err)
	}
}

func TestNodeKindString(t *testing.T) {
	for k, want := range map[NodeKind]string{StartNode: "start", EndNode: "end", KillNode: "kill", DecisionNode: "decision",
		ForkNode: "fork", JoinNode: "join", ActionNode: "action", NodeKind(99): "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestTextPreserved(t *testing.T) {
	x := wfXML("0.5", `<start to="a"/><action name="a"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>j</job-tracker><name-node>n</name-node><exec>echo</exec><argument>  two  spaces &amp; ${x} </argument></shell><ok to="e"/><error to="e"/></action><end name="e"/>`)
	app, err := Parse([]byte(x), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := app.Node("a").Action.Body.Child("argument").Text; got != "  two  spaces & ${x} " {
		t.Errorf("text = %q", got)
	}
}

func TestApplyParameters(t *testing.T) {
	app := &App{Parameters: []Parameter{{Name: "in"}, {Name: "out"}, {Name: "queue", Value: "default", HasValue: true}}}
	tests := []struct {
		name     string
		defined  map[string]bool
		code     string
		defaults []Property
	}{
		{"all missing", map[string]bool{}, "E0738", nil},
		{"required defined", map[string]bool{"in": true, "out": true}, "", []Property{{Name: "queue", Value: "default"}}},
		{"all defined", map[string]bool{"in": true, "out": true, "queue": true}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.ApplyParameters(func(n string) bool { return tt.defined[n] })
			if ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want %s", err, tt.code)
			}
			if !reflect.DeepEqual(got, tt.defaults) {
				t.Errorf("defaults = %v, want %v", got, tt.defaults)
			}
		})
	}
	_, err := app.ApplyParameters(func(string) bool { return false })
	want := "E0738: The following 2 parameters are required but were not defined and no default values are available: in,out"
	if err == nil || err.Error() != want {
		t.Errorf("message = %v", err)
	}
}
