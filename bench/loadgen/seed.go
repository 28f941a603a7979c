package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// seedDefinition is the workflow every seeded job claims to have run; the
// server parses it for show=graph and show=definition.
const seedDefinition = `<workflow-app xmlns="uri:oozie:workflow:0.5" name="bench-seed">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="file:///tmp/bench/${wf:id()}"/></fs><ok to="rm"/><error to="fail"/></action>
  <action name="rm"><fs><delete path="file:///tmp/bench/${wf:id()}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
`

// seedStamp is the server-start segment of seeded job ids. It differs from
// any real server's, so seeded ids never collide with the ids the server
// gives submissions, even though both draw from the same counter.
const seedStamp = "000101000000000"

// seed writes n finished workflow jobs, four action records each, straight
// into the SQLite store of dataDir, in transactions of batch jobs. It
// returns the job ids. The jobs are terminal so that the engine, once
// started on this store, has nothing to resume: the benchmark measures the
// API, not recovery.
func seed(ctx context.Context, dataDir string, n, batch int, now time.Time) ([]string, error) {
	st, err := sqlite.Open(ctx, filepath.Join(dataDir, "gozie.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ids := make([]string, 0, n)
	for len(ids) < n {
		err := st.Update(ctx, func(tx store.Tx) error {
			for i := 0; i < batch && len(ids) < n; i++ {
				seq, err := tx.NextSequence(ctx, store.JobSequence)
				if err != nil {
					return err
				}
				j, acts := seedJob(seq, len(ids), now)
				if err := tx.PutJob(ctx, j); err != nil {
					return err
				}
				for _, a := range acts {
					if err := tx.PutAction(ctx, a); err != nil {
						return err
					}
				}
				ids = append(ids, j.ID)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// seedJob builds the i-th job: one in ten failed at its second step, the
// others succeeded; creation times go back one minute per job, so that
// the list endpoint's newest-first order is the reverse of seeding order.
func seedJob(seq int64, i int, now time.Time) (*store.Job, []*store.Action) {
	id := fmt.Sprintf("%07d-%s-oozie-bench-W", seq, seedStamp)
	created := now.Add(-time.Duration(i+1) * time.Minute).Truncate(time.Millisecond)
	end := created.Add(3 * time.Second)
	failed := i%10 == 9
	status, last, lastType, rmStatus := store.JobSucceeded, "end", ":END:", store.ActionOK
	if failed {
		status, last, lastType, rmStatus = store.JobFailed, "fail", ":KILL:", store.ActionError
	}
	user := fmt.Sprintf("user%d", i%8)
	j := &store.Job{
		ID: id, AppName: fmt.Sprintf("bench-app-%d", i%50), AppPath: fmt.Sprintf("file:///bench/apps/app-%d", i%50),
		User: user, Group: "users", Status: status,
		Conf: "<configuration><property><name>user.name</name><value>" + user + "</value></property>" +
			"<property><name>oozie.wf.application.path</name><value>file:///bench/apps/app</value></property></configuration>",
		Definition:  seedDefinition,
		CreatedTime: created, StartTime: created, EndTime: end, LastModTime: end,
	}
	if failed {
		j.ErrorCode, j.ErrorMessage = "FS009", "file exists"
	}
	steps := []struct {
		name, typ, status, transition string
	}{
		{":start:", ":START:", store.ActionOK, "mk"},
		{"mk", "fs", store.ActionOK, "rm"},
		{"rm", "fs", rmStatus, last},
		{last, lastType, store.ActionOK, ""},
	}
	acts := make([]*store.Action, len(steps))
	for k, s := range steps {
		t := created.Add(time.Duration(k) * time.Second)
		acts[k] = &store.Action{
			ID: id + "@" + s.name, JobID: id, Name: s.name, Type: s.typ, Status: s.status,
			Transition: s.transition, ExternalStatus: "OK",
			StartTime: t, EndTime: t.Add(500 * time.Millisecond), LastModTime: t.Add(500 * time.Millisecond),
		}
		if s.status == store.ActionError {
			acts[k].ExternalStatus, acts[k].ErrorCode, acts[k].ErrorMessage = "ERROR", "FS009", "file exists"
		}
	}
	return j, acts
}
