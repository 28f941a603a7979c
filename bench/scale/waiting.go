package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
)

// submitWaiting submits n daily coordinators whose first action waits for
// an input that never arrives, and returns once each has that action
// WAITING: the steady state then holds n input checks per input-check
// interval (gozie.coord.input.check.interval.s, 60 s by default), which
// is what -cpu measures (issue 31: materialization and input checks of
// 1,000 coordinators keep their period with < 5% of one core).
func submitWaiting(ctx context.Context, hc *http.Client, base, data string, n int) error {
	app := filepath.Join(data, "scale-waiting")
	if err := os.MkdirAll(filepath.Join(app, "wf"), 0o755); err != nil {
		return err
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="scale-waiting-wf"><start to="end"/><end name="end"/></workflow-app>`
	// The first action's nominal time is today's midnight (UTC): it is
	// materialized at once and waits for today's instance of the feed,
	// which no one writes.
	start := time.Now().UTC().Truncate(24 * time.Hour).Format("2006-01-02T15:04Z")
	coord := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="scale-waiting" frequency="${coord:days(1)}"
	start="` + start + `" end="2100-01-01T00:00Z" timezone="UTC">
  <controls><timeout>-1</timeout></controls>
  <datasets><dataset name="feed" frequency="${coord:days(1)}" initial-instance="2020-01-01T00:00Z" timezone="UTC">
    <uri-template>file://` + app + `/feed/${YEAR}${MONTH}${DAY}</uri-template></dataset></datasets>
  <input-events><data-in name="in" dataset="feed"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>file://` + app + `/wf</app-path></workflow></action>
</coordinator-app>`
	for name, body := range map[string]string{"wf/workflow.xml": wf, "coordinator.xml": coord} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	conf := "<configuration><property><name>oozie.coord.application.path</name><value>file://" + app +
		"</value></property></configuration>"
	ids := make([]string, n)
	err := benchserver.Fan(ctx, n, 8, func(i int) error {
		data, err := benchserver.Call(ctx, hc, http.MethodPost, base+"/v2/jobs?action=start&user.name=scale", benchserver.XML, conf, http.StatusCreated)
		if err != nil {
			return err
		}
		var out struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
			return fmt.Errorf("submit coordinator: no job id in %.200s", data)
		}
		ids[i] = out.ID
		return nil
	})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	return benchserver.Fan(ctx, n, 8, func(i int) error {
		for {
			data, err := benchserver.Call(ctx, hc, http.MethodGet, base+"/v2/job/"+ids[i]+"?show=info&len=1", "", "", http.StatusOK)
			if err != nil {
				return err
			}
			var info struct {
				Actions []struct {
					Status string `json:"status"`
				} `json:"actions"`
			}
			if err := json.Unmarshal(data, &info); err != nil {
				return fmt.Errorf("coordinator %s: %w", ids[i], err)
			}
			if len(info.Actions) > 0 && info.Actions[0].Status == "WAITING" {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("coordinator %s has no WAITING action after 5 minutes: %.300s", ids[i], data)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
