package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

// TestCheckDefinition: without the job's properties, what needs a
// variable is a warning; everything else fails as at submission.
func TestCheckDefinition(t *testing.T) {
	ok := coordEl(`name="c"`, `<app-path>/a</app-path>`)
	tests := []struct {
		name, xml, code, part, warning string
	}{
		{"valid", doc("0.2", "", ok), "", "", ""},
		{"undefined variable warns", doc("0.2", "", coordEl(`name="c"`, `<app-path>${appPath}</app-path>`)), "", "", "app-path [${appPath}] not checked: variable [appPath] not defined"},
		{"bundle:conf needs no variable", doc("0.2", "", coordEl(`name="${bundle:conf('x.y')}"`, `<app-path>/a</app-path>`)), "", "", ""},
		{"EL syntax fails", doc("0.2", "", coordEl(`name="c"`, `<app-path>${a +}</app-path>`)), CodeSubmit, "E1004", ""},
		{"unknown function fails", doc("0.2", "", coordEl(`name="c"`, `<app-path>${wf:id()}</app-path>`)), CodeSubmit, "E1004", ""},
		{"literal duplicates fail", doc("0.2", "", ok+ok), CodeSubmit, "E1304", ""},
		{"duplicates through variables unchecked", doc("0.2", "", coordEl(`name="${a}"`, `<app-path>/a</app-path>`)+coordEl(`name="${a}"`, `<app-path>/a</app-path>`)), "", "", "coordinator name [${a}] not checked"},
		{"literal bad kick-off fails", doc("0.2", "", `<controls><kick-off-time>never</kick-off-time></controls>`+ok), CodeSubmit, "Unparseable date", ""},
		{"kick-off through a variable", doc("0.2", "", `<controls><kick-off-time>${k}</kick-off-time></controls>`+ok), "", "", "kick-off-time [${k}] not checked"},
		{"required parameters warn", doc("0.2", "", `<parameters><property><name>p</name></property></parameters>`+ok), "", "", "required parameters not defined, so not checked (give them with -config): p"},
		{"parameter default defines a variable", doc("0.2", "", `<parameters><property><name>p</name><value>/x</value></property></parameters>`+coordEl(`name="c"`, `<app-path>${p}</app-path>`)), "", "", ""},
		{"empty parameter name fails", doc("0.2", "", `<parameters><property><name></name></property></parameters>`+ok), CodeSubmit, "E0739", ""},
		{"schema fails", doc("0.1", "", coordEl(`name="${c}"`, `<app-path>/a</app-path>`)), CodeSchema, "cvc-pattern-valid", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warnings, err := CheckDefinition([]byte(tt.xml))
			wantErr(t, err, tt.code, tt.part)
			joined := strings.Join(warnings, "\n")
			if tt.warning == "" && len(warnings) > 0 {
				t.Errorf("unexpected warnings: %q", warnings)
			}
			if tt.warning != "" && !strings.Contains(joined, tt.warning) {
				t.Errorf("warnings %q lack %q", warnings, tt.warning)
			}
		})
	}
}

// TestOozieDefinitions: the bundle definitions of Oozie's test resources,
// its spec's examples and its example application, each with the outcome
// Oozie gives them (with the properties its tests submit them with).
func TestOozieDefinitions(t *testing.T) {
	tests := []struct {
		file  string
		pairs []string // nil: checked without properties
		code  string
		part  string
	}{
		{"oozie-bundle-submit-job.xml", nil, "", ""},
		{"oozie-bundle-submit-job.xml", []string{"appName=test", "coordName1=coord1", "coordName2=coord2"}, "", ""},
		// TestBundleSubmitXCommand.testDuplicateCoordName.
		{"oozie-bundle-submit-job.xml", []string{"appName=test", "coordName1=coord", "coordName2=coord"}, CodeSubmit, "Bundle Job submission Error"},
		{"oozie-bundle-submit-job-with-functions.xml", []string{"appName=test", "coordName1=coord1", "coordName2=coord2", "coord1.starttime=2009-02-01T00:00Z"}, "", ""},
		{"oozie-bundle-submit-job-with-functions.xml", nil, "", ""},
		{"spec-example-0.1.xml", nil, CodeSchema, "cvc-pattern-valid"},
		{"spec-example-0.2.xml", []string{"kickOffTime=2011-01-01T00:00Z", "START_TIME=s", "END_TIME=e", "START_TIME2=s", "END_TIME2=e"}, CodeSubmit, "E0738: The following 1 parameters are required but were not defined and no default values are available: appPath"},
		{"spec-example-0.2.xml", []string{"appPath=/c1", "kickOffTime=2011-01-01T00:00Z", "START_TIME=s", "END_TIME=e", "START_TIME2=s", "END_TIME2=e"}, "", ""},
		{"../../../examples/oozie/apps/bundle/bundle.xml", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+strings.Join(tt.pairs, ","), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tt.pairs == nil {
				_, err := CheckDefinition(data)
				wantErr(t, err, tt.code, tt.part)
				return
			}
			_, _, err = submitDoc(string(data), nil, tt.pairs...)
			wantErr(t, err, tt.code, tt.part)
		})
	}
}

// TestExampleApp submits examples/oozie/apps/bundle with its
// job.properties: one coordinator, the aggregator, for two hours.
func TestExampleApp(t *testing.T) {
	dir := "../../examples/oozie/apps/bundle"
	f, err := os.Open(filepath.Join(dir, "job.properties"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := conf.ParseProperties(f, "job.properties")
	if err != nil {
		t.Fatal(err)
	}
	p.Set("user.name", "joe")
	xml, err := os.ReadFile(filepath.Join(dir, "bundle.xml"))
	if err != nil {
		t.Fatal(err)
	}
	files := memFiles(map[string]string{"hdfs://localhost:8020/user/joe/examples/apps/bundle/bundle.xml": string(xml)})
	a, job, err := Submit(p, SubmitOptions{ReadFile: files})
	wantErr(t, err, "", "")
	if len(a.Coordinators) != 1 {
		t.Fatalf("coordinators %+v", a.Coordinators)
	}
	c := a.Coordinators[0]
	if c.Name != "coord-1" || c.AppPath != "hdfs://localhost:8020/user/joe/examples/apps/aggregator/coordinator.xml" {
		t.Errorf("coordinator %+v", c)
	}
	cp := CoordProps(job, c, "0000000-000000000000000-oozie-oozi-B")
	for k, want := range map[string]string{"start": "2010-01-01T01:00Z", "end": "2010-01-01T03:00Z", PropCoordAppPath: c.AppPath, "queueName": "default"} {
		if v, _ := cp.Get(k); v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
}
