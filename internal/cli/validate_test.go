package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateCoordinatorSubmissionChecks: offline validate of a
// coordinator applies the checks of a submission that need no clock. With
// the job's properties (-config) it says "Valid" only for what a server
// would accept with them (issue 13, point 18); without them (no -config,
// -D properties only) what needs a property it lacks is a warning, not an
// error, and the rest is checked as at submission (issue 26, point 7).
func TestValidateCoordinatorSubmissionChecks(t *testing.T) {
	coordApp := func(attrs, body string) string {
		if attrs == "" {
			attrs = `name="c" frequency="${coord:hours(1)}" start="${start}" end="${end}" timezone="UTC"`
		}
		return `<coordinator-app xmlns="uri:oozie:coordinator:0.4" ` + attrs + `>` + body +
			`<action><workflow><app-path>/wf</app-path></workflow></action></coordinator-app>`
	}
	ds := `<datasets><dataset name="raw" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC"><uri-template>/raw/${YEAR}/${HOUR}</uri-template></dataset></datasets>`
	in := func(dataset string) string {
		return `<input-events><data-in name="in" dataset="` + dataset + `"><instance>${coord:current(0)}</instance></data-in></input-events>`
	}
	props := []string{"-D", "start=2026-01-01T00:00Z", "-D", "end=2026-01-02T00:00Z"}
	const window = "start=2026-01-01T00:00Z\nend=2026-01-02T00:00Z\n"
	tests := []struct {
		name   string
		xml    string
		config string // job.properties given with -config when set
		args   []string
		code   int
		want   string
	}{
		{"valid with the properties", coordApp("", ds+in("raw")), "", props, exitOK, "Valid coordinator-app"},
		{"valid with -config", coordApp("", ds+in("raw")), window, nil, exitOK, "Valid coordinator-app"},
		{"undefined variable with -config", coordApp("", ""), "end=2026-01-02T00:00Z\n", nil, exitFail,
			"E1004: Expression language evaluation error, start [${start}]"},
		{"undefined variable without -config", coordApp("", ""), "", nil, exitOK,
			"Warning: start [${start}] not checked: variable [start] not defined"},
		{"start after end", coordApp("", ""), "", []string{"-D", "start=2026-01-03T00:00Z", "-D", "end=2026-01-02T00:00Z"}, exitFail,
			"E1003: Invalid coordinator application attributes, Coordinator Start Time must be earlier than End Time."},
		{"frequency too high", coordApp(`name="c" frequency="${coord:minutes(1)}" start="${start}" end="${end}" timezone="UTC"`, ""), "", props, exitFail,
			"E1003: Invalid coordinator application attributes, Coordinator job with frequency [1] minutes is faster than allowed maximum of 5 minutes"},
		{"frequency too high, no start", coordApp(`name="c" frequency="${coord:minutes(1)}" start="${start}" end="2026-01-02T00:00Z" timezone="UTC"`, ""), "", nil, exitFail,
			"E1003: Invalid coordinator application attributes, Coordinator job with frequency [1] minutes is faster"},
		{"frequency check off", coordApp(`name="c" frequency="${coord:minutes(1)}" start="${start}" end="${end}" timezone="UTC"`, ""), "",
			append([]string{"-D", "oozie.service.coord.check.maximum.frequency=false"}, props...), exitOK, "Valid coordinator-app"},
		{"dataset not defined", coordApp("", ds+in("cooked")), "", props, exitFail,
			"E1021: Dataset [cooked] referenced by input-events [in] is not defined"},
		{"dataset not defined, no properties", coordApp("", ds+in("cooked")), "", nil, exitFail,
			"E1021: Dataset [cooked] referenced by input-events [in] is not defined"},
		{"dataset named by an undefined variable", coordApp("", ds+in("${which}")), "", nil, exitOK,
			"Warning: input-events [in] dataset [${which}] not checked: variable [which] not defined"},
		{"EL syntax", coordApp(`name="c" frequency="${coord:hours(1}" start="${start}" end="${end}" timezone="UTC"`, ""), "", nil, exitFail, "E1004"},
		{"missing parameter with -config", coordApp("", `<parameters><property><name>queue</name></property></parameters>`), window, nil, exitFail, "E0738"},
		{"missing parameter without -config", coordApp("", `<parameters><property><name>queue</name></property></parameters>`), "", props, exitOK,
			"Warning: required parameters not defined, so not checked (give them with -config): queue"},
		{"parameter given", coordApp("", `<parameters><property><name>queue</name></property></parameters>`), window + "queue=q\n", nil, exitOK, "Valid coordinator-app"},
		{"attribute outside the schema", coordApp(`name="c" frequency="60" start="${start}" end="${end}" timezone="UTC" owner="joe"`, ""), "", nil, exitFail,
			"E0701: XML schema error, cvc-complex-type.3.2.2: Attribute 'owner' is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "coordinator.xml")
			if err := os.WriteFile(p, []byte(tt.xml), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"validate"}, tt.args...)
			if tt.config != "" {
				jp := filepath.Join(dir, "job.properties")
				if err := os.WriteFile(jp, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-config", jp)
			}
			code, out, errOut := run(t, append(args, p)...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d stdout %q stderr %q; want %d and %q", code, out, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestValidateDefinitionMaxLength: offline validate reads the definition
// length limit from the properties like the other server switches, under
// Oozie's key and gozie's, gozie's winning (issue 13, point 17).
func TestValidateDefinitionMaxLength(t *testing.T) {
	const oozieKey = "oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength"
	dir := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="end"/><end name="end"/></workflow-app>`
	big := wf + "<!--" + strings.Repeat("x", 100000) + "-->"
	for name, body := range map[string]string{"small.xml": wf, "big.xml": big} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, file string
		args       []string
		code       int
		want       string
	}{
		{"default limit", "big.xml", nil, exitFail, "E0736: Workflow definition length [100110] exceeded maximum allowed length [100000]"},
		{"Oozie's key raises it", "big.xml", []string{"-D", oozieKey + "=200000"}, exitOK, "Valid workflow-app"},
		{"Oozie's key lowers it", "small.xml", []string{"-D", oozieKey + "=50"}, exitFail, "E0736"},
		{"gozie's key wins", "small.xml", []string{"-D", oozieKey + "=50", "-D", "gozie.definition.max.bytes=1000"}, exitOK, "Valid workflow-app"},
		{"gozie's key alone", "small.xml", []string{"-D", "gozie.definition.max.bytes=100"}, exitFail, "E0736"},
		{"not an integer", "small.xml", []string{"-D", oozieKey + "=lots"}, exitUsage, oozieKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, append(append([]string{"validate"}, tt.args...), filepath.Join(dir, tt.file))...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d stdout %q stderr %q; want %d and %q", code, out, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestValidateReadmeExample (issue 26, point 7): the README's validate
// command, every example workflow and the parameterized coord-hourly
// coordinator without -config, exits 0; what needs a property is a
// warning on standard error.
func TestValidateReadmeExample(t *testing.T) {
	var files []string
	for _, pat := range []string{"../../examples/apps/*/workflow.xml", "../../examples/apps/*/*/workflow.xml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	files = append(files, "../../examples/apps/coord-hourly/coordinator.xml")
	code, out, errOut := run(t, append([]string{"validate"}, files...)...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "coord-hourly/coordinator.xml: Valid coordinator-app") ||
		!strings.Contains(errOut, "Warning: ../../examples/apps/coord-hourly/coordinator.xml: required parameters not defined, so not checked (give them with -config): appDir") {
		t.Errorf("stdout %s\nstderr %s", out, errOut)
	}
	// With its job properties the example is checked completely and has
	// nothing to warn about.
	code, out, errOut = run(t, "validate", "-config", "../../examples/apps/coord-hourly/job.properties", "../../examples/apps/coord-hourly/coordinator.xml")
	if code != exitOK || errOut != "" || out != "Valid coordinator-app\n" {
		t.Errorf("with -config: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestValidateRunTimeVariables (issue 26, point 7): with -config, validate
// keeps the submission checks and warns about the variables a workflow
// reads that its configuration at run time will not define — for a
// workflow, its job properties, config-default.xml and <parameters>; for
// the workflow a coordinator's actions launch, the configuration those
// actions submit. Without -config nothing is said about them.
func TestValidateRunTimeVariables(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"coordinator.xml": `<coordinator-app name="wd" frequency="${coord:hours(1)}" start="${start}" end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>${appDir}/wf</app-path>
    <configuration><property><name>nameNode</name><value>${nameNode}</value></property></configuration>
  </workflow></action>
</coordinator-app>`,
		"wf/workflow.xml": `<workflow-app name="wd-wf" xmlns="uri:oozie:workflow:0.5">
  <parameters><property><name>retries</name><value>3</value></property><property><name>queue</name></property></parameters>
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="${nameNode}${workDir}/out-${retries}-${fromDefaults}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed ${wf:errorMessage(wf:lastErrorNode())} ${KB} ${hadoop:counters('mk')[RECORDS]}</message></kill>
  <end name="end"/>
</workflow-app>`,
		"wf/config-default.xml": `<configuration><property><name>fromDefaults</name><value>x</value></property></configuration>`,
		"job.properties":        "oozie.coord.application.path=.\nappDir=${oozie.coord.application.path}\nstart=2026-01-01T00:00Z\nend=2026-01-01T02:00Z\nnameNode=file://\nworkDir=/tmp/x\n",
		"wf/job.properties":     "nameNode=file://\n",
	})
	workDirWarning := "variable [workDir] (line 4) is not defined by"
	tests := []struct {
		name     string
		args     []string
		want     []string
		wantNone []string
	}{
		// The coordinator's job.properties define workDir, and a
		// coordinator's actions hand their job's properties to the
		// workflow (Oozie's createdConf): no warning for it there.
		{"coordinator with -config", []string{"-config", filepath.Join(dir, "job.properties"), filepath.Join(dir, "coordinator.xml")},
			[]string{"Warning: workflow " + filepath.Join(dir, "wf", "workflow.xml") + ": parameter [queue] is required and not defined by the workflow configuration the coordinator's actions submit"},
			[]string{"[workDir]", "[nameNode]", "[retries]", "[fromDefaults]", "[KB]", "[RECORDS]"}},
		{"workflow with -config", []string{"-config", filepath.Join(dir, "wf", "job.properties"), filepath.Join(dir, "wf", "workflow.xml")},
			[]string{"Warning: " + workDirWarning + " the job properties, the workflow's config-default.xml or its <parameters>: the job will fail with EL_ERROR",
				"Warning: parameter [queue] is required and not defined by the job properties: the submission will be refused with E0738"},
			[]string{"[nameNode]", "[retries]", "[fromDefaults]", "[KB]", "[RECORDS]"}},
		{"workflow without -config", []string{filepath.Join(dir, "wf", "workflow.xml")}, nil, []string{"Warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"validate"}, tt.args...)...)
			if code != exitOK || !strings.Contains(out, "Valid") {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(errOut, w) {
					t.Errorf("stderr has %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// writeTree writes files (relative path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
