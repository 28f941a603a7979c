package cli

import (
	"fmt"
	"strings"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/schedule"
)

// bundle moves one bundle: the copy is submitted with each coordinator's
// first materialization, then each source coordinator's end time is set
// to its hand-over time.
func (m *migrator) bundle(id string) {
	b, _, err := m.src.BundleInfo(m.ctx, id)
	if err != nil {
		m.failJob("bundle", id, "-", "-", err)
		return
	}
	name, status := string(b.BundleJobName), b.Status
	copyID, err := m.copyOf("bundle", name, id)
	if err != nil {
		m.failJob("bundle", id, name, status, err)
		return
	}
	if copyID != "" {
		m.bundleMoved(b, copyID)
		return
	}
	if len(b.BundleCoordJobs) == 0 && !m.suspend && !suspendedStatus(status) {
		// Before its kick-off the source has no coordinator to stop at
		// a hand-over time: it would run the same periods as the copy.
		m.failJob("bundle", id, name, status, fmt.Errorf("not kicked off yet (kick-off %s): not moved; rerun with -suspend-source to move it and suspend the source", minute(b.KickoffTime.Time)))
		return
	}
	coords, err := m.bundleCoords(b)
	if err != nil {
		m.failJob("bundle", id, name, status, err)
		return
	}
	props, err := bundleCopyProps(b, coords)
	if err != nil {
		m.failJob("bundle", id, name, status, err)
		return
	}
	if m.dryrun {
		m.submitted++
		steps := []string{"would submit " + describeSubmission(props)}
		if m.suspend && !suspendedStatus(status) {
			steps = append(steps, "would suspend the source")
		}
		for _, c := range coords {
			steps = append(steps, describeBundleCoord(c, true))
		}
		m.line("bundle", id, name, status, strings.Join(steps, "; "))
		return
	}
	copyID, _, err = m.dst.Submit(m.ctx, props, false)
	if err != nil {
		m.failJob("bundle", id, name, status, fmt.Errorf("submitting the copy (the source is left as it was): %w", err))
		return
	}
	m.submitted++
	text := "submitted as " + copyID
	if err := m.holdBundleCopy(b, copyID); err != nil {
		m.failJob("bundle", id, name, status, fmt.Errorf("%s; then %w", text, err))
		return
	}
	done, err := m.afterCopy(id, handOver{}, status, true)
	text += done
	if err != nil {
		m.failJob("bundle", id, name, status, fmt.Errorf("%s; then %w", text, err))
		return
	}
	for _, c := range coords {
		if c.Cap {
			if err := m.src.Change(m.ctx, c.Job.CoordJobID, "endtime="+schedule.FormatTime(c.From)); err != nil {
				m.failJob("bundle", id, name, status, fmt.Errorf("%s; then setting the end time of source coordinator [%s] %s to %s: %w",
					text, c.Job.CoordJobName, c.Job.CoordJobID, minute(c.From), err))
				return
			}
		}
		text += "; " + describeBundleCoord(c, false)
	}
	m.line("bundle", id, name, status, text)
}

// bundleCoords reads each coordinator of a source bundle with its newest
// actions and decides its hand-over.
func (m *migrator) bundleCoords(b *client.BundleJob) ([]bundleCoord, error) {
	var out []bundleCoord
	for _, c := range b.BundleCoordJobs {
		j, _, err := m.src.CoordInfo(m.ctx, c.CoordJobID, client.InfoOptions{Len: migrateActions, Order: "desc"})
		if err != nil {
			return nil, fmt.Errorf("reading coordinator [%s] %s: %w", c.CoordJobName, c.CoordJobID, err)
		}
		if j.CoordJobName == "" {
			j.CoordJobName = c.CoordJobName
		}
		out = append(out, bundleCoord{Job: j, handOver: planHandOver(j, m.suspend)})
	}
	return out, nil
}

// holdBundleCopy makes a bundle's copy as its source is: suspended, or
// with its pause time (which its coordinators already got at their
// submission).
func (m *migrator) holdBundleCopy(b *client.BundleJob, copyID string) error {
	if suspendedStatus(b.Status) {
		if err := m.dst.Suspend(m.ctx, copyID); err != nil {
			return fmt.Errorf("suspending the copy: %w", err)
		}
	}
	if !b.PauseTime.IsZero() {
		if err := m.dst.Change(m.ctx, copyID, "pausetime="+schedule.FormatTime(b.PauseTime.Time)); err != nil {
			return fmt.Errorf("setting the copy's pause time: %w", err)
		}
	}
	return nil
}

// describeBundleCoord says where a bundle's coordinator continues.
func describeBundleCoord(c bundleCoord, dryrun bool) string {
	name := string(c.Job.CoordJobName)
	switch {
	case c.Done:
		return fmt.Sprintf("coordinator [%s] %s: nothing left to materialize", name, c.Job.Status)
	case dryrun && c.Cap:
		return fmt.Sprintf("coordinator [%s] next %s: from %s, would set the source's end time to %s", name, minute(c.Job.NextMaterializedTime.Time), minute(c.From), minute(c.From))
	case c.Cap:
		return fmt.Sprintf("coordinator [%s] from %s, source end time set to %s", name, minute(c.From), minute(c.From))
	}
	return fmt.Sprintf("coordinator [%s] from %s", name, minute(c.From))
}
