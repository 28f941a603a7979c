package slatrack

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// SLAList returns the records matching f (GET /v2/sla).
func (t *Tracker) SLAList(ctx context.Context, f store.SLAFilter) ([]*store.SLA, error) {
	var out []*store.SLA
	err := t.store.View(ctx, func(tx store.Tx) (err error) {
		out, err = tx.SLAs(ctx, f)
		return err
	})
	return out, err
}

// SLAEnable turns the alerts of a job's records in scope on or off
// (sla-enable, sla-disable). Events are still decided and recorded while
// the alerts are off.
func (t *Tracker) SLAEnable(ctx context.Context, jobID string, scope sla.Scope, enable bool) error {
	return t.change(ctx, jobID, scope, func(s *store.SLA, _ time.Time) error {
		s.Disabled = !enable
		return nil
	})
}

// SLAChange changes the expectations of a job's records in scope
// (sla-change; sla.Change reads the value). The next pass decides with the
// new deadlines.
func (t *Tracker) SLAChange(ctx context.Context, jobID string, scope sla.Scope, value string) error {
	return t.change(ctx, jobID, scope, func(s *store.SLA, now time.Time) error {
		return sla.Change(s, value, now)
	})
}

// change applies fn to the records of jobID in scope in one transaction,
// E0604 when none matches.
func (t *Tracker) change(ctx context.Context, jobID string, scope sla.Scope, fn func(*store.SLA, time.Time) error) error {
	now := t.clock.Now().Truncate(time.Millisecond)
	err := t.rt.Update(ctx, func(tx store.Tx) error {
		recs, err := scoped(ctx, tx, jobID, scope)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return vocab.Errorf(vocab.CodeJobNotFound, "Job does not exist [%s]: no SLA registered in the scope given", jobID)
		}
		for _, s := range recs {
			if err := fn(s, now); err != nil {
				return err
			}
			s.LastModTime = now
			if err := tx.PutSLA(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		t.Kick()
	}
	return err
}

// Kick runs a pass soon (after a command changed deadlines).
func (t *Tracker) Kick() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if t.stop != nil && t.stop() {
		t.stop = t.clock.AfterFunc(0, t.tick)
	}
}

// noDurations is a filter with its duration bounds unset.
func noDurations(f store.SLAFilter) store.SLAFilter {
	f.ActualDurationMin, f.ActualDurationMax, f.ExpectedDurationMin, f.ExpectedDurationMax = -1, -1, -1, -1
	return f
}

// scoped lists the records a command on jobID applies to: a workflow
// job's and its actions'; a workflow action's; a coordinator action's; a
// coordinator job's actions in scope (numbers or nominal dates); a
// bundle's coordinators' actions (all, or those of the coordinators
// named).
func scoped(ctx context.Context, tx store.Tx, jobID string, scope sla.Scope) ([]*store.SLA, error) {
	switch {
	case strings.Contains(jobID, "@"):
		s, err := tx.SLA(ctx, jobID)
		if err != nil {
			return nil, ignoreNotFound(err)
		}
		return []*store.SLA{s}, nil
	case vocab.IsWorkflowJob(jobID):
		own, err := tx.SLAs(ctx, noDurations(store.SLAFilter{IDs: []string{jobID}}))
		if err != nil {
			return nil, err
		}
		acts, err := tx.SLAs(ctx, noDurations(store.SLAFilter{ParentIDs: []string{jobID}, AppTypes: []string{sla.AppTypeWorkflowAction}}))
		return append(own, acts...), err
	case vocab.IsCoordJob(jobID):
		recs, err := tx.SLAs(ctx, noDurations(store.SLAFilter{ParentIDs: []string{jobID}, AppTypes: []string{sla.AppTypeCoordAction}}))
		if err != nil {
			return nil, err
		}
		return inCoordScope(recs, scope)
	case vocab.IsBundleJob(jobID):
		recs, err := tx.SLAs(ctx, noDurations(store.SLAFilter{BundleIDs: []string{jobID}, AppTypes: []string{sla.AppTypeCoordAction}}))
		if err != nil || strings.TrimSpace(scope.Coordinators) == "" {
			return recs, err
		}
		want := map[string]bool{}
		for _, c := range strings.Split(scope.Coordinators, ",") {
			want[strings.TrimSpace(c)] = true
		}
		var out []*store.SLA
		for _, s := range recs {
			cj, err := tx.CoordJob(ctx, s.ParentID)
			if err != nil {
				return nil, ignoreNotFound(err)
			}
			if want[cj.ID] || want[cj.AppName] {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, vocab.Errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", jobID)
}

func ignoreNotFound(err error) error {
	if vocab.CodeOf(err) == vocab.CodeJobNotFound || err == store.ErrNotFound {
		return nil
	}
	return err
}

// inCoordScope keeps a coordinator's action records in scope: action
// numbers ("1,3-4") and nominal time ranges ("FROM::TO,...", or single
// datetimes).
func inCoordScope(recs []*store.SLA, scope sla.Scope) ([]*store.SLA, error) {
	if strings.TrimSpace(scope.Actions) == "" && strings.TrimSpace(scope.Dates) == "" {
		return recs, nil
	}
	var out []*store.SLA
	for _, s := range recs {
		in, err := inScope(s, scope)
		if err != nil {
			return nil, err
		}
		if in {
			out = append(out, s)
		}
	}
	return out, nil
}

func inScope(s *store.SLA, scope sla.Scope) (bool, error) {
	for _, part := range splitList(scope.Actions) {
		n := s.ID[strings.LastIndex(s.ID, "@")+1:]
		num, _ := strconv.Atoi(n)
		from, to, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(strings.TrimSpace(from))
		hi := lo
		var err2 error
		if isRange {
			hi, err2 = strconv.Atoi(strings.TrimSpace(to))
		}
		if err1 != nil || err2 != nil {
			return false, vocab.Errorf("E0302", "Invalid parameter [action-list: %s]", scope.Actions)
		}
		if num >= lo && num <= hi {
			return true, nil
		}
	}
	for _, part := range splitList(scope.Dates) {
		from, to, isRange := strings.Cut(part, "::")
		lo, err1 := schedule.ParseTime(strings.TrimSpace(from))
		hi := lo
		var err2 error
		if isRange {
			hi, err2 = schedule.ParseTime(strings.TrimSpace(to))
		}
		if err1 != nil || err2 != nil {
			return false, vocab.Errorf("E0302", "Invalid parameter [date: %s]", scope.Dates)
		}
		if !s.NominalTime.Before(lo) && !s.NominalTime.After(hi) {
			return true, nil
		}
	}
	return false, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
