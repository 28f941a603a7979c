package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// A source job whose copy already exists (a second run, or a run after a
// failure) is finished rather than copied again: its end time is set to
// the copy's first materialization if an earlier run could not, and with
// -suspend-source it is suspended, unless it still has actions of its own
// that have not started, which a suspension would hold forever.

// finish is what is left to do to a source coordinator whose copy exists.
type finish struct {
	// Cap is set when the source's end time is after the copy's first
	// materialization: it is set to it.
	Cap bool
	// Suspend is set when the source is to be suspended now.
	Suspend bool
	// Own counts the source's newest actions before the copy's first
	// materialization that have not started: they are the source's to
	// run, so it is not suspended.
	Own int
}

// planFinish decides what is left for a source coordinator whose copy
// materializes from from.
func planFinish(j *client.CoordJob, from time.Time, suspend bool) finish {
	if endedCoord(j.Status) {
		return finish{}
	}
	f := finish{Cap: j.EndTime.IsZero() || j.EndTime.After(from)}
	if !suspend || suspendedStatus(j.Status) {
		return f
	}
	for _, a := range newestFirst(j.Actions) {
		if !a.NominalTime.Before(from) {
			continue // deleted by the end time, or refused with it
		}
		if !notStarted(a.Status) {
			break
		}
		f.Own++
	}
	f.Suspend = f.Own == 0
	return f
}

// copyFrom is where a copy materializes from: the property name of its
// configuration (gozie.coord.materialize.from, or a bundle's per
// coordinator), else its start.
func copyFrom(confXML, name string, start time.Time) time.Time {
	cf, err := conf.ParseXML(strings.NewReader(confXML), "copy")
	if err != nil {
		return start
	}
	for _, p := range cf.Properties() {
		if p.Name == name {
			if t, err := schedule.ParseTime(strings.TrimSpace(p.Value)); err == nil && t.After(start) {
				return t
			}
		}
	}
	return start
}

// coordMoved finishes a standalone coordinator whose copy exists.
func (m *migrator) coordMoved(j *client.CoordJob, copyID string) {
	id, name, status := j.CoordJobID, string(j.CoordJobName), j.Status
	m.moved++
	c, _, err := m.dst.CoordInfo(m.ctx, copyID, client.InfoOptions{Len: 1})
	if err != nil {
		m.moved--
		m.failJob("coordinator", id, name, status, fmt.Errorf("already migrated as %s; reading it: %w", copyID, err))
		return
	}
	from := copyFrom(string(c.Conf), vocab.PropCoordMaterializeFrom, c.StartTime.Time)
	f := planFinish(j, from, m.suspend)
	text := "already migrated as " + copyID
	if m.dryrun {
		m.line("coordinator", id, name, status, text+describeFinish(f, from))
		return
	}
	done, err := m.finishSource(id, f, from)
	if err != nil {
		m.moved--
		m.failJob("coordinator", id, name, status, fmt.Errorf("%s; then %w", text+done, err))
		return
	}
	m.line("coordinator", id, name, status, text+done)
}

// finishSource suspends, then caps, a source coordinator (or, with a zero
// from, suspends a bundle), as f says.
func (m *migrator) finishSource(id string, f finish, from time.Time) (string, error) {
	var text string
	if f.Suspend {
		if err := m.src.Suspend(m.ctx, id); err != nil {
			return text, fmt.Errorf("suspending the source: %w", err)
		}
		text += "; source suspended"
	}
	if f.Own > 0 {
		text += fmt.Sprintf("; source not suspended: %d of its actions before %s have not started yet (rerun once they have)", f.Own, minute(from))
	}
	if f.Cap && !from.IsZero() {
		if err := m.src.Change(m.ctx, id, "endtime="+schedule.FormatTime(from)); err != nil {
			return text, fmt.Errorf("setting the source's end time to %s: %w", minute(from), err)
		}
		text += "; source end time set to " + minute(from)
	}
	return text, nil
}

// describeFinish is the dry run's account of finishSource.
func describeFinish(f finish, from time.Time) string {
	var text string
	if f.Suspend {
		text += "; would suspend the source"
	}
	if f.Own > 0 {
		text += fmt.Sprintf("; would not suspend the source: %d of its actions before %s have not started yet", f.Own, minute(from))
	}
	if f.Cap {
		text += "; would set the source's end time to " + minute(from)
	}
	return text
}

// bundleMoved finishes a bundle whose copy exists: each source
// coordinator's end time set to its copy's first materialization, and
// with -suspend-source the bundle suspended unless one of its
// coordinators has actions of its own not started.
func (m *migrator) bundleMoved(b *client.BundleJob, copyID string) {
	id, name, status := b.BundleJobID, string(b.BundleJobName), b.Status
	m.moved++
	failed := func(text string, err error) {
		m.moved--
		m.failJob("bundle", id, name, status, fmt.Errorf("%s; then %w", text, err))
	}
	text := "already migrated as " + copyID
	c, _, err := m.dst.BundleInfo(m.ctx, copyID)
	if err != nil {
		failed(text, fmt.Errorf("reading it: %w", err))
		return
	}
	coords, err := m.bundleCoords(b)
	if err != nil {
		failed(text, err)
		return
	}
	suspend := m.suspend && !suspendedStatus(status)
	var caps []string // each coordinator's copy's first materialization
	var capped []bool // whether its source's end time is to be set to it
	for _, sc := range coords {
		cname := string(sc.Job.CoordJobName)
		from := copyFrom(string(c.Conf), vocab.PropCoordMaterializeFromPrefix+cname, sc.Job.StartTime.Time)
		f := planFinish(sc.Job, from, m.suspend)
		if f.Own > 0 && suspend {
			suspend = false
			text += fmt.Sprintf("; source not suspended: coordinator [%s] has %d actions before %s not started yet (rerun once they have)", cname, f.Own, minute(from))
		}
		capped = append(capped, f.Cap)
		caps = append(caps, schedule.FormatTime(from))
	}
	if m.dryrun {
		if suspend {
			text += "; would suspend the source"
		}
		for i, sc := range coords {
			if capped[i] {
				text += fmt.Sprintf("; would set the end time of coordinator [%s] to %s", sc.Job.CoordJobName, caps[i])
			}
		}
		m.line("bundle", id, name, status, text)
		return
	}
	if suspend {
		if err := m.src.Suspend(m.ctx, id); err != nil {
			failed(text, fmt.Errorf("suspending the source: %w", err))
			return
		}
		text += "; source suspended"
	}
	for i, sc := range coords {
		if !capped[i] {
			continue
		}
		if err := m.src.Change(m.ctx, sc.Job.CoordJobID, "endtime="+caps[i]); err != nil {
			failed(text, fmt.Errorf("setting the end time of source coordinator [%s] %s to %s: %w", sc.Job.CoordJobName, sc.Job.CoordJobID, caps[i], err))
			return
		}
		text += fmt.Sprintf("; end time of source coordinator [%s] set to %s", sc.Job.CoordJobName, caps[i])
	}
	m.line("bundle", id, name, status, text)
}
