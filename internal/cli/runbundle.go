package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/bundleengine"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/store"
)

// exitRefused is runBundle's status for a bundle refused at submission:
// nothing ran (the caller reports it as exitFail).
const exitRefused = 3

// bundlePoll is how often `gozie run` looks at a running bundle.
const bundlePoll = 250 * time.Millisecond

// runBundle is `gozie run` of a bundle: it runs the bundle and its
// coordinators in-process until the bundle ends, the timeout passes or the
// user interrupts (both kill it), printing a line for each change of the
// bundle's or a coordinator's status, then the bundle's summary. The exit
// status is 0 only when the bundle SUCCEEDED.
func runBundle(ctx context.Context, stdout, stderr io.Writer, svc *jobs.Service, props *conf.Config, timeout time.Duration, asJSON bool) int {
	id, err := svc.Run(ctx, props)
	if err != nil {
		reportSubmitError(ctx, stderr, err)
		return exitRefused
	}
	fmt.Fprintf(stderr, "bundle %s submitted\n", id)
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	seen := map[string]string{}
	tick := time.NewTicker(bundlePoll)
	defer tick.Stop()
	for {
		j, done := bundleProgress(stderr, svc, id, seen)
		if done || j == nil {
			break
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(stderr, "interrupted: killing bundle %s\n", id)
			killBundle(stderr, svc, id)
		case <-deadline:
			fmt.Fprintf(stderr, "timed out after %s: killing bundle %s\n", timeout, id)
			killBundle(stderr, svc, id)
			deadline = nil
		case <-tick.C:
		}
	}
	return reportBundle(stdout, stderr, svc, id, asJSON)
}

// killBundle kills the bundle and waits (boundedly) for its coordinators to
// take the kill, so that the summary shows them ended.
func killBundle(stderr io.Writer, svc *jobs.Service, id string) {
	if err := svc.Kill(context.Background(), id); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
	}
	for range 40 {
		acts, err := svc.BundleActions(context.Background(), id)
		if err != nil || !anyPending(acts) {
			return
		}
		time.Sleep(bundlePoll)
	}
}

func anyPending(acts []*store.BundleAction) bool {
	for _, a := range acts {
		if a.Pending > 0 {
			return true
		}
	}
	return false
}

// bundleProgress prints what changed since the last look: the bundle's
// status and each coordinator's, with its count of actions by status. It
// reports whether the bundle has ended.
func bundleProgress(stderr io.Writer, svc *jobs.Service, id string, seen map[string]string) (*store.BundleJob, bool) {
	ctx := context.Background()
	j, err := svc.BundleJob(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return nil, true
	}
	if seen[id] != j.Status {
		seen[id] = j.Status
		fmt.Fprintf(stderr, "%s bundle %s %s\n", time.Now().Format("15:04:05"), j.AppName, j.Status)
	}
	coords, _, err := svc.CoordJobList(ctx, store.JobFilter{ParentID: id})
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return j, bundleengine.Terminal(j.Status)
	}
	for _, c := range coords {
		counts, err := svc.CoordActionCounts(ctx, c.CoordJobID)
		if err != nil {
			continue
		}
		line := fmt.Sprintf("%s %s", c.Status, formatCounts(counts))
		if seen[c.CoordJobID] != line {
			seen[c.CoordJobID] = line
			fmt.Fprintf(stderr, "%s   coordinator %s (%s) %s\n", time.Now().Format("15:04:05"), c.CoordJobName, c.CoordJobID, line)
		}
	}
	return j, bundleengine.Terminal(j.Status)
}

// reportBundle prints the bundle's summary (or its REST JSON) and returns
// the exit status.
func reportBundle(stdout, stderr io.Writer, svc *jobs.Service, id string, asJSON bool) int {
	info, err := svc.BundleJobInfo(context.Background(), id)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitFail
		}
	} else {
		fmt.Fprintf(stdout, "Job ID : %s\nBundle Name : %s\nApp Path : %s\nStatus : %s\n", info.BundleJobID,
			info.BundleJobName, info.BundleJobPath, info.Status)
		fmt.Fprintln(stdout, strings.Repeat("-", 60))
		for _, c := range info.BundleCoordJobs {
			counts, _ := svc.CoordActionCounts(context.Background(), c.CoordJobID)
			fmt.Fprintf(stdout, "%-20s %-40s %-18s %s\n", c.CoordJobName, c.CoordJobID, c.Status, formatCounts(counts))
		}
	}
	if info.Status != store.BundleSucceeded {
		return exitFail
	}
	return exitOK
}

// formatCounts is "actions: RUNNING=1 SUCCEEDED=2", statuses sorted.
func formatCounts(counts map[string]int) string {
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return "actions: " + strings.Join(parts, " ")
}
