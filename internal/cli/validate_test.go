package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateCoordinatorSubmissionChecks: offline validate of a
// coordinator applies the checks of a submission that need no clock, with
// the given properties, and says "Valid" only for what a server would
// accept (issue 13, point 18).
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
	tests := []struct {
		name string
		xml  string
		args []string
		code int
		want string
	}{
		{"valid with the properties", coordApp("", ds+in("raw")), props, exitOK, "Valid coordinator-app"},
		{"undefined variable without them", coordApp("", ""), nil, exitFail, "E1004: Expression language evaluation error, start [${start}]"},
		{"start after end", coordApp("", ""), []string{"-D", "start=2026-01-03T00:00Z", "-D", "end=2026-01-02T00:00Z"}, exitFail,
			"E1003: Invalid coordinator application attributes, Coordinator Start Time must be earlier than End Time."},
		{"frequency too high", coordApp(`name="c" frequency="${coord:minutes(1)}" start="${start}" end="${end}" timezone="UTC"`, ""), props, exitFail,
			"E1003: Invalid coordinator application attributes, Coordinator job with frequency [1] minutes is faster than allowed maximum of 5 minutes"},
		{"frequency check off", coordApp(`name="c" frequency="${coord:minutes(1)}" start="${start}" end="${end}" timezone="UTC"`, ""),
			append([]string{"-D", "oozie.service.coord.check.maximum.frequency=false"}, props...), exitOK, "Valid coordinator-app"},
		{"dataset not defined", coordApp("", ds+in("cooked")), props, exitFail,
			"E1021: Dataset [cooked] referenced by input-events [in] is not defined"},
		{"EL syntax", coordApp(`name="c" frequency="${coord:hours(1}" start="${start}" end="${end}" timezone="UTC"`, ""), props, exitFail, "E1004"},
		{"missing parameter", coordApp("", `<parameters><property><name>queue</name></property></parameters>`), props, exitFail, "E0738"},
		{"parameter given", coordApp("", `<parameters><property><name>queue</name></property></parameters>`),
			append([]string{"-D", "queue=q"}, props...), exitOK, "Valid coordinator-app"},
		{"attribute outside the schema", coordApp(`name="c" frequency="60" start="${start}" end="${end}" timezone="UTC" owner="joe"`, ""), props, exitFail,
			"E0701: XML schema error, cvc-complex-type.3.2.2: Attribute 'owner' is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "coordinator.xml")
			if err := os.WriteFile(p, []byte(tt.xml), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, append(append([]string{"validate"}, tt.args...), p)...)
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
