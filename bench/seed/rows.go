package main

// The rows the seeder writes, column for column as the store's own SQL
// writes them (internal/store/sqlstore): ids in the engines' format, times
// as Unix milliseconds, the log lines the workflow engine writes, and for a
// running coordinator the tick effect and engine state it would have.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/store"
)

// plan sizes a seeded store.
type plan struct {
	// Jobs is the number of finished workflow jobs; the first
	// Coords*CoordActions of them are the runs of the coordinator
	// actions, the rest were submitted on their own.
	Jobs int
	// Coords coordinators with CoordActions materialized actions each;
	// the first Running of them are RUNNING (daily, next action
	// tomorrow), the others SUCCEEDED.
	Coords, CoordActions, Running int
	// Now is the seeding time: every job ended before it.
	Now time.Time
}

// seedStamp is the server-start segment of seeded ids: no real server
// started at that time, so seeded ids never collide with a server's.
const seedStamp = "000101000000000"

// actionsPerJob is the node records of every seeded workflow: start,
// eight fs steps, end or kill.
const actionsPerJob = 10

const fsSteps = actionsPerJob - 2

// wfDefinition is the workflow every seeded job ran: eight fs steps, so
// that show=graph and show=definition answer as for a real job.
var wfDefinition = func() string {
	s := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="seed-app">` + "\n  <start to=\"s1\"/>\n"
	for k := 1; k <= fsSteps; k++ {
		next := "end"
		if k < fsSteps {
			next = "s" + strconv.Itoa(k+1)
		}
		s += fmt.Sprintf("  <action name=\"s%d\"><fs><mkdir path=\"file:///tmp/seed/${wf:id()}/%d\"/></fs><ok to=\"%s\"/><error to=\"fail\"/></action>\n", k, k, next)
	}
	return s + "  <kill name=\"fail\"><message>step failed</message></kill>\n  <end name=\"end\"/>\n</workflow-app>\n"
}()

// coordDefinition is the coordinator every seeded coordinator runs:
// daily, no datasets, the seeded workflow.
const coordDefinition = `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="%s" frequency="${coord:days(1)}" start="%s" end="%s" timezone="UTC">
  <action><workflow><app-path>file:///bench/seed/apps/app-%d</app-path></workflow></action>
</coordinator-app>
`

func wfID(seq int) string    { return fmt.Sprintf("%07d-%s-oozie-seed-W", seq, seedStamp) }
func coordID(seq int) string { return fmt.Sprintf("%07d-%s-oozie-seed-C", seq, seedStamp) }

func user(i int) string { return "user" + strconv.Itoa(i%8) }

func confXML(user, appKey, appPath string) string {
	return "<configuration><property><name>user.name</name><value>" + user + "</value></property>" +
		"<property><name>" + appKey + "</name><value>" + appPath + "</value></property>" +
		"<property><name>queueName</name><value>default</value></property></configuration>"
}

func msOf(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// day is the seeded coordinators' frequency.
const day = 24 * time.Hour

// coordStart is the nominal time of every coordinator's first action:
// the last one (CoordActions) is due at midnight today, the next tomorrow.
func (p plan) coordStart() time.Time {
	return p.Now.UTC().Truncate(day).Add(-time.Duration(p.CoordActions-1) * day)
}

func (p plan) nominal(n int) time.Time { return p.coordStart().Add(time.Duration(n-1) * day) }

// children is how many workflow jobs are coordinator runs.
func (p plan) children() int { return min(p.Jobs, p.Coords*p.CoordActions) }

// jobFailed: one job in ten was killed at its last step.
func jobFailed(i int) bool { return i%10 == 9 }

// jobOf returns the parent (a coordinator action or ""), user, application
// name and creation time of workflow job i (0-based). A coordinator's
// runs are its user's and of one of 50 applications, created a minute
// after their nominal time; the other jobs were submitted one a second
// until now, by 8 users, of the 50 applications in turn.
func (p plan) jobOf(i int) (parent, usr, app string, created time.Time) {
	if i < p.children() {
		c, n := i/p.CoordActions, i%p.CoordActions+1
		parent = coordID(p.Jobs+c+1) + "@" + strconv.Itoa(n)
		usr, app = user(c), "seed-app-"+strconv.Itoa(c%50)
		created = p.nominal(n).Add(time.Minute + time.Duration(c)*100*time.Millisecond)
		return parent, usr, app, created
	}
	k := i - p.children()
	usr, app = user(k), "seed-app-"+strconv.Itoa(k%50)
	created = p.Now.Add(-time.Duration(p.Jobs-i) * time.Second).Truncate(time.Millisecond)
	return "", usr, app, created
}

// jobRows appends the row of workflow job i (0-based), its node records
// and its log lines.
func (p plan) jobRows(i int, jobs, acts, logs *[][]any) {
	id := wfID(i + 1)
	parent, usr, app, created := p.jobOf(i)
	appPath := "file:///bench/seed/apps/" + app
	status, last, lastType, errCode, errMsg := store.JobSucceeded, "end", ":END:", "", ""
	if jobFailed(i) {
		status, last, lastType, errCode, errMsg = store.JobKilled, "fail", ":KILL:", "E0729", "step failed"
	}
	end := created.Add(actionsPerJob * time.Second)
	*jobs = append(*jobs, []any{id, app, appPath, usr, "users", "", parent, "", status, 0,
		confXML(usr, "oozie.wf.application.path", appPath), wfDefinition, "", errCode, errMsg,
		created.UnixMilli(), created.UnixMilli(), end.UnixMilli(), end.UnixMilli(), ""})
	info := func(t time.Time, action, level, msg string) {
		*logs = append(*logs, []any{id, action, t.UnixMilli(), level, msg})
	}
	info(created, "", "INFO", fmt.Sprintf("Workflow job submitted, app [%s], app path [%s], user [%s]", app, appPath, usr))
	info(created, "", "INFO", "Workflow job status changed from [PREP] to [RUNNING]")
	for k := 0; k < actionsPerJob; k++ {
		name, typ, next, st := "s"+strconv.Itoa(k), "fs", "s"+strconv.Itoa(k+1), store.ActionOK
		extStatus, aCode, aMsg, level := "OK", "", "", "INFO"
		switch k {
		case 0:
			name, typ, next = ":start:", ":START:", "s1"
		case actionsPerJob - 2:
			next = "end"
			if jobFailed(i) {
				next, st, extStatus, aCode, aMsg, level = "fail", store.ActionError, "ERROR", "FS009", "file exists", "ERROR"
			}
		case actionsPerJob - 1:
			name, typ, next = last, lastType, ""
		}
		t := created.Add(time.Duration(k) * time.Second)
		aid := id + "@" + name
		*acts = append(*acts, []any{aid, id, name, typ, k + 1, st, "", "", 0, 0, 0, 0, 0, next, "", "", "", "", extStatus,
			"", "", aCode, aMsg, t.UnixMilli(), t.Add(500 * time.Millisecond).UnixMilli(), t.Add(500 * time.Millisecond).UnixMilli()})
		msg := fmt.Sprintf("Action [%s] status [%s]", name, st)
		if aCode != "" {
			msg += fmt.Sprintf(", error code [%s], message [%s]", aCode, aMsg)
		}
		info(t.Add(500*time.Millisecond), aid, level, msg)
	}
	msg, level := "Workflow job status changed from [RUNNING] to ["+status+"]", "INFO"
	if errCode != "" {
		msg, level = msg+fmt.Sprintf(", error code [%s], message [%s]", errCode, errMsg), "WARN"
	}
	info(end, "", level, msg)
}

// coordRows appends the row of coordinator c (0-based), its actions, and
// for a running one its pending tick effect (id tickID).
func (p plan) coordRows(c int, tickID int64, coords, cacts, effects *[][]any) {
	id := coordID(p.Jobs + c + 1)
	usr, name := user(c), "seed-coord-"+strconv.Itoa(c)
	appPath := "file:///bench/seed/coords/" + name
	start, endT := p.coordStart(), p.coordStart().AddDate(10, 0, 0)
	created := start.Add(-time.Hour)
	last := p.nominal(p.CoordActions)
	next := last.Add(day)
	status, done, state, mod := store.CoordRunning, 0, "", p.Now.Add(-time.Hour)
	if c >= p.Running {
		status, done, endT, next = store.CoordSucceeded, 1, next, time.Time{}
	} else {
		state = fmt.Sprintf(`{"tickId":%d,"tickAt":"%s"}`, tickID, next.UTC().Format(time.RFC3339))
		*effects = append(*effects, []any{tickID, id, "", "coord-tick", 0, "", next.UnixMilli(), mod.UnixMilli()})
	}
	def := fmt.Sprintf(coordDefinition, name, start.Format("2006-01-02T15:04Z"), endT.Format("2006-01-02T15:04Z"), c%50)
	*coords = append(*coords, []any{id, name, appPath, usr, "users", "", "", "", status,
		confXML(usr, "oozie.coord.application.path", appPath), def, "1", "DAY", "UTC",
		coord.DefaultConcurrency, coord.DefaultThrottle, coord.DefaultTimeout, string(coord.FIFO), "",
		start.UnixMilli(), endT.UnixMilli(), nil, p.CoordActions, last.UnixMilli(), msOf(next), done,
		"", "", state, created.UnixMilli(), mod.UnixMilli(), nil, ""})
	for n := 1; n <= p.CoordActions; n++ {
		nom := p.nominal(n)
		i := c*p.CoordActions + n - 1
		ext, st, extSt := "", store.CoordActionSucceeded, "SUCCEEDED"
		if i < p.children() {
			ext = wfID(i + 1)
			if jobFailed(i) {
				st, extSt = store.CoordActionKilled, "KILLED"
			}
		}
		endMS := nom.Add(time.Minute + actionsPerJob*time.Second).UnixMilli()
		*cacts = append(*cacts, []any{id + "@" + strconv.Itoa(n), id, n, st, nom.UnixMilli(), nom.UnixMilli(), endMS,
			ext, extSt, "", "", "", "", "", "", "", "", ""})
	}
}

// The columns of the rows above, in order.
var (
	jobCols = []string{"id", "app_name", "app_path", "user_name", "group_name", "acl", "parent_id", "external_id",
		"status", "run", "conf", "definition", "state", "error_code", "error_message", "created_ms", "start_ms",
		"end_ms", "last_mod_ms", "owner"}
	actionCols = []string{"id", "job_id", "name", "type", "seq", "status", "conf", "cred", "retries",
		"user_retry_count", "user_retry_max", "user_retry_interval", "attempt", "transition", "data", "stats",
		"external_child_ids", "external_id", "external_status", "tracker_uri", "console_url", "error_code",
		"error_message", "start_ms", "end_ms", "last_mod_ms"}
	logCols   = []string{"job_id", "action_id", "time_ms", "level", "message"}
	coordCols = []string{"id", "app_name", "app_path", "user_name", "group_name", "acl", "external_id", "parent_id",
		"status", "conf", "definition", "frequency", "time_unit", "time_zone", "concurrency", "throttle", "timeout",
		"execution", "console_url", "start_ms", "end_ms", "pause_ms", "last_action_number", "last_action_ms",
		"next_mat_ms", "done_materialization", "error_code", "error_message", "state", "created_ms", "last_mod_ms",
		"suspended_ms", "owner"}
	coordActionCols = []string{"id", "job_id", "number", "status", "nominal_ms", "created_ms", "last_mod_ms",
		"external_id", "external_status", "missing_dependencies", "created_conf", "run_conf", "action_xml", "plan",
		"error_code", "error_message", "tracker_uri", "console_url"}
	effectCols = []string{"id", "job_id", "action_id", "kind", "attempt", "payload", "not_before_ms", "created_ms"}
)
