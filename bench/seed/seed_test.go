package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store/postgres"
)

// TestSeededStore is the reduced form of the scale benchmark that CI runs:
// a store seeded with 2,000 jobs and 5 coordinators of 100 actions, on
// each store, served by a server that must answer every list and info
// exactly as the seeding planned (every job's status, actions and parent,
// the coordinators' actions, a log), and on SQLite the plans of the
// request-path queries, none of which may scan a table.
func TestSeededStore(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			o := options{plan: plan{Jobs: 2000, Coords: 5, CoordActions: 100, Running: 3}, batch: 300}
			var so gozietest.Options
			if kind == "sqlite" {
				o.data = t.TempDir()
				so.DataDir = o.data
			} else {
				dsn := postgres.TestDSN(t)
				u, err := url.Parse(dsn)
				if err != nil {
					t.Fatal(err)
				}
				o.dsn, o.schema, so.DB = dsn, u.Query().Get("search_path"), dsn
			}
			r, err := seed(ctx, o, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if r.Actions != 2000*actionsPerJob || r.Logs != 2000*(actionsPerJob+3) || r.CoordActions != 500 {
				t.Fatalf("seeded %+v", r)
			}
			if kind == "sqlite" {
				checkPlans(t, o)
			}
			srv := gozietest.NewServer(t, so)
			checkLists(t, srv.URL, o.plan)
			checkJobs(t, srv.URL, o.plan)
			checkCoords(t, srv.URL, o.plan)
		})
	}
}

func get(t *testing.T, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v in %.300s", u, err, body)
		}
	}
}

// checkLists: the totals of every filter, the newest job first.
func checkLists(t *testing.T, base string, p plan) {
	killed := p.Jobs / 10
	users, names := map[string]int{}, map[string]int{}
	for i := 0; i < p.Jobs; i++ {
		_, u, a, _ := p.jobOf(i)
		users[u]++
		names[a]++
	}
	for _, c := range []struct {
		query string
		total int
		first string
	}{
		{"len=50", p.Jobs, wfID(p.Jobs)},
		{"len=50&filter=status%3DKILLED", killed, wfID(p.Jobs)},
		{"len=50&filter=status%3DSUCCEEDED", p.Jobs - killed, wfID(p.Jobs - 1)},
		{"len=50&filter=status%3DRUNNING", 0, ""},
		{"len=50&filter=status%3DFAILED%3Bstatus%3DKILLED", killed, wfID(p.Jobs)},
		{"len=50&filter=status%3DSUCCEEDED%3Bstatus%3DKILLED", p.Jobs, wfID(p.Jobs)},
		{"len=50&filter=user%3Duser3%3Buser%3Duser4", users["user3"] + users["user4"], ""},
		{"len=50&filter=user%3Dnobody", 0, ""},
		{"len=50&filter=user%3Duser3", users["user3"], ""},
		{"len=50&filter=name%3Dseed-app-7", names["seed-app-7"], ""},
		{"len=10&offset=1991", p.Jobs, ""},
		{"jobtype=coord&len=50", p.Coords, ""},
		{"jobtype=coord&filter=status%3DRUNNING", p.Running, ""},
	} {
		var l rest.JobList
		get(t, base+"/v2/jobs?"+c.query, &l)
		if l.Total != c.total {
			t.Errorf("%s: total %d, want %d", c.query, l.Total, c.total)
		}
		if c.first != "" && (len(l.Workflows) == 0 || l.Workflows[0].ID != c.first) {
			t.Errorf("%s: first job is not %s: %+v", c.query, c.first, l.Workflows)
		}
	}
	resp, err := http.Get(base + "/console/?text=app-7")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "seed-app-7") {
		t.Errorf("console jobs page by text: %d %.300s", resp.StatusCode, body)
	}
}

// checkJobs reads every seeded job's info, and one log.
func checkJobs(t *testing.T, base string, p plan) {
	for i := 0; i < p.Jobs; i++ {
		var j rest.WorkflowJob
		get(t, base+"/v2/job/"+wfID(i+1)+"?show=info", &j)
		want := "SUCCEEDED"
		if jobFailed(i) {
			want = "KILLED"
		}
		parent, usr, app, _ := p.jobOf(i)
		if j.Status != want || len(j.Actions) != actionsPerJob || j.ParentID.String() != parent || j.User.String() != usr || j.AppName.String() != app {
			t.Fatalf("job %d: %s, %d actions, parent %q, user %q, app %q; want %s, %d, %q, %q, %q",
				i, j.Status, len(j.Actions), j.ParentID, j.User, j.AppName, want, actionsPerJob, parent, usr, app)
		}
	}
	resp, err := http.Get(base + "/v2/job/" + wfID(7) + "?show=log")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(body), "\n"); n != actionsPerJob+3 {
		t.Errorf("log of job 7: %d lines, want %d:\n%s", n, actionsPerJob+3, body)
	}
}

// checkCoords reads every coordinator's info with its actions.
func checkCoords(t *testing.T, base string, p plan) {
	for c := 0; c < p.Coords; c++ {
		var j rest.CoordJob
		get(t, base+"/v2/job/"+coordID(p.Jobs+c+1)+"?show=info&len=1000", &j)
		want := "RUNNING"
		if c >= p.Running {
			want = "SUCCEEDED"
		}
		if j.Status != want || j.Total != p.CoordActions || len(j.Actions) != p.CoordActions {
			t.Fatalf("coordinator %d: %s, total %d, %d actions; want %s, %d", c, j.Status, j.Total, len(j.Actions), want, p.CoordActions)
		}
		for _, a := range j.Actions {
			if a.ExternalID.String() == "" {
				t.Fatalf("coordinator %d: action %s ran no workflow", c, a.ID)
			}
			var w rest.WorkflowJob
			if a.ActionNumber == 1 {
				get(t, base+"/v2/job/"+a.ExternalID.String()+"?show=info", &w)
				if w.ParentID.String() != a.ID {
					t.Fatalf("workflow %s of action %s has parent %q", w.ID, a.ID, w.ParentID)
				}
			}
		}
	}
}

// checkPlans: no request-path query reads a whole table, and no page of a
// filtered list sorts its matches. The free-text filter of the console
// reads its candidates from its trigram index and sorts them; its form
// without the index (SQLite before migration 0014) scans.
func checkPlans(t *testing.T, o options) {
	var sb strings.Builder
	if err := explain(context.Background(), &sb, o); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(sb.String()), "\n") {
		if strings.Contains(line, "by text (scan)") {
			continue
		}
		for _, step := range strings.Split(line[40:], "; ") {
			// SCAN of a subquery (a page of a status) reads its rows.
			if f := strings.Fields(step); len(f) > 1 && f[0] == "SCAN" && slices.Contains(seededTables, f[1]) && !strings.Contains(step, "USING") {
				t.Errorf("plan scans a table: %s", line)
			}
			// Several statuses are several ranges of the status index,
			// merged by a sort (docs/benchmarks-plans.md).
			// So are the candidates of a free text, from its index.
			if strings.Contains(line, "purge scan") && strings.Contains(step, "TEMP B-TREE") {
				t.Errorf("purge scan sorts its candidates: %s", line)
			}
			if strings.Contains(line, ": page") && !strings.Contains(line, "two statuses") && !strings.Contains(line, "by text") &&
				strings.Contains(step, "TEMP B-TREE FOR ORDER BY") {
				t.Errorf("list page sorts every matching row: %s", line)
			}
		}
	}
}
