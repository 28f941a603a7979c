package workflow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
)

// testContext is a job with one failed action "a", one successful action
// "b", and a few configuration properties.
func testContext() *ELContext {
	nodes := map[string]NodeState{
		"a": {Status: "ERROR", Transition: "fail", ErrorCode: "JA018", ErrorMessage: "exit code [1]",
			ExternalID: "job_1", TrackerURI: "local", ExternalStatus: "FAILED/KILLED"},
		"b": {Status: "OK", Transition: "end", Data: map[string]string{"size": "42", "state": "ok"}},
	}
	props := map[string]string{"queue": "etl", "mapred.job.queue.name": "default"}
	return &ELContext{
		JobID: "0000001-261122030405000-oozie-alice-W", AppName: "daily", AppPath: "file:/apps/daily",
		User: "alice", Group: "users", Run: 2, LastErrorNode: "a",
		Conf: func(n string) (string, bool) { v, ok := props[n]; return v, ok },
		Node: func(n string) (NodeState, bool) { s, ok := nodes[n]; return s, ok },
		Callback: func(s string) string {
			return "http://localhost:11000/oozie/callback?id=0000001-261122030405000-oozie-alice-W@a&status=" + s
		},
	}
}

// Every function of spec: wf 4.2.3, with a node that ran, one that did
// not, and the empty results the specification promises.
func TestWorkflowFunctions(t *testing.T) {
	ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{}, Context: testContext()}
	tests := []struct{ expr, want string }{
		{"${wf:id()}", "0000001-261122030405000-oozie-alice-W"},
		{"${wf:name()}", "daily"},
		{"${wf:appPath()}", "file:/apps/daily"},
		{"${wf:user()}", "alice"},
		{"${wf:group()}", "users"},
		{"${wf:run()}", "2"},
		{"${wf:run() + 1}", "3"},
		{"${wf:conf('mapred.job.queue.name')}", "default"},
		{"${wf:conf('queue')}", "etl"},
		{"[${wf:conf('undefined')}]", "[]"},
		{"${wf:callback('OK')}", "http://localhost:11000/oozie/callback?id=0000001-261122030405000-oozie-alice-W@a&status=OK"},
		{"${wf:transition('a')}", "fail"},
		{"${wf:transition('b')}", "end"},
		{"[${wf:transition('never')}]", "[]"},
		{"${wf:lastErrorNode()}", "a"},
		{"${wf:errorCode('a')}", "JA018"},
		{"${wf:errorMessage(wf:lastErrorNode())}", "exit code [1]"},
		{"[${wf:errorCode('b')}]", "[]"},
		{"${wf:actionExternalId('a')}", "job_1"},
		{"${wf:actionTrackerUri('a')}", "local"},
		{"${wf:actionExternalStatus('a')}", "FAILED/KILLED"},
		{"${wf:actionData('b')['size'] * 2}", "84"},
		{"${wf:actionData('b').state eq 'ok'}", "true"},
		{"${empty wf:actionData('a')}", "true"},
		{"[${wf:actionData('never')['x']}]", "[]"},
		{"${KB}", "1024"}, // the basic functions stay available
	}
	for _, tt := range tests {
		got, err := ev.EvalString(tt.expr)
		if err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.expr, got, err, tt.want)
		}
	}
}

func TestWorkflowFunctionsWithoutContext(t *testing.T) {
	for _, ctx := range []any{nil, "not a context", (*ELContext)(nil)} {
		ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{}, Context: ctx}
		if _, err := ev.EvalString("${wf:id()}"); err == nil || !strings.Contains(err.Error(), "workflow job context") {
			t.Errorf("context %#v: err = %v, want a missing-context error", ctx, err)
		}
	}
	// An empty context answers with empty values rather than failing.
	ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{}, Context: &ELContext{}}
	got, err := ev.EvalString("[${wf:conf('x')}${wf:errorCode('a')}${wf:callback('OK')}${wf:actionData('a')['k']}]")
	if err != nil || got != "[]" {
		t.Errorf("empty context: %q, %v", got, err)
	}
}

func TestKillMessage(t *testing.T) {
	ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{"x": "1"}, Context: testContext()}
	tests := []struct{ msg, want, wantErr string }{
		{"failed at [${wf:lastErrorNode()}]", "failed at [a]", ""},
		{"plain text", "plain text", ""},
		{"${bar}", "", "E0756: Exception parsing Kill node message [variable [bar] cannot be resolved]"},
		{"${{wf:user()}", "", "E0756: Exception parsing Kill node message ["},
		{"${x + 'a'}", "", "E0756: Exception parsing Kill node message ["},
	}
	for _, tt := range tests {
		got, err := KillMessage(ev, tt.msg)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("KillMessage(%q) = %q, %v; want %q", tt.msg, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || ErrorCode(err) != CodeKillMessage {
			t.Errorf("KillMessage(%q) error = %v, want prefix %q", tt.msg, err, tt.wantErr)
		}
	}
}

// elVector is the part of a basic_el.json entry the workflow package runs:
// the wf:* function and kill message vectors.
type elVector struct {
	ID          string                     `json:"id"`
	Kind        string                     `json:"kind"`
	Context     map[string]json.RawMessage `json:"context"`
	Expression  string                     `json:"expression"`
	Expected    json.RawMessage            `json:"expected"`
	KillMessage string                     `json:"kill_message_expression"`
}

// vectorContext builds an ELContext from a wf_el vector's described job:
// keys "wf.*", "wf.conf", and "action[NAME]" records whose "data" is Java
// properties text.
func vectorContext(t *testing.T, raw map[string]json.RawMessage) *ELContext {
	t.Helper()
	str := func(key string) string {
		var s string
		if v, ok := raw[key]; ok {
			if err := json.Unmarshal(v, &s); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
		}
		return s
	}
	c := &ELContext{JobID: str("wf.id"), AppName: str("wf.name"), AppPath: str("wf.appPath"),
		User: str("wf.user"), Group: str("wf.group"), LastErrorNode: str("wf.lastErrorNode")}
	if v, ok := raw["wf.run"]; ok {
		if err := json.Unmarshal(v, &c.Run); err != nil {
			t.Fatalf("wf.run: %v", err)
		}
	}
	var props map[string]string
	if v, ok := raw["wf.conf"]; ok {
		if err := json.Unmarshal(v, &props); err != nil {
			t.Fatalf("wf.conf: %v", err)
		}
	}
	c.Conf = func(n string) (string, bool) { v, ok := props[n]; return v, ok }
	nodes := map[string]NodeState{}
	for key, v := range raw {
		name, ok := strings.CutPrefix(key, "action[")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "]")
		var rec map[string]string
		if err := json.Unmarshal(v, &rec); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		data, err := conf.ParseProperties(strings.NewReader(rec["data"]), key+".data")
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		nodes[name] = NodeState{Status: rec["status"], ErrorCode: rec["errorCode"], ErrorMessage: rec["errorMessage"],
			ExternalID: rec["externalId"], TrackerURI: rec["trackerUri"], ExternalStatus: rec["externalStatus"],
			Transition: rec["transition"], Data: data.ToMap()}
	}
	c.Node = func(n string) (NodeState, bool) { s, ok := nodes[n]; return s, ok }
	return c
}

// TestConformanceWorkflowEL runs the wf_el and kill_message vectors of
// basic_el.json. Only the message part of kill_message vectors is checked
// here: recording the kill node's status (ERROR) is the engine's work.
func TestConformanceWorkflowEL(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(confDir(), "basic_el.json"))
	if err != nil {
		t.Fatalf("conformance vectors not available: %v", err)
	}
	var vectors []elVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, v := range vectors {
		switch v.Kind {
		case "wf_el":
			ran++
			t.Run(v.ID, func(t *testing.T) {
				ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{}, Context: vectorContext(t, v.Context)}
				got, err := ev.EvalString(v.Expression)
				if err != nil {
					t.Fatalf("%s: %v", v.Expression, err)
				}
				checkExpected(t, v.Expression, got, v.Expected)
			})
		case "kill_message":
			ran++
			t.Run(v.ID, func(t *testing.T) {
				var want map[string]string
				if err := json.Unmarshal(v.Expected, &want); err != nil {
					t.Fatal(err)
				}
				ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{}, Context: &ELContext{User: "test"}}
				_, err := KillMessage(ev, v.KillMessage)
				if err == nil {
					t.Fatalf("KillMessage(%q) succeeded, want %s", v.KillMessage, want["kill_action_error_code"])
				}
				if got := ErrorCode(err); got != want["kill_action_error_code"] {
					t.Errorf("code %q, want %q", got, want["kill_action_error_code"])
				}
				if m, ok := want["kill_action_error_message"]; ok && err.Error() != m {
					t.Errorf("message %q, want %q", err.Error(), m)
				}
				if p, ok := want["kill_action_error_message_starts_with"]; ok && !strings.HasPrefix(err.Error(), p) {
					t.Errorf("message %q, want prefix %q", err.Error(), p)
				}
			})
		}
	}
	if ran == 0 {
		t.Fatal("no wf_el or kill_message vectors found")
	}
}

// checkExpected compares got with a vector's expected value: a string, or
// {"contains": [...]}.
func checkExpected(t *testing.T, expr, got string, expected json.RawMessage) {
	t.Helper()
	var s string
	if json.Unmarshal(expected, &s) == nil {
		if got != s {
			t.Errorf("%s = %q, want %q", expr, got, s)
		}
		return
	}
	var obj struct {
		Contains []string `json:"contains"`
	}
	if err := json.Unmarshal(expected, &obj); err != nil || obj.Contains == nil {
		t.Fatalf("unsupported expected value %s", expected)
	}
	for _, c := range obj.Contains {
		if !strings.Contains(got, c) {
			t.Errorf("%s = %q, want it to contain %q", expr, got, c)
		}
	}
}

func TestVariables(t *testing.T) {
	names := []struct {
		in   string
		want bool
	}{
		{"inputDir", true}, {"_x1", true}, {"A", true},
		{"", false}, {"1a", false}, {"a.b", false}, {"a-b", false}, {"a b", false}, {"é", false}, {"a$", false},
	}
	for _, tt := range names {
		if got := IsVariableName(tt.in); got != tt.want {
			t.Errorf("IsVariableName(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	props := conf.New()
	props.Set("base", "/data")
	props.Set("out", "${base}/out")
	props.Set("mapred.job.queue.name", "etl")
	vars := Variables(props)
	if len(vars) != 2 || vars["base"] != "/data" || vars["out"] != "/data/out" {
		t.Errorf("Variables = %v, want base and out (expanded) only", vars)
	}
}
