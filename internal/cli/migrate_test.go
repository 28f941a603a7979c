package cli

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/schedule"
)

func migrateTime(t *testing.T, s string) rest.Time {
	t.Helper()
	if s == "" {
		return rest.Time{}
	}
	v, err := schedule.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return rest.Time{Time: v}
}

// TestPlanHandOver: where a source coordinator hands over to its copy.
// The source keeps what it materialized (its next materialization time is
// the copy's first); with -suspend-source the newest actions it has not
// started go to the copy; an ended job or one past its end has nothing
// left.
func TestPlanHandOver(t *testing.T) {
	type act struct{ nominal, status string }
	tests := []struct {
		name       string
		status     string
		start, end string
		next       string
		actions    []act // any order
		suspend    bool
		wantFrom   string
		wantCap    bool
		wantDone   bool
		wantTaken  int
	}{
		{"running: from the next materialization", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T07:00Z",
			[]act{{"2030-01-01T06:00Z", "WAITING"}, {"2030-01-01T05:00Z", "SUCCEEDED"}}, false, "2030-01-01T07:00Z", true, false, 0},
		{"suspend: not-started tail to the copy", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T08:00Z",
			[]act{{"2030-01-01T05:00Z", "SUCCEEDED"}, {"2030-01-01T07:00Z", "READY"}, {"2030-01-01T06:00Z", "WAITING"}}, true, "2030-01-01T06:00Z", true, false, 2},
		{"suspend: the tail stops at a started action", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T08:00Z",
			[]act{{"2030-01-01T05:00Z", "WAITING"}, {"2030-01-01T06:00Z", "RUNNING"}, {"2030-01-01T07:00Z", "WAITING"}}, true, "2030-01-01T07:00Z", true, false, 1},
		{"suspend: nothing waiting", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T08:00Z",
			[]act{{"2030-01-01T07:00Z", "SUCCEEDED"}}, true, "2030-01-01T08:00Z", true, false, 0},
		{"prep: from its start", "PREP", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "", nil, false, "2030-01-01T00:00Z", true, false, 0},
		{"suspended source", "SUSPENDED", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T03:00Z", nil, false, "2030-01-01T03:00Z", true, false, 0},
		{"materialized to its end", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-02T00:00Z",
			[]act{{"2030-01-01T23:00Z", "RUNNING"}}, false, "2030-01-02T00:00Z", false, true, 0},
		{"suspend, the last actions waiting: not done", "RUNNING", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-02T00:00Z",
			[]act{{"2030-01-01T23:00Z", "WAITING"}}, true, "2030-01-01T23:00Z", true, false, 1},
		{"ended", "SUCCEEDED", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-02T00:00Z", nil, false, "2030-01-02T00:00Z", false, true, 0},
		{"killed", "KILLED", "2030-01-01T00:00Z", "2030-01-02T00:00Z", "2030-01-01T05:00Z", nil, true, "2030-01-02T00:00Z", false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &client.CoordJob{CoordJobID: "1-C", Status: tt.status, StartTime: migrateTime(t, tt.start), EndTime: migrateTime(t, tt.end),
				NextMaterializedTime: migrateTime(t, tt.next)}
			for _, a := range tt.actions {
				j.Actions = append(j.Actions, &client.CoordAction{NominalTime: migrateTime(t, a.nominal), Status: a.status})
			}
			h := planHandOver(j, tt.suspend)
			if got := minute(h.From); got != tt.wantFrom || h.Cap != tt.wantCap || h.Done != tt.wantDone || h.Taken != tt.wantTaken {
				t.Errorf("from %s cap %v done %v taken %d, want %s %v %v %d", got, h.Cap, h.Done, h.Taken, tt.wantFrom, tt.wantCap, tt.wantDone, tt.wantTaken)
			}
		})
	}
}

// TestCoordCopyProps: the copy's configuration is the source's with the
// first materialization (when after the start), the pause time, the
// suspended flag and the source id; masked secrets refuse the copy.
func TestCoordCopyProps(t *testing.T) {
	confXML := func(kv ...string) string {
		var b strings.Builder
		b.WriteString("<configuration>")
		for i := 0; i+1 < len(kv); i += 2 {
			b.WriteString("<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>")
		}
		b.WriteString("</configuration>")
		return b.String()
	}
	base := []string{"oozie.coord.application.path", "hdfs://nn/apps/c", "user.name", "joe", "start", "2030-01-01T00:00Z"}
	tests := []struct {
		name    string
		status  string
		conf    string
		from    string
		pause   string
		want    map[string]string // "" : must be absent
		wantErr string
	}{
		{"running", "RUNNING", confXML(base...), "2030-01-01T07:00Z", "",
			map[string]string{"gozie.coord.materialize.from": "2030-01-01T07:00Z", "gozie.migrated.from": "1-C", "start": "2030-01-01T00:00Z",
				"gozie.coord.submit.suspended": "", "gozie.coord.pause.time": "", "oozie.coord.application.path": "hdfs://nn/apps/c"}, ""},
		{"from its start: no from", "PREP", confXML(base...), "2030-01-01T00:00Z", "",
			map[string]string{"gozie.coord.materialize.from": "", "gozie.migrated.from": "1-C"}, ""},
		{"an earlier migration's from is replaced", "RUNNING", confXML(append(base, "gozie.coord.materialize.from", "2029-01-01T00:00Z")...), "2030-01-01T00:00Z", "",
			map[string]string{"gozie.coord.materialize.from": ""}, ""},
		{"suspended and paused", "SUSPENDEDWITHERROR", confXML(base...), "2030-01-01T03:00Z", "2030-01-01T12:00Z",
			map[string]string{"gozie.coord.submit.suspended": "true", "gozie.coord.pause.time": "2030-01-01T12:00Z"}, ""},
		{"a copy's own controls are not copied", "RUNNING", confXML(append(base, "gozie.coord.submit.suspended", "true", "gozie.coord.pause.time", "2029-01-01T00:00Z",
			"gozie.migrated.from", "0-C")...), "2030-01-01T03:00Z", "",
			map[string]string{"gozie.coord.submit.suspended": "", "gozie.coord.pause.time": "", "gozie.migrated.from": "1-C"}, ""},
		{"masked secret", "RUNNING", confXML(append(base, "db.password", "*****")...), "2030-01-01T03:00Z", "", nil, "masked property [db.password]"},
		{"no configuration", "RUNNING", "", "2030-01-01T03:00Z", "", nil, "no job configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &client.CoordJob{CoordJobID: "1-C", Status: tt.status, Conf: client.Str(tt.conf),
				StartTime: migrateTime(t, "2030-01-01T00:00Z"), PauseTime: migrateTime(t, tt.pause)}
			cf, err := coordCopyProps(j, handOver{From: migrateTime(t, tt.from).Time})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.want {
				got, ok := cf.Get(k)
				if want == "" && ok {
					t.Errorf("%s = %q, want none", k, got)
				} else if want != "" && got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

// TestBundleCopyProps: each coordinator's first materialization under its
// name, none for one that continues from its start, and the bundle's pause
// time for every coordinator.
func TestBundleCopyProps(t *testing.T) {
	b := &client.BundleJob{BundleJobID: "1-B", Status: "RUNNING", PauseTime: migrateTime(t, "2030-01-02T00:00Z"),
		Conf: `<configuration><property><name>oozie.bundle.application.path</name><value>/b</value></property></configuration>`}
	start := migrateTime(t, "2030-01-01T00:00Z")
	coords := []bundleCoord{
		{Job: &client.CoordJob{CoordJobName: "a", StartTime: start}, handOver: handOver{From: migrateTime(t, "2030-01-01T06:00Z").Time, Cap: true}},
		{Job: &client.CoordJob{CoordJobName: "b", StartTime: start}, handOver: handOver{From: start.Time, Cap: true}},
		{Job: &client.CoordJob{CoordJobName: "c", StartTime: start, Status: "SUCCEEDED"}, handOver: handOver{From: migrateTime(t, "2030-01-03T00:00Z").Time, Done: true}},
	}
	cf, err := bundleCopyProps(b, coords)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"gozie.coord.materialize.from.a": "2030-01-01T06:00Z", "gozie.coord.materialize.from.c": "2030-01-03T00:00Z",
		"gozie.coord.pause.time": "2030-01-02T00:00Z", "gozie.migrated.from": "1-B", "oozie.bundle.application.path": "/b"}
	for k, v := range want {
		if got, _ := cf.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if cf.Has("gozie.coord.materialize.from.b") || cf.Has("gozie.coord.materialize.from") {
		t.Errorf("a from for b: %s", describeSubmission(cf))
	}
	coords[0].Job.CoordJobName = ""
	if _, err := bundleCopyProps(b, coords); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("a coordinator without a name: %v", err)
	}
}

// TestSourceFilter: the statuses migrate moves, unless the user's filter
// names statuses of its own.
func TestSourceFilter(t *testing.T) {
	tests := []struct{ user, want string }{
		{"", "status=RUNNING;status=PREP"},
		{"user=joe", "user=joe;status=RUNNING;status=PREP"},
		{"name=a; name=b;", "name=a;name=b;status=RUNNING;status=PREP"},
		{"user=joe;Status=SUSPENDED", "user=joe;Status=SUSPENDED"},
	}
	for _, tt := range tests {
		if got := sourceFilter(tt.user, []string{"RUNNING", "PREP"}); got != tt.want {
			t.Errorf("sourceFilter(%q) = %q, want %q", tt.user, got, tt.want)
		}
	}
}

// TestMigratedFrom reads the copy mark of a destination job.
func TestMigratedFrom(t *testing.T) {
	tests := []struct{ conf, want string }{
		{"", ""},
		{"<configuration><property><name>a</name><value>b</value></property></configuration>", ""},
		{"<configuration><property><name>gozie.migrated.from</name><value> 1-C </value></property></configuration>", "1-C"},
		{"<configuration><property><name>gozie.migrated.from</name>", ""},
	}
	for _, tt := range tests {
		if got := migratedFrom(tt.conf); got != tt.want {
			t.Errorf("migratedFrom(%q) = %q, want %q", tt.conf, got, tt.want)
		}
	}
}

// TestPlanFinish: what a rerun still does to a source whose copy exists:
// its end time set to the copy's first materialization when it is later,
// and with -suspend-source a suspension, unless actions of its own (before
// that time) have not started.
func TestPlanFinish(t *testing.T) {
	type act struct{ nominal, status string }
	tests := []struct {
		name    string
		status  string
		end     string
		actions []act
		suspend bool
		want    finish
	}{
		{"done by the first run", "RUNNING", "2030-01-01T07:00Z", nil, false, finish{}},
		{"end time not set", "RUNNING", "2030-01-02T00:00Z", nil, false, finish{Cap: true}},
		{"suspend", "RUNNING", "2030-01-01T07:00Z", []act{{"2030-01-01T06:00Z", "SUCCEEDED"}}, true, finish{Suspend: true}},
		{"own action not started: not suspended", "RUNNING", "2030-01-01T07:00Z",
			[]act{{"2030-01-01T05:00Z", "SUCCEEDED"}, {"2030-01-01T06:00Z", "WAITING"}}, true, finish{Own: 1}},
		{"actions from the copy's time on are not the source's", "RUNNING", "2030-01-02T00:00Z",
			[]act{{"2030-01-01T06:00Z", "SUCCEEDED"}, {"2030-01-01T07:00Z", "WAITING"}}, true, finish{Cap: true, Suspend: true}},
		{"already suspended", "SUSPENDED", "2030-01-02T00:00Z", []act{{"2030-01-01T06:00Z", "WAITING"}}, true, finish{Cap: true}},
		{"ended", "SUCCEEDED", "2030-01-02T00:00Z", nil, true, finish{}},
	}
	from := migrateTime(t, "2030-01-01T07:00Z").Time
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &client.CoordJob{Status: tt.status, EndTime: migrateTime(t, tt.end)}
			for _, a := range tt.actions {
				j.Actions = append(j.Actions, &client.CoordAction{NominalTime: migrateTime(t, a.nominal), Status: a.status})
			}
			if got := planFinish(j, from, tt.suspend); got != tt.want {
				t.Errorf("%+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCopyFrom reads a copy's first materialization from its
// configuration, its start when it has none.
func TestCopyFrom(t *testing.T) {
	start := migrateTime(t, "2030-01-01T00:00Z").Time
	prop := func(name, value string) string {
		return "<configuration><property><name>" + name + "</name><value>" + value + "</value></property></configuration>"
	}
	tests := []struct{ conf, name, want string }{
		{prop("gozie.coord.materialize.from", "2030-01-01T06:00Z"), "gozie.coord.materialize.from", "2030-01-01T06:00Z"},
		{prop("gozie.coord.materialize.from.ba", "2030-01-01T06:00Z"), "gozie.coord.materialize.from.ba", "2030-01-01T06:00Z"},
		{prop("gozie.coord.materialize.from.ba", "2030-01-01T06:00Z"), "gozie.coord.materialize.from.bb", "2030-01-01T00:00Z"},
		{prop("gozie.coord.materialize.from", "2029-01-01T06:00Z"), "gozie.coord.materialize.from", "2030-01-01T00:00Z"},
		{prop("gozie.coord.materialize.from", "soon"), "gozie.coord.materialize.from", "2030-01-01T00:00Z"},
		{"", "gozie.coord.materialize.from", "2030-01-01T00:00Z"},
	}
	for _, tt := range tests {
		if got := minute(copyFrom(tt.conf, tt.name, start)); got != tt.want {
			t.Errorf("copyFrom(%q, %s) = %s, want %s", tt.conf, tt.name, got, tt.want)
		}
	}
}

// TestMigrateCommandLine: the refusals of the command line itself.
func TestMigrateCommandLine(t *testing.T) {
	pinEnv(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "-oozie", "http://127.0.0.1:1/oozie"}, "-from OOZIE_URL is required"},
		{[]string{"migrate", "-from", "http://127.0.0.1:1/oozie", "-oozie", "http://127.0.0.1:2/oozie", "-json"}, "-json is not an option of migrate"},
		{[]string{"migrate", "-from", "http://127.0.0.1:1/oozie", "extra"}, "unexpected argument [extra]"},
		{[]string{"migrate", "-from", "http://127.0.0.1:1/oozie"}, "Oozie URL is not available"},
		{[]string{"migrate", "-from", "http://127.0.0.1:1/oozie/", "-oozie", "http://127.0.0.1:1/oozie"}, "-from and the destination are the same server"},
	}
	for _, tt := range tests {
		var out, errb strings.Builder
		if code := Main(tt.args, &out, &errb); code != exitRemote || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: %d %q, want %d %q", tt.args, code, errb.String(), exitRemote, tt.want)
		}
	}
}
