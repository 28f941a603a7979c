package coordengine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// DefaultCoordActionsLength is how many actions a coordinator job's info
// lists when the request gives no length (oozie.coord.actions.default.length).
const DefaultCoordActionsLength = 1000

// DryRunActionLimit bounds the actions a coordinator dry run materializes.
const DryRunActionLimit = 1000

// Oozie error codes of coordinator commands.
const (
	CodeInvalidParam = "E0302" // a bad action range
	CodeInvalidDate  = "E0308" // a bad date range
)

// CoordJobInfo is the REST API's coordinator job object (§5.3) with a page
// of its actions (§5.4) by nominal time: offset is 1-based, length <= 0
// means DefaultCoordActionsLength, desc reverses the order. statuses
// filters the actions: plain entries are kept (OR), entries written
// "!STATUS" are left out.
func (e *Engine) CoordJobInfo(ctx context.Context, id string, offset, length int, desc bool, statuses []string) (*rest.CoordJob, error) {
	if offset < 1 {
		offset = 1
	}
	if length <= 0 {
		length = DefaultCoordActionsLength
	}
	f := store.CoordActionFilter{Desc: desc, Offset: offset - 1, Limit: length}
	for _, s := range statuses {
		s = strings.ToUpper(strings.TrimSpace(s))
		if not, ok := strings.CutPrefix(s, "!"); ok {
			f.NotStatuses = append(f.NotStatuses, not)
		} else if s != "" {
			f.Statuses = append(f.Statuses, s)
		}
	}
	var j *store.CoordJob
	var acts []*store.CoordAction
	var counts map[string]int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if j, err = tx.CoordJob(ctx, id); err != nil {
			return err
		}
		if acts, err = tx.CoordActions(ctx, id, f); err != nil {
			return err
		}
		counts, err = tx.CountCoordActions(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", id)
	}
	if err != nil {
		return nil, err
	}
	total := 0
	for s, n := range counts {
		if (len(f.Statuses) == 0 || hasString(f.Statuses, s)) && !hasString(f.NotStatuses, s) {
			total += n
		}
	}
	return NewCoordJobJSON(j, acts, total), nil
}

// hasString reports whether list holds s.
func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CoordActionInfo is the REST API's coordinator action object (§5.4) of
// an id <coordJobId>@<n>; E0605 when there is no such action.
func (e *Engine) CoordActionInfo(ctx context.Context, id string) (*rest.CoordAction, error) {
	a, err := e.coordAction(ctx, id)
	if err != nil {
		return nil, err
	}
	return NewCoordActionJSON(a), nil
}

// coordAction reads one coordinator action; E0605 when there is none.
func (e *Engine) coordAction(ctx context.Context, id string) (*store.CoordAction, error) {
	var a *store.CoordAction
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		a, err = tx.CoordAction(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(vocab.CodeActionNotFound, "Action does not exist [%s]", id)
	}
	return a, err
}

// CoordJobList lists coordinator jobs as the items of the REST API's
// "coordinatorjobs" (only the fields §5.6 lists are filled), newest first,
// with the number of jobs matching f.
func (e *Engine) CoordJobList(ctx context.Context, f store.JobFilter) ([]*rest.CoordJob, int, error) {
	var jobs []*store.CoordJob
	var total int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if jobs, err = tx.CoordJobs(ctx, f); err != nil {
			return err
		}
		total, err = tx.CountCoordJobs(ctx, f)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]*rest.CoordJob, 0, len(jobs))
	for _, j := range jobs {
		o := NewCoordJobJSON(j, nil, 0)
		o.Conf, o.ACL, o.PauseTime, o.ConsoleURL, o.CoordExternalID, o.MatThrottling = "", "", rest.Time{}, "", "", 0
		out = append(out, o)
	}
	return out, total, nil
}

// CoordDryrun checks a coordinator submission without creating a job and
// returns the server's dry-run text: the definition and the actions it
// would materialize (at most DryRunActionLimit).
func (e *Engine) CoordDryrun(ctx context.Context, props *conf.Config) (string, error) {
	props = props.Clone()
	if _, ok := props.Get(vocab.PropUser); !ok && e.defaultUser != "" {
		props.Set(vocab.PropUser, e.defaultUser)
	}
	user, _ := props.Get(vocab.PropUser)
	ctx, err := e.wf.JobUserContext(ctx, user)
	if err != nil {
		return "", err
	}
	// The submission's settings reach the stores, as the job's would.
	pctx := fsys.WithConf(ctx, props)
	exists := func(uri string) (ok bool, err error) {
		err = e.wf.AsJobUser(user, func() (err error) { ok, err = e.exists(pctx, uri); return err })
		return ok, err
	}
	res, err := coord.DryRun(props, coord.SubmitOptions{
		ReadFile:            e.readFile(ctx),
		Now:                 e.now(),
		MinFrequencyMinutes: e.opts.MinFrequencyMinutes,
		MaxActionBytes:      e.maxAction,
	}, exists, DryRunActionLimit)
	if err != nil {
		return "", coordError(err)
	}
	return coord.DryRunText(res), nil
}

// CoordOwner returns the user, group and ACL of a coordinator job, for
// authorization.
func (e *Engine) CoordOwner(ctx context.Context, id string) (user, group, acl string, err error) {
	j, err := e.coordJob(ctx, id)
	if err != nil {
		return "", "", "", err
	}
	return j.User, j.Group, j.ACL, nil
}

// CoordDefinition returns the coordinator XML a job was submitted with.
func (e *Engine) CoordDefinition(ctx context.Context, id string) (string, error) {
	j, err := e.coordJob(ctx, id)
	if err != nil {
		return "", err
	}
	return j.Definition, nil
}

// CoordKillActions kills the actions of a coordinator job a range selects
// (REST §7.3): rangeType "action" with a scope like "1-3,5", or "date" with
// nominal times and "start::end" ranges. Actions that have already ended
// are left alone. It returns the killed actions, the
// list the REST answer {"actions": [...]} holds.
func (e *Engine) CoordKillActions(ctx context.Context, id, rangeType, scope string) ([]*rest.CoordAction, error) {
	sel, err := parseCoordScope(rangeType, scope)
	if err != nil {
		return nil, err
	}
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return nil, err
	}
	all, err := e.coordActions(ctx, id, store.CoordActionFilter{})
	if err != nil {
		return nil, err
	}
	killed := []*rest.CoordAction{}
	for _, a := range all {
		if !sel(a) || coordActionTerminal(a.Status) {
			continue
		}
		c.killAction(e, a)
		killed = append(killed, NewCoordActionJSON(a))
	}
	if err := e.coordStep(ctx, c); err != nil {
		return nil, err
	}
	if err := e.commitCoord(ctx, c); err != nil {
		return nil, err
	}
	return killed, nil
}

// parseCoordScope parses a REST action or date range (§7.3) into a
// selector of actions.
func parseCoordScope(rangeType, scope string) (func(*store.CoordAction) bool, error) {
	scope = strings.TrimSpace(scope)
	if scope == "" {
		return nil, errorf(CodeInvalidParam, "Invalid parameter [scope], empty")
	}
	switch rangeType {
	case "action":
		type span struct{ lo, hi int }
		var spans []span
		for _, part := range strings.Split(scope, ",") {
			part = strings.TrimSpace(part)
			lo, hi, isRange := strings.Cut(part, "-")
			a, err1 := strconv.Atoi(strings.TrimSpace(lo))
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = strconv.Atoi(strings.TrimSpace(hi))
			}
			if err1 != nil || err2 != nil || a < 1 || b < a {
				return nil, errorf(CodeInvalidParam, "Invalid parameter [scope], invalid action range [%s]", part)
			}
			spans = append(spans, span{a, b})
		}
		return func(x *store.CoordAction) bool {
			for _, s := range spans {
				if x.Number >= s.lo && x.Number <= s.hi {
					return true
				}
			}
			return false
		}, nil
	case "date":
		type span struct{ lo, hi time.Time }
		var spans []span
		for _, part := range strings.Split(scope, ",") {
			part = strings.TrimSpace(part)
			lo, hi, isRange := strings.Cut(part, "::")
			a, err1 := schedule.ParseTime(strings.TrimSpace(lo))
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = schedule.ParseTime(strings.TrimSpace(hi))
			}
			if err1 != nil || err2 != nil || b.Before(a) {
				return nil, errorf(CodeInvalidDate, "Could not parse date range parameter [%s]", part)
			}
			spans = append(spans, span{a, b})
		}
		return func(x *store.CoordAction) bool {
			for _, s := range spans {
				if !x.NominalTime.Before(s.lo) && !x.NominalTime.After(s.hi) {
					return true
				}
			}
			return false
		}, nil
	}
	return nil, errorf(CodeInvalidParam, "Invalid parameter [type], [%s] must be action or date", rangeType)
}

// CoordActionCounts counts a coordinator job's actions by status.
func (e *Engine) CoordActionCounts(ctx context.Context, id string) (map[string]int, error) {
	var counts map[string]int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		counts, err = tx.CountCoordActions(ctx, id)
		return err
	})
	return counts, err
}
