package server

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
)

// TestValidateSameCodes: the server's validate and gozie validate share
// one code path, so a mistake gets the same Oozie code from both (issue
// 13, point 19); before, the server answered E0701 for every mistake.
func TestValidateSameCodes(t *testing.T) {
	e := newEnv(t)
	wf := func(body string) string {
		return `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">` + body + `<kill name="k"><message>m</message></kill><end name="end"/></workflow-app>`
	}
	fs := func(name, ok string) string {
		return `<action name="` + name + `"><fs><mkdir path="/x"/></fs><ok to="` + ok + `"/><error to="k"/></action>`
	}
	tests := []struct {
		name, xml, code, msg string
	}{
		{"valid", wf(`<start to="a"/>` + fs("a", "end")), "", ""},
		{"loop", wf(`<start to="a"/>` + fs("a", "b") + fs("b", "a")), "E0707", "Loop detected at parsing, node [a]"},
		{"bad transition", wf(`<start to="a"/>` + fs("a", "nowhere")), "E0708", "Invalid transition, node [a] transition [nowhere]"},
		{"fork without join", wf(`<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` + fs("a", "end") + fs("b", "end")), "E0730", "Fork/Join not in pair"},
		{"no name-node", wf(`<start to="a"/><action name="a"><map-reduce/><ok to="end"/><error to="k"/></action>`), "E0701", "No name-node defined"},
		{"schema", wf(`<start to="a" foo="1"/>` + fs("a", "end")), "E0701", "cvc-complex-type.3.2.2"},
		{"too long", wf(`<start to="a"/>` + fs("a", "end") + "<!--" + strings.Repeat("x", 100001) + "-->"), "E0736", "exceeded maximum allowed length [100000]"},
		{"coordinator attribute", `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC" owner="x"><action><workflow><app-path>/wf</app-path></workflow></action></coordinator-app>`,
			"E0701", "cvc-complex-type.3.2.2"},
		{"not xml", `<workflow-app`, "E0701", "XML schema error"},
		// Issue 26 point 7: without job properties a coordinator is
		// checked as far as it can be; what needs a property is not an
		// error, the structure is checked, no file is read.
		{"parameterized coordinator", coordDef(`<datasets><include>/etc/ds.xml</include>` + rawDS + `</datasets>` + dataIn("raw")), "", ""},
		{"coordinator dataset not defined", coordDef(`<datasets>` + rawDS + `</datasets>` + dataIn("cooked")), "E1021",
			"Dataset [cooked] referenced by input-events [in] is not defined"},
	}
	offline, err := engine.ValidateSettings(conf.New())
	if err != nil {
		t.Fatal(err)
	}
	offline.Props = nil // the server knows no job properties either
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/oozie/v2/validate?file=/app/workflow.xml&user=joe&user.name=joe", "application/xml", tt.xml)
			_, oerr := engine.ValidateDefinition([]byte(tt.xml), "/app/workflow.xml", offline)
			if tt.code == "" {
				if r.status != 200 || oerr != nil {
					t.Fatalf("server %d %s, offline %v; want valid", r.status, r.body, oerr)
				}
				return
			}
			if got := r.header.Get("oozie-error-code"); r.status != 400 || got != tt.code || !strings.Contains(string(r.body), tt.msg) {
				t.Errorf("server: %d %s %s; want %s containing %q", r.status, got, r.body, tt.code, tt.msg)
			}
			if got := engine.ErrorCode(oerr); got != tt.code || !strings.Contains(oerr.Error(), tt.msg) {
				t.Errorf("offline: %v; want %s containing %q", oerr, tt.code, tt.msg)
			}
		})
	}
}

// coordDef is a coordinator with parameterized start, end and app path and
// the given datasets and events.
func coordDef(body string) string {
	return `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="${coord:hours(1)}" start="${start}" end="${end}" timezone="UTC">` +
		body + `<action><workflow><app-path>${appDir}/wf</app-path></workflow></action></coordinator-app>`
}

const rawDS = `<dataset name="raw" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC"><uri-template>${root}/raw/${YEAR}</uri-template></dataset>`

func dataIn(ds string) string {
	return `<input-events><data-in name="in" dataset="` + ds + `"><instance>${coord:current(0)}</instance></data-in></input-events>`
}
