package cli

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// The plan of `gozie migrate`: what each live job of the source server
// becomes on the destination. Everything here is a function of what the
// source's REST API answered; migrate_run.go talks to the servers.
//
// The rule that no period runs twice and none is skipped: each
// coordinator has a hand-over time H. The source keeps the actions it
// materialized before H (they finish there) and its end time is set to H,
// so that it materializes nothing from H on; the copy is submitted with
// gozie.coord.materialize.from=H, so that its first action is the first
// nominal time at or after H.

// Coordinator and bundle statuses migrate moves: every status in which
// the job still materializes, or will once resumed or unpaused.
var migrateStatuses = []string{
	"PREP", "RUNNING", "RUNNINGWITHERROR", "PREPSUSPENDED", "SUSPENDED", "SUSPENDEDWITHERROR",
	"PREPPAUSED", "PAUSED", "PAUSEDWITHERROR",
}

// migratable reports whether a coordinator or bundle in status is moved.
func migratable(status string) bool { return slices.Contains(migrateStatuses, status) }

// suspendedStatus reports the statuses a copy arrives suspended in.
func suspendedStatus(status string) bool {
	return status == "SUSPENDED" || status == "SUSPENDEDWITHERROR" || status == "PREPSUSPENDED"
}

// endedCoord reports the statuses of a coordinator that materializes no
// more and runs nothing.
func endedCoord(status string) bool {
	return slices.Contains([]string{"SUCCEEDED", "DONEWITHERROR", "KILLED", "FAILED", "IGNORED"}, status)
}

// notStarted reports the action statuses of a source coordinator whose
// workflow has not been launched: an end time before them deletes them
// (Oozie's and gozie's change command), so that the copy runs their
// periods instead.
func notStarted(status string) bool { return status == "WAITING" || status == "READY" }

// handOver is where a coordinator of the source hands over to its copy.
type handOver struct {
	// From is the hand-over time H: the copy materializes from the first
	// nominal time at or after it.
	From time.Time
	// Cap is set when the source's end time is to be set to From, which
	// stops its materialization there (and deletes its not-started
	// actions at or after From).
	Cap bool
	// Done is set when the source has nothing left to materialize: no
	// copy is needed (a bundle's coordinator is copied with From at its
	// end, so that the copy materializes nothing).
	Done bool
	// Taken counts the source's not-started actions the copy takes over
	// (suspendSource only).
	Taken int
}

// planHandOver decides a coordinator's hand-over from its info (actions
// newest first, as CoordInfo with Order "desc" returns them). H is the
// source's next materialization time: what the source materialized stays
// its own. With suspendSource the source will run nothing more, so the
// newest actions it has not started yet (WAITING or READY, up to the
// first one that did start) are given to the copy: H moves back to the
// first of them, and capping the source at H deletes them there.
func planHandOver(j *client.CoordJob, suspendSource bool) handOver {
	if endedCoord(j.Status) {
		return handOver{From: j.EndTime.Time, Done: true}
	}
	from := j.NextMaterializedTime.Time
	if from.IsZero() || from.Before(j.StartTime.Time) {
		from = j.StartTime.Time
	}
	h := handOver{From: from}
	if suspendSource {
		for _, a := range newestFirst(j.Actions) {
			if !notStarted(a.Status) || !a.NominalTime.Before(h.From) {
				break
			}
			h.From = a.NominalTime.Time
			h.Taken++
		}
	}
	if !j.EndTime.IsZero() && !h.From.Before(j.EndTime.Time) {
		h.Done = true
		return h
	}
	h.Cap = true
	return h
}

// newestFirst orders a coordinator's actions by nominal time, newest
// first, whatever order the server gave them in.
func newestFirst(acts []*client.CoordAction) []*client.CoordAction {
	acts = slices.Clone(acts)
	sort.SliceStable(acts, func(a, b int) bool { return acts[a].NominalTime.After(acts[b].NominalTime.Time) })
	return acts
}

// migrateProps is the configuration a copy is submitted with: the
// source's job configuration plus gozie.migrated.from naming the source
// job. A configuration whose secrets the source masked cannot be copied.
func migrateProps(confXML, srcID string) (*conf.Config, error) {
	if strings.TrimSpace(confXML) == "" {
		return nil, fmt.Errorf("the source gave no job configuration for [%s]", srcID)
	}
	cf, err := conf.ParseXML(strings.NewReader(confXML), "job "+srcID)
	if err != nil {
		return nil, fmt.Errorf("the job configuration of [%s]: %v", srcID, err)
	}
	for _, p := range cf.Properties() {
		if p.Value == redact.Mask {
			return nil, fmt.Errorf("the source masked property [%s] of [%s]: run migrate as the job's owner or an administrator of the source", p.Name, srcID)
		}
	}
	// A source that is itself a copy carries the controls of its own
	// migration: they describe that submission, not this one.
	var stale []string
	for _, p := range cf.Properties() {
		if p.Name == vocab.PropCoordMaterializeFrom || strings.HasPrefix(p.Name, vocab.PropCoordMaterializeFromPrefix) ||
			p.Name == vocab.PropCoordPauseTime || p.Name == vocab.PropCoordSubmitSuspended {
			stale = append(stale, p.Name)
		}
	}
	for _, name := range stale {
		cf.Delete(name)
	}
	cf.Set(vocab.PropMigratedFrom, srcID)
	return cf, nil
}

// coordCopyProps is what a standalone coordinator's copy is submitted
// with: its configuration, its first materialization, its pause time and
// whether it arrives suspended.
func coordCopyProps(j *client.CoordJob, h handOver) (*conf.Config, error) {
	cf, err := migrateProps(string(j.Conf), j.CoordJobID)
	if err != nil {
		return nil, err
	}
	if h.From.After(j.StartTime.Time) {
		cf.Set(vocab.PropCoordMaterializeFrom, schedule.FormatTime(h.From))
	}
	if !j.PauseTime.IsZero() {
		cf.Set(vocab.PropCoordPauseTime, schedule.FormatTime(j.PauseTime.Time))
	}
	if suspendedStatus(j.Status) {
		cf.Set(vocab.PropCoordSubmitSuspended, "true")
	}
	return cf, nil
}

// bundleCoord is one coordinator of a source bundle with its hand-over.
type bundleCoord struct {
	Job *client.CoordJob
	handOver
}

// bundleCopyProps is what a bundle's copy is submitted with: its
// configuration with, per coordinator name, the coordinator's first
// materialization (bundle.CoordProps hands it to that coordinator), and
// the bundle's pause time for each coordinator from its submission. A
// bundle whose kick-off time is past starts at once; its coordinators
// then continue where the source's stand instead of materializing the
// periods since their start again.
func bundleCopyProps(b *client.BundleJob, coords []bundleCoord) (*conf.Config, error) {
	cf, err := migrateProps(string(b.Conf), b.BundleJobID)
	if err != nil {
		return nil, err
	}
	for _, c := range coords {
		name := string(c.Job.CoordJobName)
		if name == "" {
			return nil, fmt.Errorf("coordinator [%s] of bundle [%s] has no name to match", c.Job.CoordJobID, b.BundleJobID)
		}
		if c.From.After(c.Job.StartTime.Time) {
			cf.Set(vocab.PropCoordMaterializeFromPrefix+name, schedule.FormatTime(c.From))
		}
	}
	if !b.PauseTime.IsZero() {
		cf.Set(vocab.PropCoordPauseTime, schedule.FormatTime(b.PauseTime.Time))
	}
	return cf, nil
}

// migratedFrom is the source job a destination job copies ("" for none),
// read from its configuration.
func migratedFrom(confXML string) string {
	if !strings.Contains(confXML, vocab.PropMigratedFrom) {
		return ""
	}
	cf, err := conf.ParseXML(strings.NewReader(confXML), "copy")
	if err != nil {
		return ""
	}
	for _, p := range cf.Properties() {
		if p.Name == vocab.PropMigratedFrom {
			return strings.TrimSpace(p.Value)
		}
	}
	return ""
}

// sourceFilter is the jobs-list filter migrate reads the source with: the
// user's -filter, with the statuses migrate moves unless it names some.
func sourceFilter(user string, statuses []string) string {
	var parts []string
	hasStatus := false
	for _, p := range strings.Split(user, ";") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		k, _, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "status") {
			hasStatus = true
		}
		parts = append(parts, p)
	}
	if !hasStatus {
		for _, s := range statuses {
			parts = append(parts, "status="+s)
		}
	}
	return strings.Join(parts, ";")
}

// minute formats a time as the plan prints it (UTC, minutes), "-" for none.
func minute(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return schedule.FormatTime(t)
}
