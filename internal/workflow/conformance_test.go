package workflow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The conformance vectors describe workflows structurally (JSON); this file
// turns them into workflow.xml (or, for graph-only vectors, into an App built
// in code) and checks gozie's verdict against Oozie's.

type confVector struct {
	ID            string            `json:"id"`
	Kind          string            `json:"kind"`
	Workflow      confWorkflow      `json:"workflow"`
	ParserOptions map[string]any    `json:"parser_options"`
	JobConf       map[string]string `json:"job_configuration"`
	Expected      confExpected      `json:"expected"`
}

type confWorkflow struct {
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	Start     string           `json:"start"`
	Global    []map[string]any `json:"global"`
	Nodes     []confNode       `json:"nodes"`
	OtherTop  []string         `json:"other_top_level_elements"`
}

type confNode struct {
	Name            string           `json:"name"`
	Type            string           `json:"type"`
	ActionType      string           `json:"action_type"`
	ActionNamespace string           `json:"action_namespace"`
	Body            []map[string]any `json:"body"`
	OK              string           `json:"ok"`
	Error           string           `json:"error"`
	Cases           []struct {
		Predicate string `json:"predicate"`
		To        string `json:"to"`
	} `json:"cases"`
	Default     string   `json:"default"`
	Paths       []string `json:"paths"`
	To          string   `json:"to"`
	Message     string   `json:"message"`
	Transitions []string `json:"transitions"`
}

type confExpected struct {
	Valid           bool                      `json:"valid"`
	ErrorCode       string                    `json:"error_code"`
	Message         string                    `json:"message"`
	MessageContains []string                  `json:"message_contains"`
	ResolvedActions map[string]map[string]any `json:"resolved_actions"`
	AppName         string                    `json:"app_name"`
	Transitions     map[string][]string       `json:"transitions"`
	ActionConf      map[string]string         `json:"action_conf_starts_with"`
	KillContains    map[string]string         `json:"kill_node_conf_contains"`
}

// confSkips lists vectors that contradict the specification, with the reason.
// It is empty: every public vector agrees with the spec as gozie reads it.
var confSkips = map[string]string{}

func confDir() string {
	if d := os.Getenv("GOZIE_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "testdata", "conformance")
}

func TestConformanceWorkflowValidation(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(confDir(), "wf_validation.json"))
	if err != nil {
		t.Fatalf("conformance vectors not available (set GOZIE_CONFORMANCE_DIR): %v", err)
	}
	var vectors []confVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	pass, skip := 0, 0
	for _, v := range vectors {
		ok := t.Run(v.ID, func(t *testing.T) {
			if reason, found := confSkips[v.ID]; found {
				skip++
				t.Skip(reason)
			}
			runConfVector(t, v)
		})
		if ok {
			pass++
		}
	}
	t.Logf("wf_validation: %d vectors, %d passed (%d skipped)", len(vectors), pass-skip, skip)
}

func confOptions(v confVector) Options {
	opts := DefaultOptions()
	opts.JobConf = v.JobConf
	if x, ok := v.ParserOptions["xsd_validation"].(bool); ok {
		opts.SchemaValidation = x
	}
	if x, ok := v.ParserOptions["validate_fork_join"].(bool); ok {
		opts.ValidateForkJoin = x
	}
	if x, ok := v.ParserOptions["oozie.validate.ForkJoin (server)"].(string); ok {
		opts.ValidateForkJoin = x == "true"
	}
	if x, ok := v.ParserOptions["oozie.actions.default.name-node"].(string); ok {
		opts.DefaultNameNode = x
	}
	if x, ok := v.ParserOptions["oozie.actions.default.job-tracker"].(string); ok {
		opts.DefaultJobTracker = x
	}
	if x, ok := v.ParserOptions["oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength"].(float64); ok {
		opts.MaxDefinitionLength = int(x)
	}
	return opts
}

func runConfVector(t *testing.T, v confVector) {
	opts := confOptions(v)
	var app *App
	var err error
	if v.Kind == "graph_validate" {
		app = confGraph(v.Workflow)
		err = app.Validate(opts)
	} else {
		xmlText := confXML(v.Workflow)
		app, err = Parse([]byte(xmlText), opts)
		defer func() {
			if t.Failed() {
				t.Logf("generated workflow.xml:\n%s", xmlText)
			}
		}()
	}
	exp := v.Expected
	if exp.Valid {
		if err != nil {
			t.Fatalf("expected valid, got %v", err)
		}
	} else {
		if err == nil {
			t.Fatalf("expected %s, got no error", exp.ErrorCode)
		}
		if got := ErrorCode(err); exp.ErrorCode != "" && got != exp.ErrorCode {
			t.Fatalf("code = %s, want %s (%v)", got, exp.ErrorCode, err)
		}
		if exp.Message != "" && err.Error() != exp.Message {
			t.Errorf("message = %q, want %q", err.Error(), exp.Message)
		}
		for _, s := range exp.MessageContains {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("message %q does not contain %q", err.Error(), s)
			}
		}
		return
	}
	if exp.AppName != "" && app.Name != exp.AppName {
		t.Errorf("app name = %q, want %q", app.Name, exp.AppName)
	}
	for node, want := range exp.Transitions {
		n := app.Node(node)
		if n == nil {
			t.Errorf("node %s missing", node)
			continue
		}
		if got := n.Targets(); !reflect.DeepEqual(got, want) {
			t.Errorf("transitions of %s = %v, want %v", node, got, want)
		}
	}
	for node, prefix := range exp.ActionConf {
		if n := app.Node(node); n == nil || n.Action == nil || "<"+n.Action.Type != prefix {
			t.Errorf("action %s does not start with %s", node, prefix)
		}
	}
	for node, sub := range exp.KillContains {
		if n := app.Node(node); n == nil || !strings.Contains(n.Message, sub) {
			t.Errorf("kill %s message does not contain %q", node, sub)
		}
	}
	for node, want := range exp.ResolvedActions {
		checkResolved(t, app, node, want)
	}
}

func checkResolved(t *testing.T, app *App, node string, want map[string]any) {
	t.Helper()
	n := app.Node(node)
	if n == nil || n.Action == nil {
		t.Errorf("action %s missing", node)
		return
	}
	a := n.Action
	for key, val := range want {
		switch key {
		case "name_node":
			if got := a.NameNode(); got != val {
				t.Errorf("%s name-node = %q, want %v", node, got, val)
			}
		case "job_tracker":
			if got := a.JobTracker(); got != val {
				t.Errorf("%s job-tracker = %q, want %v", node, got, val)
			}
		case "configuration", "launcher_configuration":
			for k, v := range val.(map[string]any) {
				got, ok := a.ConfigValue(k)
				switch {
				case v == nil && ok:
					t.Errorf("%s configuration %s = %q, want unset", node, k, got)
				case v != nil && (!ok || got != v):
					t.Errorf("%s configuration %s = %q (set %v), want %v", node, k, got, ok, v)
				}
			}
		case "name_node_appended_as_last_child":
			last := a.Body.Children[len(a.Body.Children)-1]
			if last.Name.Local != "name-node" {
				t.Errorf("%s last child is %s, want name-node", node, last.Name.Local)
			}
		case "body_children_in_order":
			var got []string
			for _, c := range a.Body.Children {
				got = append(got, c.Name.Local+"="+c.TrimText())
			}
			var exp []string
			for _, x := range val.([]any) {
				exp = append(exp, x.(string))
			}
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("%s body = %v, want %v", node, got, exp)
			}
		case "unchanged_body":
			if c := a.Body.Child("name-node"); c != nil {
				t.Errorf("%s: %v", node, val)
			}
		default:
			t.Errorf("unknown resolved_actions key %q", key)
		}
	}
}

// confGraph builds the App of a graph-only vector directly, as Oozie's tests
// build LiteWorkflowApp objects without XML.
func confGraph(w confWorkflow) *App {
	app := &App{Name: w.Name, Start: w.Start, Namespace: "uri:oozie:workflow:1.0", Version: "1.0"}
	app.Nodes = append(app.Nodes, &Node{Name: StartNodeName, Kind: StartNode, To: w.Start})
	for _, cn := range w.Nodes {
		n := &Node{Name: cn.Name}
		switch cn.Type {
		case "action":
			n.Kind = ActionNode
			n.Action = &Action{Type: cn.ActionType, Namespace: "uri:oozie:workflow:1.0"}
			n.OK, n.Error = cn.OK, cn.Error
		case "decision":
			n.Kind = DecisionNode
			if cn.Transitions != nil {
				n.Transitions = cn.Transitions
			}
			for _, c := range cn.Cases {
				n.Cases = append(n.Cases, Case{Predicate: c.Predicate, To: c.To})
			}
			n.Default, n.HasDefault = cn.Default, cn.Default != ""
		case "fork":
			n.Kind = ForkNode
			n.Paths = cn.Paths
		case "join":
			n.Kind = JoinNode
			n.To = cn.To
		case "kill":
			n.Kind = KillNode
			n.Message = cn.Message
		case "end":
			n.Kind = EndNode
		default:
			n.Kind = ActionNode
			n.Action = &Action{Type: "java"}
			n.Transitions = cn.Transitions
		}
		app.Nodes = append(app.Nodes, n)
	}
	return app
}

// confXML renders a vector's workflow as workflow.xml.
func confXML(w confWorkflow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<workflow-app xmlns=%q name=%q>\n", w.Namespace, w.Name)
	if w.Global != nil {
		b.WriteString("  <global>\n")
		for _, item := range w.Global {
			writeBodyItem(&b, item, "    ")
		}
		b.WriteString("  </global>\n")
	}
	for _, o := range w.OtherTop {
		fmt.Fprintf(&b, "  <%s/>\n", o)
	}
	if w.Start != "" {
		fmt.Fprintf(&b, "  <start to=%q/>\n", w.Start)
	}
	for _, n := range w.Nodes {
		switch n.Type {
		case "action":
			fmt.Fprintf(&b, "  <action name=%q>\n", n.Name)
			if n.ActionNamespace != "" {
				fmt.Fprintf(&b, "    <%s xmlns=%q>\n", n.ActionType, n.ActionNamespace)
			} else {
				fmt.Fprintf(&b, "    <%s>\n", n.ActionType)
			}
			for _, item := range n.Body {
				writeBodyItem(&b, item, "      ")
			}
			fmt.Fprintf(&b, "    </%s>\n", n.ActionType)
			fmt.Fprintf(&b, "    <ok to=%q/>\n    <error to=%q/>\n  </action>\n", n.OK, n.Error)
		case "decision":
			fmt.Fprintf(&b, "  <decision name=%q>\n    <switch>\n", n.Name)
			for _, c := range n.Cases {
				fmt.Fprintf(&b, "      <case to=%q>%s</case>\n", c.To, xmlEscape(c.Predicate))
			}
			fmt.Fprintf(&b, "      <default to=%q/>\n    </switch>\n  </decision>\n", n.Default)
		case "fork":
			fmt.Fprintf(&b, "  <fork name=%q>\n", n.Name)
			for _, p := range n.Paths {
				fmt.Fprintf(&b, "    <path start=%q/>\n", p)
			}
			b.WriteString("  </fork>\n")
		case "join":
			fmt.Fprintf(&b, "  <join name=%q to=%q/>\n", n.Name, n.To)
		case "kill":
			fmt.Fprintf(&b, "  <kill name=%q>\n    <message>%s</message>\n  </kill>\n", n.Name, xmlEscape(n.Message))
		case "end":
			fmt.Fprintf(&b, "  <end name=%q/>\n", n.Name)
		}
	}
	b.WriteString("</workflow-app>\n")
	return b.String()
}

// writeBodyItem renders one {"element": value} entry of a vector body: text,
// attributes (object), children (list of entries) or, for configuration, a
// list of [name, value] pairs.
func writeBodyItem(b *strings.Builder, item map[string]any, indent string) {
	keys := make([]string, 0, len(item))
	for k := range item {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := item[k].(type) {
		case string:
			fmt.Fprintf(b, "%s<%s>%s</%s>\n", indent, k, xmlEscape(v), k)
		case map[string]any:
			attrs := make([]string, 0, len(v))
			for name, val := range v {
				attrs = append(attrs, fmt.Sprintf("%s=%q", name, val))
			}
			sort.Strings(attrs)
			fmt.Fprintf(b, "%s<%s %s/>\n", indent, k, strings.Join(attrs, " "))
		case []any:
			fmt.Fprintf(b, "%s<%s>\n", indent, k)
			for _, c := range v {
				switch c := c.(type) {
				case []any:
					fmt.Fprintf(b, "%s  <property><name>%s</name><value>%s</value></property>\n", indent,
						xmlEscape(fmt.Sprint(c[0])), xmlEscape(fmt.Sprint(c[1])))
				case map[string]any:
					writeBodyItem(b, c, indent+"  ")
				}
			}
			fmt.Fprintf(b, "%s</%s>\n", indent, k)
		}
	}
}

func xmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}
