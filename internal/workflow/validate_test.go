package workflow

import (
	"strings"
	"testing"
)

// wfXML wraps node definitions into a workflow-app of the given version.
func wfXML(version, body string) string {
	return `<workflow-app xmlns="uri:oozie:workflow:` + version + `" name="t">` + "\n" + body + "\n</workflow-app>"
}

// fsAction is a minimal valid action for any version.
func fsAction(name, ok, errTo string) string {
	return `<action name="` + name + `"><fs><mkdir path="/x"/></fs><ok to="` + ok + `"/><error to="` + errTo + `"/></action>`
}

const killNode = `<kill name="k"><message>killed</message></kill>`

func TestParseErrors(t *testing.T) {
	noSchema := DefaultOptions()
	noSchema.SchemaValidation = false
	tests := []struct {
		name     string
		xml      string
		opts     *Options // nil = DefaultOptions()
		code     string
		contains string
	}{
		{"valid minimal", wfXML("0.5", `<start to="a"/>`+fsAction("a", "end", "k")+killNode+`<end name="end"/>`), nil, "", ""},
		{"cycle", wfXML("0.5", `<start to="a"/>`+fsAction("a", "b", "k")+fsAction("b", "c", "k")+fsAction("c", "a", "k")+killNode+`<end name="end"/>`),
			nil, "E0707", "Loop detected at parsing, node [a], path [:start:->a->b->c->a]"},
		{"self transition", wfXML("0.5", `<start to="a"/>`+fsAction("a", "a", "k")+killNode+`<end name="end"/>`),
			nil, "E0706", "Node cannot transition to itself node [a]"},
		{"transition to nowhere", wfXML("0.5", `<start to="a"/>`+fsAction("a", "nowhere", "k")+killNode+`<end name="end"/>`),
			nil, "E0708", "Invalid transition, node [a] transition [nowhere]"},
		{"start to nowhere", wfXML("0.5", `<start to="zz"/>`+killNode+`<end name="end"/>`),
			nil, "E0708", "node [:start:] transition [zz]"},
		{"ok before error", wfXML("0.5", `<start to="a"/>`+fsAction("a", "x", "y")+killNode+`<end name="end"/>`),
			nil, "E0708", "transition [x]"},
		{"duplicate names", wfXML("0.5", `<start to="a"/>`+fsAction("a", "end", "k")+fsAction("a", "end", "k")+killNode+`<end name="end"/>`),
			nil, "E0705", "node [a]"},
		{"bad name schema", wfXML("0.5", `<start to="a"/>`+fsAction("1a", "end", "k")+killNode+`<end name="end"/>`),
			nil, "E0701", "cvc-pattern-valid"},
		{"bad name no schema", wfXML("0.5", `<start to="a"/>`+fsAction("a", "end", "k")+fsAction("b c", "end", "k")+killNode+`<end name="end"/>`),
			&noSchema, "E0724", "Invalid node name, name [b c] must contain only [A-Za-z0-9_-]"},
		{"EL in name", wfXML("0.5", `<start to="a"/>`+fsAction("${x}", "end", "k")+fsAction("a", "end", "k")+killNode+`<end name="end"/>`),
			&noSchema, "E0724", "must start with [A-Za-z_]"},
		{"EL in name schema", wfXML("0.5", `<start to="a"/>`+fsAction("a${x}", "end", "k")+killNode+`<end name="end"/>`),
			nil, "E0701", "cvc-pattern-valid"},
		{"EL in transition", wfXML("0.5", `<start to="a"/>`+fsAction("a", "${next}", "k")+killNode+`<end name="end"/>`),
			&noSchema, "E0708", "transition [${next}]"},
		{"name too long", wfXML("0.5", `<start to="`+strings.Repeat("a", 129)+`"/>`+fsAction(strings.Repeat("a", 129), "end", "k")+killNode+`<end name="end"/>`),
			nil, "E0724", "must be 128 chars or less"},
		{"unknown action type", wfXML("0.5", `<start to="a"/><action name="a"><foo xmlns="uri:foo"/><ok to="end"/><error to="k"/></action>`+killNode+`<end name="end"/>`),
			nil, "E0723", "Unsupported action type, node [a] type [foo]"},
		{"decision without default", wfXML("0.5", `<start to="d"/><decision name="d"><switch><case to="end">${true}</case></switch></decision>`+killNode+`<end name="end"/>`),
			nil, "E0701", "cvc-complex-type.2.4.b: The content of element 'switch' is not complete"},
		{"decision without default no schema", wfXML("0.5", `<start to="d"/><decision name="d"><switch><case to="end">${true}</case></switch></decision>`+killNode+`<end name="end"/>`),
			&noSchema, "E0701", "decision node [d] has no default"},
		{"kill without message", wfXML("0.5", `<start to="k"/><kill name="k"/><end name="end"/>`),
			nil, "E0701", "'kill' is not complete"},
		{"kill without message no schema", wfXML("0.5", `<start to="k"/><kill name="k"/><end name="end"/>`),
			&noSchema, "E0701", "kill node [k] has no message"},
		{"missing end", wfXML("0.5", `<start to="k"/>`+killNode),
			nil, "E0701", "cvc-complex-type.2.4.b"},
		{"two ends no schema", wfXML("0.5", `<start to="k"/>`+killNode+`<end name="e1"/><end name="e2"/>`),
			&noSchema, "E0701", "exactly one end node"},
		{"missing start no schema", wfXML("0.5", killNode+`<end name="e1"/>`),
			&noSchema, "E0701", "exactly one start node"},
		{"misplaced start", wfXML("0.5", killNode+`<start to="k"/><end name="end"/>`),
			nil, "E0701", `starting with element 'kill'. One of '{"uri:oozie:workflow:0.5":parameters, "uri:oozie:workflow:0.5":global, "uri:oozie:workflow:0.5":credentials, "uri:oozie:workflow:0.5":start}' is expected`},
		{"unknown attribute", wfXML("0.5", `<start to="k" foo="1"/>`+killNode+`<end name="end"/>`),
			nil, "E0701", "Attribute 'foo' is not allowed to appear in element 'start'"},
		{"missing attribute", wfXML("0.5", `<start/>`+killNode+`<end name="end"/>`),
			nil, "E0701", "Attribute 'to' must appear on element 'start'"},
		{"unsupported version", `<workflow-app xmlns="uri:oozie:workflow:9.9" name="t"><start to="e"/><end name="e"/></workflow-app>`,
			nil, "E0701", "Cannot find the declaration of element 'workflow-app'"},
		{"no namespace", `<workflow-app name="t"><start to="e"/><end name="e"/></workflow-app>`,
			nil, "E0701", "Cannot find the declaration"},
		{"malformed", "<workflow-app xmlns=\"uri:oozie:workflow:0.5\" name=\"t\">\n<start to=\"e\">\n</workflow-app>",
			nil, "E0701", "line 3"},
		{"empty input", "", nil, "E0701", "premature end of file"},
		{"too long", wfXML("0.5", `<start to="e"/><end name="e"/>`), &Options{MaxDefinitionLength: 10}, "E0736", "exceeded maximum allowed length [10]"},
		{"global in 0.3", wfXML("0.3", `<global/><start to="e"/><end name="e"/>`), nil, "E0701", "'global'"},
		{"retry-max in 0.2", wfXML("0.2", `<start to="a"/><action name="a" retry-max="2"><fs/><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "Attribute 'retry-max' is not allowed"},
		{"retry-policy in 0.4", wfXML("0.4", `<start to="a"/><action name="a" retry-policy="periodic"><fs/><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "Attribute 'retry-policy' is not allowed"},
		{"chgrp in 0.4", wfXML("0.4", `<start to="a"/><action name="a"><fs><chgrp path="/a" group="g"/></fs><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "'chgrp'"},
		{"touchz in 0.3", wfXML("0.3", `<start to="a"/><action name="a"><fs><touchz path="/a"/></fs><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "'touchz'"},
		{"resource-manager in 0.5", wfXML("0.5", `<start to="a"/><action name="a"><java><resource-manager>x</resource-manager><name-node>y</name-node><main-class>M</main-class></java><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "'resource-manager'"},
		{"java without main-class", wfXML("0.5", `<start to="a"/><action name="a"><java><job-tracker>x</job-tracker><name-node>y</name-node></java><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", `"uri:oozie:workflow:0.5":main-class`},
		{"pig without script", wfXML("0.1", `<start to="a"/><action name="a"><pig><job-tracker>x</job-tracker><name-node>y</name-node></pig><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "'pig' is not complete"},
		{"sub-workflow without app-path", wfXML("0.5", `<start to="a"/><action name="a"><sub-workflow/><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "app-path"},
		// Oozie's parser checks the name-node first, then the job-tracker
		// or resource-manager (issue 13, point 14).
		{"mr without cluster", wfXML("0.5", `<start to="a"/><action name="a"><map-reduce/><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "XML schema error, No name-node defined"},
		{"mr without job-tracker", wfXML("0.5", `<start to="a"/><action name="a"><map-reduce><name-node>nn</name-node></map-reduce><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "XML schema error, No job-tracker or resource-manager defined"},
		{"1.0 java without resource-manager", wfXML("1.0", `<start to="a"/><action name="a"><java><name-node>nn</name-node><main-class>M</main-class></java><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "XML schema error, No job-tracker or resource-manager defined"},
		{"shell without name-node", wfXML("0.5", `<start to="a"/><action name="a"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>jt</job-tracker><exec>x</exec></shell><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "XML schema error, No name-node defined"},
		{"fork with one path", wfXML("0.5", `<start to="f"/><fork name="f"><path start="a"/></fork>`+fsAction("a", "j", "k")+`<join name="j" to="e"/>`+killNode+`<end name="e"/>`),
			nil, "E0701", "'fork' is not complete"},
		{"email without to", wfXML("0.5", `<start to="a"/><action name="a"><email xmlns="uri:oozie:email-action:0.2"><subject>s</subject><body>b</body></email><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", `"uri:oozie:email-action:0.2":to`},
		{"text in element-only", wfXML("0.5", `<start to="e"/>oops<end name="e"/>`),
			nil, "E0701", "cannot have character [children]"},
		{"child in simple element", wfXML("0.5", `<start to="k"/><kill name="k"><message><b/></message></kill><end name="e"/>`),
			nil, "E0701", "is a simple type"},
		{"ssh in 0.2 workflow namespace", wfXML("0.2", `<start to="a"/><action name="a"><ssh><host>h</host><command>c</command></ssh><ok to="e"/><error to="e"/></action><end name="e"/>`),
			nil, "E0701", "'ssh'"},
		{"sla 0.1 incomplete", wfXML("0.4", `<start to="e"/><end name="e"/><info xmlns="uri:oozie:sla:0.1"><app-name>x</app-name></info>`),
			nil, "E0701", `'info' is not complete. One of '{"uri:oozie:sla:0.1":nominal-time}' is expected`},
		{"sla 0.2 misordered", wfXML("0.5", `<start to="e"/><end name="e"/><info xmlns="uri:oozie:sla:0.2"><should-end>1</should-end><nominal-time>x</nominal-time></info>`),
			nil, "E0701", `starting with element 'should-end'. One of '{"uri:oozie:sla:0.2":nominal-time}' is expected`},
		{"sla 0.2 in 0.4", wfXML("0.4", `<start to="e"/><end name="e"/><info xmlns="uri:oozie:sla:0.2"/>`),
			nil, "E0701", "'info'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			if tt.opts != nil {
				opts = *tt.opts
			}
			_, err := Parse([]byte(tt.xml), opts)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("expected %s, got nil", tt.code)
			}
			if got := ErrorCode(err); got != tt.code {
				t.Fatalf("code %s, want %s: %v", got, tt.code, err)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("message %q does not contain %q", err.Error(), tt.contains)
			}
		})
	}
}

func TestForkJoinRules(t *testing.T) {
	// Each case is a node list of the form used by the spec examples; the
	// workflow is parsed without schema checks so the graph rules are seen.
	tests := []struct {
		name     string
		body     string
		jobConf  map[string]string
		server   bool
		code     string
		contains string
	}{
		{"spec appendix B fork/join", `<start to="forking"/>
			<fork name="forking"><path start="firstparalleljob"/><path start="secondparalleljob"/></fork>
			` + fsAction("firstparalleljob", "joining", "kill") + fsAction("secondparalleljob", "joining", "kill") + `
			<join name="joining" to="nextaction"/>` + fsAction("nextaction", "end", "kill") + `
			<kill name="kill"><message>x</message></kill><end name="end"/>`, nil, true, "", ""},
		{"fork without join", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "c", "k") + fsAction("b", "c", "k") + fsAction("c", "end", "k") + killNode + `<end name="end"/>`,
			nil, true, "E0730", "Fork/Join not in pair"},
		{"fork without join, server switch off", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "c", "k") + fsAction("b", "c", "k") + fsAction("c", "end", "k") + killNode + `<end name="end"/>`,
			nil, false, "", ""},
		{"fork without join, job switch off", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "c", "k") + fsAction("b", "c", "k") + fsAction("c", "end", "k") + killNode + `<end name="end"/>`,
			map[string]string{PropValidateForkJoin: "false"}, true, "", ""},
		{"fork lists a node twice", `<start to="f"/><fork name="f"><path start="a"/><path start="a"/></fork>` +
			fsAction("a", "j", "k") + `<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "E0744", "A fork, [f], is not allowed to have multiple transitions to the same node, [a]"},
		{"fork with two joins", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "j1", "k") + fsAction("b", "j2", "k") + `<join name="j1" to="end"/><join name="j2" to="end"/><fork name="g"><path start="end"/><path start="k"/></fork>` + killNode + `<end name="end"/>`,
			nil, true, "E0757", "Fork node [f] has multiple joins: [j1, j2]"},
		{"end inside fork", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "j", "k") + fsAction("b", "end", "k") + `<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "E0737", "Invalid transition from node [b] to node [end]"},
		{"join without fork", `<start to="a"/>` + fsAction("a", "j", "k") + `<join name="j" to="end"/><fork name="f"><path start="end"/><path start="k"/></fork>` + killNode + `<end name="end"/>`,
			nil, true, "E0742", "No Fork for Join [j] to pair with"},
		{"two ok paths", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "b", "k") + fsAction("b", "j", "k") + `<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "E0743", "Multiple \"ok to\" transitions to the same node, [b], are not allowed"},
		{"ok and error paths may meet", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "j", "b") + fsAction("b", "j", "k") + `<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "", ""},
		{"decision branches may meet", `<start to="d"/><decision name="d"><switch><case to="a">${x}</case><default to="b"/></switch></decision>` +
			fsAction("a", "c", "k") + fsAction("b", "c", "k") + fsAction("c", "end", "k") + killNode + `<end name="end"/>`,
			nil, true, "", ""},
		// Oozie's validator (LiteWorkflowValidator) counts only nodes other
		// than kill, join and end for E0743 (issue 13, point 12).
		{"decisions in fork paths may share a kill node", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "da", "k") + fsAction("b", "db", "k") +
			`<decision name="da"><switch><case to="k">${x}</case><case to="k">${y}</case><default to="j"/></switch></decision>` +
			`<decision name="db"><switch><case to="k">${x}</case><default to="j"/></switch></decision>` +
			`<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "", ""},
		{"ok paths in a fork may share a kill node", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/><path start="c"/></fork>` +
			fsAction("a", "k", "k") + fsAction("b", "k", "k") + fsAction("c", "j", "k") +
			`<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "", ""},
		{"decisions in fork paths may not share an action", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
			fsAction("a", "da", "k") + fsAction("b", "db", "k") +
			`<decision name="da"><switch><case to="x">${x}</case><default to="j"/></switch></decision>` +
			`<decision name="db"><switch><case to="x">${x}</case><default to="j"/></switch></decision>` +
			fsAction("x", "j", "k") + `<join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "E0743", "[x]"},
		{"nested forks", `<start to="f"/><fork name="f"><path start="a"/><path start="g"/></fork>
			<fork name="g"><path start="b"/><path start="c"/></fork>` +
			fsAction("a", "j", "k") + fsAction("b", "jg", "k") + fsAction("c", "jg", "k") +
			`<join name="jg" to="j"/><join name="j" to="end"/>` + killNode + `<end name="end"/>`,
			nil, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.SchemaValidation = false
			opts.ValidateForkJoin = tt.server
			opts.JobConf = tt.jobConf
			_, err := Parse([]byte(wfXML("0.5", tt.body)), opts)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("got %v, want %s containing %q", err, tt.code, tt.contains)
			}
		})
	}
}

func TestErrorLocation(t *testing.T) {
	x := wfXML("0.5", `<start to="a"/>
`+fsAction("a", "nowhere", "k")+killNode+`<end name="end"/>`)
	_, err := Parse([]byte(x), DefaultOptions())
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T %v", err, err)
	}
	if e.Line != 3 || e.Column != 1 {
		t.Errorf("location %d:%d, want 3:1", e.Line, e.Column)
	}
	if e.Error() != "E0708: Invalid transition, node [a] transition [nowhere]" {
		t.Errorf("message %q", e.Error())
	}
}

// TestAppNameAnyString: every schema version, 0.1-0.3 included, takes any
// string as the workflow name, as the XSDs Oozie ships declare it; EL in the
// name is resolved at submission, not by the parser (issue 13, point 13).
func TestAppNameAnyString(t *testing.T) {
	tests := []struct{ version, name string }{
		{"0.1", "${wfName}"},
		{"0.2", "daily load ${date}"},
		{"0.2.5", "1-starts-with-a-digit"},
		{"0.3", "${wf_name}-v2"},
		{"0.3", strings.Repeat("n", 60)},
		{"0.5", "${wfName}"},
		{"1.0", "any name at all"},
	}
	for _, tt := range tests {
		t.Run(tt.version+"/"+tt.name, func(t *testing.T) {
			x := `<workflow-app xmlns="uri:oozie:workflow:` + tt.version + `" name="` + tt.name + `">` +
				`<start to="a"/>` + fsAction("a", "end", "k") + killNode + `<end name="end"/></workflow-app>`
			app, err := Parse([]byte(x), DefaultOptions())
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if app.Name != tt.name {
				t.Errorf("name = %q, want %q", app.Name, tt.name)
			}
		})
	}
}

// TestSqoopCommandOrArgs: the sqoop schemas make <command> and <arg>
// alternatives, so a body with both is refused (issue 13, point 15).
func TestSqoopCommandOrArgs(t *testing.T) {
	sqoop := func(version, inner string) string {
		return wfXML("0.5", `<start to="a"/><action name="a"><sqoop xmlns="uri:oozie:sqoop-action:`+version+`">`+
			`<job-tracker>jt</job-tracker><name-node>nn</name-node>`+inner+`</sqoop><ok to="end"/><error to="k"/></action>`+
			killNode+`<end name="end"/>`)
	}
	tests := []struct {
		name, version, inner string
		want                 string // "" = valid
	}{
		{"command", "0.2", `<command>import --table t</command>`, ""},
		{"args", "0.4", `<arg>import</arg><arg>--table</arg><arg>t</arg>`, ""},
		{"command then arg", "0.2", `<command>import</command><arg>--table</arg>`, "starting with element 'arg'"},
		{"arg then command", "0.4", `<arg>import</arg><command>import</command>`, "starting with element 'command'"},
		{"both in 1.0", "1.0", `<command>import</command><arg>x</arg><file>f</file>`, "starting with element 'arg'"},
		{"neither", "0.3", ``, "is not complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(sqoop(tt.version, tt.inner)), DefaultOptions())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if ErrorCode(err) != CodeSchema || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v; want E0701 containing %q", err, tt.want)
			}
		})
	}
}
