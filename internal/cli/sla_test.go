package cli

import (
	"bytes"
	"testing"
)

// slaCases are `gozie sla` and the SLA commands of `gozie job` against the
// fake server: the request each sends (cli.md 2: action-list, date,
// coordinators, value; rest-api.md 7.7: filter, len, offset, sortby,
// order) and what each prints.
var slaCases = []remoteCase{
	{name: "sla-list", args: []string{"sla", "-filter", "app_name=sla-%"},
		routes: map[string]reply{"GET /oozie/v2/sla?filter=app_name%3Dsla-%25": {file: "sla.json"}}},
	{name: "sla-list-verbose-tz", args: []string{"sla", "-filter", "parent_id=" + coordID + ";sla_status=MISS", "-verbose", "-timezone", "America/Los_Angeles",
		"-len", "5", "-offset", "2", "-sortby", "slaStatus", "-order", "desc"},
		routes: map[string]reply{"GET /oozie/v2/sla?filter=parent_id%3D" + coordID + "%3Bsla_status%3DMISS&len=5&offset=2&order=desc&sortby=slaStatus": {file: "sla.json"}}},
	{name: "sla-list-json", args: []string{"sla", "-filter", "id=x", "-json"},
		routes: map[string]reply{"GET /oozie/v2/sla?filter=id%3Dx": {body: `{"slaSummaryList":[]}`}}},
	{name: "sla-list-empty", args: []string{"sla", "-filter", "id=x"},
		routes: map[string]reply{"GET /oozie/v2/sla?filter=id%3Dx": {body: `{"slaSummaryList":[]}`}}},
	{name: "sla-no-filter", args: []string{"sla"}, code: 255,
		stderr: "Invalid sub-command: -filter is required, e.g. -filter app_name=my-app or -filter parent_id=<coordinator id>\n\nuse 'help [sub-command]' for help details\n"},
	{name: "sla-bad-filter", args: []string{"sla", "-filter", "color=red"}, code: 255,
		stderr: "Error: E0401 : E0401: Missing configuration property [invalid/unsupported names in filter: color]\n",
		routes: map[string]reply{"GET /oozie/v2/sla?filter=color%3Dred": {status: 400,
			header: map[string]string{"oozie-error-code": "E0401", "oozie-error-message": "E0401: Missing configuration property [invalid/unsupported names in filter: color]"}}}},
	{name: "job-slaenable", args: []string{"job", "-slaenable", wfID},
		routes: map[string]reply{"PUT /oozie/v2/job/" + wfID + "?action=sla-enable": {}}},
	{name: "job-sladisable-coord", args: []string{"job", "-sladisable", coordID, "-action", "1,3-4", "-date", "2026-01-01T00:00Z::2026-01-02T00:00Z"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=sla-disable&action-list=1%2C3-4&date=2026-01-01T00%3A00Z%3A%3A2026-01-02T00%3A00Z": {}}},
	{name: "job-slaenable-bundle", args: []string{"job", "-slaenable", bundle, "-coordinator", "c1,c2"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + bundle + "?action=sla-enable&coordinators=c1%2Cc2": {}}},
	{name: "job-slachange", args: []string{"job", "-slachange", coordID, "-action", "2", "-value", "sla-should-end=30;sla-max-duration=20"},
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=sla-change&action-list=2&value=sla-should-end%3D30%3Bsla-max-duration%3D20": {}}},
	{name: "job-slachange-refused", args: []string{"job", "-slachange", coordID, "-value", "should-end=30"}, code: 255,
		stderr: "Error: E1027 : E1027: SLA change command failed. Invalid key [should-end]\n",
		routes: map[string]reply{"PUT /oozie/v2/job/" + coordID + "?action=sla-change&value=should-end%3D30": {status: 400,
			header: map[string]string{"oozie-error-code": "E1027", "oozie-error-message": "E1027: SLA change command failed. Invalid key [should-end]"}}}},
}

func TestSLAGolden(t *testing.T) {
	pinEnv(t)
	for _, tc := range slaCases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := newFakeOozie(t, tc.routes)
			var stdout, stderr bytes.Buffer
			code := Main(append(cloneArgs(tc.args), "-oozie", url), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr:\n%q\nwant:\n%q", stderr.String(), tc.stderr)
			}
			f.checkAllHit()
			golden(t, tc.name, stdout.Bytes())
		})
	}
}
