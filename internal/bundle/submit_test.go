package bundle

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

const bundleDir = "hdfs://nn:8020/user/u/app"

// submitDoc submits xml as bundleDir/bundle.xml with the job properties
// pairs (user.name and the app path added) and extra files.
func submitDoc(xml string, files map[string]string, pairs ...string) (*App, *conf.Config, error) {
	all := map[string]string{bundleDir + "/bundle.xml": xml}
	for k, v := range files {
		all[k] = v
	}
	p := props(append([]string{"user.name=u", PropAppPath + "=" + bundleDir}, pairs...)...)
	return Submit(p, SubmitOptions{ReadFile: memFiles(all)})
}

// TestSubmitEL: EL with the job's properties everywhere in the document
// (spec: bundle 3), bundle:conf for names that are not identifiers.
func TestSubmitEL(t *testing.T) {
	xml := doc("0.2", `name="b-${x}"`,
		`<controls><kick-off-time>${kick}</kick-off-time></controls>`+
			coordEl(`name="${bundle:conf('coord.name')}" critical="${crit}"`,
				`<app-path>${nameNode}/apps/${x}</app-path><configuration><property><name>p</name><value>${concat(x, '!')}</value></property>`+
					`<property><name>q</name><value>${bundle:conf('job.tracker')}</value></property></configuration>`))
	a, job, err := submitDoc(xml, nil, "x=one", "kick=2030-05-01T10:00Z", "coord.name=c1", "crit=true",
		"nameNode=hdfs://nn:8020", "job.tracker=jt:8021")
	wantErr(t, err, "", "")
	if a.Name != "b-one" || a.Namespace != NS02 {
		t.Errorf("name %q ns %q", a.Name, a.Namespace)
	}
	if want := time.Date(2030, 5, 1, 10, 0, 0, 0, time.UTC); !a.KickoffTime.Equal(want) {
		t.Errorf("kick-off %v, want %v", a.KickoffTime, want)
	}
	c := a.Coordinators[0]
	if c.Name != "c1" || c.AppPath != "hdfs://nn:8020/apps/one" || !c.Critical || !c.Enabled {
		t.Errorf("coordinator %+v", c)
	}
	if v, _ := c.Conf.Get("p"); v != "one!" {
		t.Errorf("p = %q", v)
	}
	if v, _ := c.Conf.Get("q"); v != "jt:8021" {
		t.Errorf("q = %q", v)
	}
	if v, _ := job.Get("x"); v != "one" {
		t.Errorf("job x = %q", v)
	}
	if !strings.Contains(a.JobXML, `name="b-one"`) || strings.Contains(a.JobXML, "${") {
		t.Errorf("job XML not resolved: %s", a.JobXML)
	}
	if a.Definition != xml {
		t.Errorf("definition is not the document as submitted")
	}
}

// TestSubmitErrors: every refusal of a submission, with Oozie's code.
func TestSubmitErrors(t *testing.T) {
	ok := coordEl(`name="c"`, `<app-path>/a</app-path>`)
	tests := []struct {
		name, xml string
		files     map[string]string
		pairs     []string
		code      string
		part      string
	}{
		{"valid", doc("0.2", "", ok), nil, nil, "", ""},
		{"undefined variable", doc("0.2", "", coordEl(`name="c"`, `<app-path>${missing}</app-path>`)), nil, nil,
			CodeSubmit, "E1310: Bundle Job submission Error: [E1004: Expression language evaluation error"},
		{"undefined variable names it", doc("0.2", "", coordEl(`name="c"`, `<app-path>${missing}</app-path>`)), nil, nil,
			CodeSubmit, "in [${missing}]"},
		{"EL syntax", doc("0.2", `name="${a +}"`, ok), nil, nil, CodeSubmit, "E1004"},
		{"EL in a description", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><configuration><property><name>a</name><value>1</value><description>${nope}</description></property></configuration>`)), nil, nil,
			CodeSubmit, "E1004"},
		{"EL in a comment is removed", "<!-- ${nope} -->" + doc("0.2", "", ok), nil, nil, "", ""},
		{"unknown function", doc("0.2", `name="${wf:id()}"`, ok), nil, nil, CodeSubmit, "E1004"},
		{"duplicate names", doc("0.2", "", ok+ok), nil, nil, CodeSubmit,
			`E1310: Bundle Job submission Error: [E1304: Duplicate bundle application coordinator name [[Attribute: name="c"]]]`},
		{"duplicate names through EL", doc("0.2", "", coordEl(`name="${n1}"`, `<app-path>/a</app-path>`)+coordEl(`name="${n2}"`, `<app-path>/b</app-path>`)), nil,
			[]string{"n1=same", "n2=same"}, CodeSubmit, "E1304"},
		{"bad kick-off-time", doc("0.2", "", `<controls><kick-off-time>tomorrow</kick-off-time></controls>`+ok), nil, nil,
			CodeSubmit, `[E1301: Could not read the bundle job definition, [Unparseable date: "tomorrow"]]`},
		{"empty kick-off-time", doc("0.2", "", `<controls><kick-off-time></kick-off-time></controls>`+ok), nil, nil, "", ""},
		{"schema", doc("0.1", "", coordEl(`name="c" enabled="true"`, `<app-path>/a</app-path>`)), nil, nil, CodeSchema, "XML schema error, cvc-complex-type.3.2.2"},
		{"required parameter", doc("0.2", "", `<parameters><property><name>p</name></property><property><name>q</name></property></parameters>`+ok), nil, nil,
			CodeSubmit, "[E0738: The following 2 parameters are required but were not defined and no default values are available: p, q]"},
		{"required parameter given", doc("0.2", "", `<parameters><property><name>p</name></property></parameters>`+ok), nil, []string{"p=1"}, "", ""},
		{"empty parameter name", doc("0.2", "", `<parameters><property><name> </name></property></parameters>`+ok), nil, nil,
			CodeSubmit, "[E0739: Parameter name cannot be empty]"},
		{"disallowed job property", doc("0.2", "", ok), nil, []string{"MINUTES=1"}, CodeSubmit, "[E0808: Disallowed user property [MINUTES]]"},
		{"disallowed default user.name", doc("0.2", "", ok), map[string]string{bundleDir + "/bundle-config-default.xml": confXML("user.name", "x")}, nil,
			CodeSubmit, "[E0808: Disallowed user property [user.name]]"},
		{"disallowed default constant", doc("0.2", "", ok), map[string]string{bundleDir + "/bundle-config-default.xml": confXML("KB", "x")}, nil,
			CodeSubmit, "Disallowed user property [KB]"},
		{"bad defaults file", doc("0.2", "", ok), map[string]string{bundleDir + "/bundle-config-default.xml": "<configuration>"}, nil,
			CodeSubmit, "[E0702: "},
		{"EL result breaking the XML", doc("0.2", `name="${v}"`, ok), nil, []string{"v=a\"b"}, CodeSubmit, "E1301"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := submitDoc(tt.xml, tt.files, tt.pairs...)
			wantErr(t, err, tt.code, tt.part)
		})
	}
}

// confXML is a Hadoop configuration of one property.
func confXML(name, value string) string {
	return "<configuration><property><name>" + name + "</name><value>" + value + "</value></property></configuration>"
}

// TestSubmitPaths: the application path names the file or its directory;
// what cannot be read is E1301, a missing property E0401, a path that is
// not a URI E1302.
func TestSubmitPaths(t *testing.T) {
	xml := doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path>`))
	files := map[string]string{"/apps/b/bundle.xml": xml, "/apps/f/my-bundle.xml": xml,
		"/apps/f/bundle-config-default.xml": confXML("fromDefault", "f")}
	tests := []struct {
		name  string
		pairs []string
		code  string
		part  string
	}{
		{"directory", []string{"user.name=u", PropAppPath + "=/apps/b"}, "", ""},
		{"directory with slash", []string{"user.name=u", PropAppPath + "=/apps/b/"}, "", ""},
		{"file", []string{"user.name=u", PropAppPath + "=/apps/f/my-bundle.xml"}, "", ""},
		{"missing", []string{"user.name=u", PropAppPath + "=/apps/none"}, CodeRead, "E1301: Could not read the bundle job definition, [File /apps/none/bundle.xml does not exist]"},
		{"no user", []string{PropAppPath + "=/apps/b"}, CodeNoProperty, "Missing configuration property [user.name]"},
		{"no app path", []string{"user.name=u"}, CodeNoProperty, "Missing configuration property [oozie.bundle.application.path]"},
		{"not a URI", []string{"user.name=u", PropAppPath + "=/apps/my bundle"}, CodeURI, "E1302: Invalid bundle application URI [/apps/my bundle], Illegal character in path at index 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, job, err := Submit(props(tt.pairs...), SubmitOptions{ReadFile: memFiles(files)})
			wantErr(t, err, tt.code, tt.part)
			if err == nil && strings.Contains(tt.name, "file") {
				if v, _ := job.Get("fromDefault"); v != "f" {
					t.Errorf("bundle-config-default.xml beside the file not read: %q", v)
				}
			}
		})
	}
}

// TestSubmitPrecedence: job properties over bundle-config-default.xml
// over <parameters> defaults (spec: bundle 4.4).
func TestSubmitPrecedence(t *testing.T) {
	xml := doc("0.2", "", `<parameters><property><name>a</name><value>param</value></property>`+
		`<property><name>b</name><value>param</value></property><property><name>c</name><value>param</value></property></parameters>`+
		coordEl(`name="c"`, `<app-path>/${a}/${b}/${c}</app-path>`))
	defaults := "<configuration>" +
		"<property><name>a</name><value>default</value></property>" +
		"<property><name>b</name><value>default</value></property></configuration>"
	tests := []struct {
		name    string
		pairs   []string
		want    string
		noFiles bool
	}{
		{"job over defaults over parameters", []string{"a=job"}, "/job/default/param", false},
		{"defaults over parameters", nil, "/default/default/param", false},
		{"parameters alone", nil, "/param/param/param", true},
		{"job everywhere", []string{"a=j", "b=j", "c=j"}, "/j/j/j", false},
		{"job property referring to another", []string{"a=${b}-x", "b=j"}, "/j-x/j/param", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{bundleDir + "/bundle-config-default.xml": defaults}
			if tt.noFiles {
				files = nil
			}
			a, _, err := submitDoc(xml, files, tt.pairs...)
			wantErr(t, err, "", "")
			if got := a.Coordinators[0].AppPath; got != tt.want {
				t.Errorf("app-path %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCriticalEnabled: critical and enabled as Java's Boolean.parseBoolean
// reads them; enabled defaults to true, critical to false.
func TestCriticalEnabled(t *testing.T) {
	tests := []struct {
		attrs             string
		critical, enabled bool
	}{
		{`name="c"`, false, true},
		{`name="c" critical="true"`, true, true},
		{`name="c" critical="TRUE"`, true, true},
		{`name="c" critical="yes"`, false, true},
		{`name="c" critical=" true"`, false, true},
		{`name="c" enabled="false"`, false, false},
		{`name="c" enabled="True"`, false, true},
		{`name="c" enabled=""`, false, false},
		{`name="c" enabled="${on}" critical="${on}"`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.attrs, func(t *testing.T) {
			a, _, err := submitDoc(doc("0.2", "", coordEl(tt.attrs, `<app-path>/a</app-path>`)), nil, "on=true")
			wantErr(t, err, "", "")
			c := a.Coordinators[0]
			if c.Critical != tt.critical || c.Enabled != tt.enabled {
				t.Errorf("critical %v enabled %v, want %v %v", c.Critical, c.Enabled, tt.critical, tt.enabled)
			}
		})
	}
}

// TestCoordProps: the bundle's configuration, overridden by the
// coordinator's, then the coordinator app path and the bundle id.
func TestCoordProps(t *testing.T) {
	job := props("user.name=u", PropAppPath+"=/apps/b", "a=bundle", "b=bundle", PropCoordAppPath+"=/stale")
	tests := []struct {
		name string
		c    Coordinator
		want map[string]string
	}{
		{"no configuration", Coordinator{Name: "c", AppPath: "/apps/c"},
			map[string]string{"a": "bundle", "b": "bundle", PropCoordAppPath: "/apps/c", PropBundleID: "0000001-000000000000000-oozie-oozi-B", "user.name": "u"}},
		{"coordinator configuration wins", Coordinator{Name: "c", AppPath: "/apps/c", Conf: props("b=coord", "c=coord")},
			map[string]string{"a": "bundle", "b": "coord", "c": "coord", PropCoordAppPath: "/apps/c", PropBundleID: "0000001-000000000000000-oozie-oozi-B"}},
		{"app path over a configured one", Coordinator{Name: "c", AppPath: "/apps/c", Conf: props(PropCoordAppPath+"=/other", PropBundleID+"=x")},
			map[string]string{PropCoordAppPath: "/apps/c", PropBundleID: "0000001-000000000000000-oozie-oozi-B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CoordProps(job, tt.c, "0000001-000000000000000-oozie-oozi-B")
			for k, v := range tt.want {
				if g, _ := got.Get(k); g != v {
					t.Errorf("%s = %q, want %q", k, g, v)
				}
			}
			if got.Has(PropAppPath) {
				t.Errorf("%s kept", PropAppPath)
			}
			if v, _ := job.Get(PropAppPath); v != "/apps/b" || job.Has(PropBundleID) {
				t.Errorf("the bundle's configuration was changed")
			}
		})
	}
}

// TestCoordPropsMaterializeFrom: a bundle's per-coordinator first
// materialization (gozie migrate) reaches the coordinator it names only;
// a bundle-wide one reaches every coordinator.
func TestCoordPropsMaterializeFrom(t *testing.T) {
	tests := []struct {
		name string
		job  []string
		want map[string]string // coordinator name -> its gozie.coord.materialize.from
	}{
		{"per coordinator", []string{"gozie.coord.materialize.from.c1=2030-01-01T05:00Z", "gozie.coord.materialize.from.c3=2030-02-01T00:00Z"},
			map[string]string{"c1": "2030-01-01T05:00Z", "c2": ""}},
		{"bundle-wide", []string{"gozie.coord.materialize.from=2030-01-01T00:00Z"},
			map[string]string{"c1": "2030-01-01T00:00Z", "c2": "2030-01-01T00:00Z"}},
		{"per coordinator over bundle-wide", []string{"gozie.coord.materialize.from=2030-01-01T00:00Z", "gozie.coord.materialize.from.c2=2030-03-01T00:00Z"},
			map[string]string{"c1": "2030-01-01T00:00Z", "c2": "2030-03-01T00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := props(append([]string{"user.name=u"}, tt.job...)...)
			for name, want := range tt.want {
				got, _ := CoordProps(job, Coordinator{Name: name, AppPath: "/apps/" + name}, "B").Get("gozie.coord.materialize.from")
				if got != want {
					t.Errorf("coordinator %s: %q, want %q", name, got, want)
				}
			}
		})
	}
}

// TestLoadRoundTrip: Load of the stored definition with the job
// configuration gives the submitted App back.
func TestLoadRoundTrip(t *testing.T) {
	xml := "<!-- c -->\n" + doc("0.2", `name="${n}"`, `<parameters><property><name>d</name><value>dv</value></property></parameters>`+
		`<controls><kick-off-time>2031-01-01T00:00Z</kick-off-time></controls>`+
		coordEl(`name="c1" critical="true"`, `<app-path>/a/${d}</app-path><configuration><property><name>x</name><value>${n}</value></property></configuration>`)+
		coordEl(`name="c2" enabled="false"`, `<app-path>/b</app-path>`))
	a, job, err := submitDoc(xml, map[string]string{bundleDir + "/bundle-config-default.xml": confXML("n", "fromDefault")})
	wantErr(t, err, "", "")
	b, err := Load(a.Definition, job)
	wantErr(t, err, "", "")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Load gave\n%+v\nwant\n%+v", b, a)
	}
	if _, err := Load("<bundle-app", job); ErrorCode(err) != CodeSchema {
		t.Errorf("Load of a broken definition: %v", err)
	}
}

// TestDryRun: the dry run answers the resolved job XML, comments removed
// (Oozie's OOZIE-945 test), and a line separator.
func TestDryRun(t *testing.T) {
	xml := "<!-- licence\n text -->\n" + doc("0.2", `name="${n}"`, coordEl(`name="c"`, `<app-path>/a</app-path>`))
	files := memFiles(map[string]string{"/b/bundle.xml": xml})
	out, err := DryRun(props("user.name=u", PropAppPath+"=/b", "n=bn"), SubmitOptions{ReadFile: files})
	wantErr(t, err, "", "")
	want := "\n" + doc("0.2", `name="bn"`, coordEl(`name="c"`, `<app-path>/a</app-path>`)) + "\n"
	if out != want {
		t.Errorf("dry run %q, want %q", out, want)
	}
	if _, err := DryRun(props("user.name=u", PropAppPath+"=/none"), SubmitOptions{ReadFile: files}); ErrorCode(err) != CodeRead {
		t.Errorf("dry run of a missing bundle: %v", err)
	}
}

// TestStartsAt: a bundle without a kick-off time, or with one passed,
// starts at once (spec: bundle 4.3).
func TestStartsAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	tests := []struct {
		kick, want time.Time
	}{
		{time.Time{}, now},
		{now.Add(-time.Hour), now},
		{later, later},
	}
	for _, tt := range tests {
		if got := (&App{KickoffTime: tt.kick}).StartsAt(now); !got.Equal(tt.want) {
			t.Errorf("StartsAt with kick-off %v = %v, want %v", tt.kick, got, tt.want)
		}
	}
}
