package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleProps is the job.properties of the coord-hourly example app, found
// from this package's directory.
func exampleProps(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", "apps", "coord-hourly", "job.properties"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The example's job.properties names the app relative to the repository
// root, so these tests point oozie.coord.application.path at it with -D.
func exampleArgs(t *testing.T, extra ...string) []string {
	props := exampleProps(t)
	args := []string{"dryrun", "-config", props, "-D", "oozie.coord.application.path=" + filepath.Dir(props), "-now", "2026-01-01T03:00Z"}
	return append(args, extra...)
}

func TestDryrunExampleJSON(t *testing.T) {
	code, out, errOut := run(t, exampleArgs(t, "-json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Name    string           `json:"coordJobName"`
		Actions []map[string]any `json:"actions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Name != "coord-hourly" || len(got.Actions) != 6 {
		t.Fatalf("name %q, %d actions; want coord-hourly and 6 (01:00..06:00)", got.Name, len(got.Actions))
	}
	appDir := filepath.ToSlash(filepath.Dir(exampleProps(t)))
	rows := []struct {
		number          float64
		nominal, status string
		missing         string
		runConfContains string
	}{
		{1, "Thu, 01 Jan 2026 01:00:00 GMT", "READY", "", "<value>" + appDir + "/data/2026/01/01/01," + appDir + "/data/2026/01/01/00</value>"},
		// Oozie stops at the first missing dependency and reports the rest
		// as missing too, even hour 01 whose _SUCCESS exists.
		{2, "Thu, 01 Jan 2026 02:00:00 GMT", "WAITING", appDir + "/data/2026/01/01/02/_SUCCESS#" + appDir + "/data/2026/01/01/01/_SUCCESS", "<value>2026-01-01 02:00</value>"},
		{6, "Thu, 01 Jan 2026 06:00:00 GMT", "WAITING", appDir + "/data/2026/01/01/06/_SUCCESS#" + appDir + "/data/2026/01/01/05/_SUCCESS", "<value>" + appDir + "/out/2026/01/01/06</value>"},
	}
	for _, r := range rows {
		a := got.Actions[int(r.number)-1]
		if a["actionNumber"] != r.number || a["nominalTime"] != r.nominal || a["status"] != r.status || a["missingDependencies"] != r.missing {
			t.Errorf("action %v: %v %v %v %q; want %s %s %q", r.number, a["actionNumber"], a["nominalTime"], a["status"], a["missingDependencies"], r.nominal, r.status, r.missing)
		}
		if rc, _ := a["runConf"].(string); !strings.Contains(rc, r.runConfContains) || !strings.Contains(rc, "<name>oozie.wf.application.path</name>") {
			t.Errorf("action %v runConf lacks %s:\n%s", r.number, r.runConfContains, rc)
		}
		if cc, _ := a["createdConf"].(string); !strings.Contains(cc, "<name>appDir</name>") {
			t.Errorf("action %v createdConf is not the job configuration:\n%s", r.number, cc)
		}
	}
}

func TestDryrunExampleText(t *testing.T) {
	code, out, errOut := run(t, exampleArgs(t, "-len", "2")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`Coordinator "coord-hourly": 2026-01-01T01:00Z to 2026-01-01T07:00Z, frequency 60 MINUTE`,
		"2 action(s)",
		"Action 1  nominal 2026-01-01T01:00Z  READY",
		"Action 2  nominal 2026-01-01T02:00Z  WAITING",
		"    hour=2026-01-01 02:00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Action 3") {
		t.Errorf("-len 2 printed a third action")
	}
}

func TestDryrunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "coordinator.xml")
	if err := os.WriteFile(bad, []byte(`<coordinator-app xmlns="uri:oozie:coordinator:0.2" name="c" frequency="${coord:minutes(1)}" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"><action><workflow><app-path>/wf</app-path></workflow></action></coordinator-app>`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no config", []string{"dryrun"}, exitUsage, "-config job.properties"},
		{"negative len", []string{"dryrun", "-D", "oozie.coord.application.path=" + dir, "-len", "-1"}, exitUsage, "-len"},
		{"bad now", []string{"dryrun", "-D", "oozie.coord.application.path=" + dir, "-now", "yesterday"}, exitUsage, "-now"},
		{"no app path", []string{"dryrun", "-D", "a=b"}, exitUsage, "oozie.coord.application.path"},
		{"missing app", []string{"dryrun", "-D", "oozie.coord.application.path=" + filepath.Join(dir, "nope")}, exitFail, "E0505"},
		{"too frequent", []string{"dryrun", "-D", "oozie.coord.application.path=" + dir}, exitFail, "E1003"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d stderr %q; want %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
	// The server switch turns the frequency check off.
	code, out, errOut := run(t, "dryrun", "-D", "oozie.coord.application.path="+dir, "-D", propCheckMaxFrequency+"=false", "-len", "3", "-now", "2009-01-01T00:00Z")
	if code != exitOK || !strings.Contains(out, "3 action(s)") {
		t.Errorf("with the check off: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestValidateCoordinatorFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ok.xml":       `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="60" start="${s}" end="${e}" timezone="UTC"><action><workflow><app-path>/wf</app-path></workflow></action></coordinator-app>`,
		"datasets.xml": `<datasets xmlns="uri:oozie:coordinator:0.4"><dataset name="a" frequency="60" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>/a</uri-template></dataset></datasets>`,
		"dup.xml":      `<datasets xmlns="uri:oozie:coordinator:0.4"><dataset name="a" frequency="60" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>/a</uri-template></dataset><dataset name="a" frequency="60" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>/b</uri-template></dataset></datasets>`,
		"order.xml":    "<coordinator-app xmlns=\"uri:oozie:coordinator:0.4\" name=\"c\" frequency=\"60\" start=\"s\" end=\"e\" timezone=\"UTC\">\n<action><workflow><app-path>/wf</app-path></workflow></action>\n<controls/></coordinator-app>",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file string
		code int
		want string
	}{
		// Without the job properties ${s} cannot be resolved: what needs
		// it is a warning (issue 26, point 7).
		{"ok.xml", exitOK, "Warning: start [${s}] not checked: variable [s] not defined"},
		{"datasets.xml", exitOK, "Valid datasets"},
		{"dup.xml", exitFail, "duplicate dataset name [a]"},
		{"order.xml", exitFail, "E0701: XML schema error, cvc-complex-type.2.4.d: Invalid content was found starting with element 'controls'. No child element is expected at this point. (line 3, column 1)"},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, "validate", filepath.Join(dir, tt.file))
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%s: exit %d stdout %q stderr %q; want %d and %q", tt.file, code, out, errOut, tt.code, tt.want)
		}
	}
}
