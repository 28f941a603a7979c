package server

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRequestLimits reproduces the requests that crashed or stalled the
// server: offset=2&len=9223372036854775807 (a slice bound overflowed and the
// handler panicked), a huge logfilter recent= (the duration overflowed),
// a ${var} expansion bomb and a /dev/zero or FIFO app path at submission,
// and a configuration body a million elements deep. Each must be answered
// 400 with its code, at once.
func TestRequestLimits(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "", "oozie.wf.application.path", e.app("limits"))
	fifo := filepath.Join(e.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	logfilter := func(f string) string {
		return "/oozie/v2/job/" + id + "?show=log&logfilter=" + url.QueryEscape(f)
	}
	jobsFilter := func(f string) string { return "/oozie/v2/jobs?filter=" + url.QueryEscape(f) }
	deep := "<configuration>" + strings.Repeat("<a>", 1_000_000) + strings.Repeat("</a>", 1_000_000) + "</configuration>"
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, method, path, body string
		status                   int
		code, mentions           string
	}{
		{"job info len overflow", "GET", "/oozie/v2/job/" + id + "?show=info&offset=2&len=9223372036854775807", "", 400, "E1603", "9223372036854775807"},
		{"job info offset overflow", "GET", "/oozie/v2/job/" + id + "?show=info&offset=9223372036854775807", "", 400, "E1603", ""},
		{"job info largest int", "GET", "/oozie/v2/job/" + id + "?show=info&offset=2147483647&len=2147483647", "", 200, "", ""},
		{"jobs len overflow", "GET", "/oozie/v2/jobs?len=9223372036854775807", "", 400, "E1603", ""},
		{"jobs offset below Java int", "GET", "/oozie/v2/jobs?offset=-2147483649", "", 400, "E1603", ""},
		{"jobs largest int", "GET", "/oozie/v2/jobs?offset=2147483647&len=2147483647", "", 200, "", ""},
		{"jobs filter relative overflow", "GET", jobsFilter("startcreatedtime=-9223372036854775807d"), "", 400, "E0420", ""},
		{"jobs filter relative minutes overflow", "GET", jobsFilter("endcreatedtime=-9223372036854775807m"), "", 400, "E0420", ""},
		{"jobs filter a century back", "GET", jobsFilter("startcreatedtime=-36000d"), "", 200, "", ""},
		{"logfilter recent overflow", "GET", logfilter("recent=9223372036854775807"), "", 400, "E0302", "longer than"},
		{"logfilter recent minutes overflow", "GET", logfilter("recent=9223372036854775807m"), "", 400, "E0302", ""},
		{"logfilter start overflow", "GET", logfilter("start=-9223372036854775807"), "", 400, "E0302", "minutes from now"},
		{"logfilter limit overflow", "GET", logfilter("limit=9223372036854775807"), "", 400, "E0302", ""},
		{"logfilter in range", "GET", logfilter("recent=876000;limit=2147483647;start=-60"), "", 200, "", ""},
		{"coordinator log scope overflow", "GET", "/oozie/v2/job/0000001-260101000000000-oozie-test-C?show=log&type=action&scope=1-9223372036854775807", "", 400, "E0302", "more than 50 actions"},
		{"deep configuration body", "POST", "/oozie/v2/jobs?user.name=joe", deep, 400, "E0303", "nested more than 64 deep"},
		{"expansion bomb", "POST", "/oozie/v2/jobs?user.name=joe", confXML("oozie.wf.application.path", e.app("bomb"),
			"big", big, "bomb", strings.Repeat("${big}", 1000)), 400, "E1004", "[bomb]"},
		{"app path /dev/zero", "POST", "/oozie/v2/jobs?user.name=joe", confXML("oozie.wf.application.path", "/dev/zero"), 400, "E0710", "/dev/zero"},
		{"app path FIFO", "POST", "/oozie/v2/jobs?user.name=joe", confXML("oozie.wf.application.path", fifo), 400, "E0710", "named pipe"},
		{"validate deep coordinator", "POST", "/oozie/v2/validate?file=c.xml&user=joe&user.name=joe",
			`<coordinator-app xmlns="uri:oozie:coordinator:0.4">` + strings.Repeat("<a>", 1_000_000) + strings.Repeat("</a>", 1_000_000) + `</coordinator-app>`,
			400, "E0736", "exceeded the maximum allowed length [100000]"},
		{"dryrun app path FIFO", "POST", "/oozie/v2/jobs?action=dryrun&user.name=joe", confXML("oozie.wf.application.path", fifo), 400, "E0710", "named pipe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/xml"
			}
			start := time.Now()
			r := e.do(tc.method, tc.path, ct, tc.body)
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %s, want %d %s", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			if msg := r.header.Get("oozie-error-message"); !strings.Contains(msg, tc.mentions) {
				t.Errorf("message %q does not mention %q", msg, tc.mentions)
			}
			if d := time.Since(start); d > 5*time.Second { // safety bound; all are immediate
				t.Errorf("took %v", d)
			}
		})
	}
	if r := e.do("GET", "/oozie/v2/jobs?len=100", "", ""); r.status != http.StatusOK || r.json(t)["total"].(float64) != 1 {
		t.Errorf("jobs after refused submissions: %s", r.body)
	}
}
