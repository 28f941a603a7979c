package coordengine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
)

// inputCheck is one WAITING action whose inputs a cycle checks.
type inputCheck struct {
	a    *store.CoordAction
	plan coord.ActionPlan
	// known are the dependencies an earlier check of the action found
	// available: they are not asked for again.
	known map[string]bool
}

// checkInputs moves WAITING actions whose inputs are all there to READY,
// those waiting past their timeout to TIMEDOUT, and records what the
// others still miss. The dependencies still to ask for, of every action
// of the job, are handed to the prober first, which answers them
// concurrently (grouped into listings where the store allows it); the
// checks of the actions then answer from what it found. Every question
// carries the job's configuration and user.
func (e *Engine) checkInputs(ctx context.Context, c *coordChange, app *coord.App, props *conf.Config, acts []*store.CoordAction, opts Options) {
	checks := e.dueChecks(c, app, acts, opts)
	if len(checks) == 0 {
		return
	}
	user := c.job.User
	ctx = fsys.WithUser(fsys.WithConf(ctx, props), user)
	// Done-flags are probed with the coordinator user's rights when the
	// server acts for its users: every worker of the prober, and the
	// checks below, run through AsJobUser.
	run := func(fn func() error) error { return e.wf.AsJobUser(user, fn) }
	probe := opts.Exists
	if probe == nil {
		var uris []string
		for _, ck := range checks {
			for _, d := range ck.plan.Dependencies {
				if !ck.known[d] {
					uris = append(uris, d)
				}
			}
		}
		cycle := e.prober.Prefetch(ctx, uris, fsys.CycleOptions{Now: c.now, Run: run})
		defer cycle.Done()
		probe = cycle.Exists
	}
	err := run(func() error {
		for _, ck := range checks {
			if ctx.Err() != nil {
				break // the step is abandoned: its change is not committed
			}
			e.checkAction(ctx, c, app, props, ck, probe)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		for _, ck := range checks {
			inputCheckFailed(c, ck.a, err)
		}
	}
}

// dueChecks returns the actions of acts whose inputs are checked now:
// every WAITING action due, once an input check interval has passed since
// the last such check (Oozie checks each action once per interval) or a
// wait of the input logic has elapsed; before, only those no check has
// seen — materialized or made WAITING by this change, or nominally due
// since the last check.
func (e *Engine) dueChecks(c *coordChange, app *coord.App, acts []*store.CoordAction, opts Options) []*inputCheck {
	last := c.extra.CheckedAt
	woken := !c.extra.WakeAt.IsZero() && !c.now.Before(c.extra.WakeAt)
	all := last.IsZero() || !c.now.Before(last.Add(opts.InputCheckInterval)) || woken
	if all {
		c.extra.CheckedAt = c.now
		// The checks below set it again for the waits still running.
		c.extra.WakeAt = time.Time{}
		c.jobDirty = true
	}
	var out []*inputCheck
	for _, a := range acts {
		if before, changed := c.before[a.ID]; !all && !a.NominalTime.After(last) && !(changed && before != store.CoordActionWaiting) {
			continue
		}
		if a.Status != store.CoordActionWaiting || a.NominalTime.After(c.now) {
			// As in Oozie, an action materialized ahead of its nominal
			// time is not checked (and so never starts) before it.
			continue
		}
		if slices.Contains(c.extra.Cleaning, a.ID) {
			continue // a rerun whose old outputs are not deleted yet
		}
		ck := &inputCheck{a: a}
		if err := json.Unmarshal([]byte(a.Plan), &ck.plan); err != nil {
			e.logf("gozie: %s: bad plan: %v", a.ID, err)
			continue
		}
		if app != nil && app.InputLogic.Root() != nil {
			ck.known = logicKnownAvailable(ck.plan.Dependencies, a.MissingDependencies)
		} else {
			ck.known = knownAvailable(ck.plan.Dependencies, a.MissingDependencies)
		}
		out = append(out, ck)
	}
	return out
}

// knownAvailable returns the dependencies an earlier check found
// available (Oozie: results that became available stay available). The
// check stops at the first missing dependency and stores it and every
// one after it as the action's missing dependencies; the dependencies
// before those were found. That holds only when deps, the plan's list,
// ends with the stored missing ones — the list that check stored; nil
// otherwise, and every dependency is asked for.
func knownAvailable(deps []string, missing string) map[string]bool {
	resolved, _, _ := strings.Cut(missing, "!!")
	var miss []string
	if resolved != "" {
		miss = strings.Split(resolved, "#")
	}
	k := len(deps) - len(miss)
	if k <= 0 || !slices.Equal(deps[k:], miss) {
		return nil
	}
	out := make(map[string]bool, k)
	for _, d := range deps[:k] {
		out[d] = true
	}
	return out
}

// logicKnownAvailable is knownAvailable for an app with input logic,
// whose check stores every dependency not known available (the logic
// looks at them in its own order, not stopping at the first missing):
// the others are known available. An action never checked stores them
// all.
func logicKnownAvailable(deps []string, missing string) map[string]bool {
	resolved, _, _ := strings.Cut(missing, "!!")
	miss := map[string]bool{}
	if resolved != "" {
		for _, d := range strings.Split(resolved, "#") {
			miss[d] = true
		}
	}
	out := map[string]bool{}
	for _, d := range deps {
		if !miss[d] {
			out[d] = true
		}
	}
	return out
}

// checkAction checks the inputs of one action, asking probe for what is
// not known available. A store that did not answer (fsys.ErrUnavailable)
// makes its dependencies count as missing this cycle — the action keeps
// waiting, and may time out — and the action records the error; when the
// action still has coord:latest/future instances to resolve, the error
// fails the check instead, so that a store out for a moment never makes
// latest settle on an older instance. A failed check is recorded on the
// action, which stays WAITING until its timeout.
func (e *Engine) checkAction(ctx context.Context, c *coordChange, app *coord.App, props *conf.Config, ck *inputCheck,
	probe func(context.Context, string) (bool, error)) {
	a := ck.a
	resolving := len(ck.plan.UnresolvedByEvent) > 0
	var transient error
	exists := func(uri string) (bool, error) {
		if ck.known[uri] {
			return true, nil
		}
		ok, err := probe(ctx, uri)
		if err != nil && !resolving && errors.Is(err, fsys.ErrUnavailable) {
			if transient == nil {
				transient = err
			}
			return false, nil
		}
		return ok, err
	}
	r, err := app.CheckInputs(&ck.plan, props, exists, c.now)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		inputCheckFailed(c, a, err)
		// As Oozie's input check: an action whose check keeps failing
		// still times out (a data-out with coord:future never resolves).
		if app.TimedOut(&ck.plan, c.now) {
			c.setActionStatus(e, a, store.CoordActionTimedOut)
		}
		return
	}
	if r.Plan != nil {
		if b, err := json.Marshal(r.Plan); err == nil && string(b) != a.Plan {
			a.Plan = string(b)
			c.touch(a, a.Status)
		}
	}
	if r.Plan != nil && r.Plan.Logic != nil && !r.Ready && !r.Plan.Logic.WakeAt.IsZero() {
		l := r.Plan.Logic
		if c.extra.WakeAt.IsZero() || l.WakeAt.Before(c.extra.WakeAt) {
			c.extra.WakeAt = l.WakeAt
			c.jobDirty = true
		}
	}
	missing := r.MissingDependencies()
	if missing != a.MissingDependencies {
		a.MissingDependencies = missing
		c.touch(a, a.Status)
	}
	switch {
	case transient != nil:
		inputCheckFailed(c, a, transient)
	case a.ErrorMessage != "" || a.ErrorCode != "":
		// What an earlier check failed on is gone: a WAITING action
		// carries no other error.
		a.ErrorCode, a.ErrorMessage = "", ""
		c.touch(a, a.Status)
	}
	switch {
	case r.Ready:
		a.MissingDependencies = ""
		c.setActionStatus(e, a, store.CoordActionReady)
	case r.TimedOut:
		c.setActionStatus(e, a, store.CoordActionTimedOut)
	}
}

// inputCheckFailed records the error of an action's input check, once
// while it stays the same.
func inputCheckFailed(c *coordChange, a *store.CoordAction, err error) {
	if a.ErrorMessage == err.Error() {
		return
	}
	a.ErrorCode, a.ErrorMessage = coord.ErrorCode(err), err.Error()
	c.touch(a, a.Status)
	c.log(a.ID, "WARN", "input check failed: %v", err)
}
