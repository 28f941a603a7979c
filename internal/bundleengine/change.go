package bundleengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// extra is the engine's private state of a bundle job, stored as JSON in
// store.BundleJob.State.
type extra struct {
	// TickID and TickAt identify the bundle's live timer; an older one
	// that fires finds another id here and does nothing.
	TickID int64     `json:"tickId,omitempty"`
	TickAt time.Time `json:"tickAt,omitempty"`
}

func decodeExtra(s string) extra {
	var x extra
	if s != "" {
		_ = json.Unmarshal([]byte(s), &x)
	}
	return x
}

func (x extra) encode() string {
	b, _ := json.Marshal(x)
	return string(b)
}

// change is one transition of a bundle job in the making: the job, its
// actions, the effects it calls for and the log lines describing it, all
// committed together by commit.
type change struct {
	job      *store.BundleJob
	extra    extra
	jobDirty bool
	actions  []*store.BundleAction // every action of the bundle, by coordinator name
	dirty    map[string]bool       // ids of the actions to write
	effects  []*store.Effect
	done     []int64
	logs     []*store.LogEntry
	tick     *store.Effect
	oldTick  int64
	// staged is a coordinator written in the change's transaction, for
	// the action stagedFor.
	staged    effect.StagedCoord
	stagedFor *store.BundleAction
	now       time.Time
	// reported is the job's status the runtime's Observer last heard of
	// (the stored one at load; "" for a new bundle, whose submission is
	// not a status change).
	reported string
}

// load reads a bundle job and its actions, E0604 when there is none.
func (e *Engine) load(ctx context.Context, id string) (*change, error) {
	c := &change{dirty: map[string]bool{}, now: e.now()}
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if c.job, err = tx.BundleJob(ctx, id); err != nil {
			return err
		}
		c.actions, err = tx.BundleActions(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", id)
	}
	if err != nil {
		return nil, err
	}
	c.extra = decodeExtra(c.job.State)
	c.reported = c.job.Status
	return c, nil
}

// update runs fn on bundle id under the bundle's lock and commits what fn
// changed in one transaction; an error from fn commits nothing.
func (e *Engine) update(ctx context.Context, id string, fn func(c *change) error) error {
	unlock := e.locks.Lock(id)
	defer unlock()
	c, err := e.load(ctx, id)
	if err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	return e.commit(ctx, c)
}

func (c *change) log(actionID, level, format string, args ...any) {
	c.logs = append(c.logs, &store.LogEntry{JobID: c.job.ID, ActionID: actionID, Time: c.now, Level: level,
		Message: fmt.Sprintf(format, args...)})
}

// setStatus moves the bundle to status to, logging the change.
func (c *change) setStatus(to string) {
	if c.job.Status == to {
		return
	}
	c.log("", "INFO", "bundle job status %s -> %s", c.job.Status, to)
	c.job.Status = to
	c.jobDirty = true
}

// setAction records a new status of an action.
func (c *change) setAction(a *store.BundleAction, status string) {
	if a.Status != status {
		c.log(a.ID, "INFO", "coordinator [%s] status %s -> %s", a.CoordName, a.Status, status)
		a.Status = status
	}
	c.touch(a)
}

// touch marks an action changed.
func (c *change) touch(a *store.BundleAction) {
	a.LastModTime = c.now
	c.dirty[a.ID] = true
}

// action returns the bundle's action with the given id, nil if none.
func (c *change) action(id string) *store.BundleAction {
	for _, a := range c.actions {
		if a.ID == id {
			return a
		}
	}
	return nil
}

func (c *change) addEffect(ef *store.Effect) {
	ef.JobID = c.job.ID
	ef.CreatedTime = c.now
	c.effects = append(c.effects, ef)
}

// command passes a command on to the coordinator of action a: its pending
// count goes up until the command has been performed.
func (c *change) command(a *store.BundleAction, cmd commandPayload) {
	a.Pending++
	c.touch(a)
	c.addEffect(&store.Effect{Kind: EffectBundleCommand, ActionID: a.ID, Payload: cmd.encode()})
}

// schedule makes sure the bundle's timer fires no later than at.
func (c *change) schedule(at time.Time) {
	if c.extra.TickID != 0 && !c.extra.TickAt.After(at) {
		return
	}
	c.cancelTick()
	c.tick = &store.Effect{JobID: c.job.ID, Kind: EffectBundleTick, NotBefore: at, CreatedTime: c.now}
	c.extra.TickAt = at
	c.jobDirty = true
}

// cancelTick retires the bundle's live timer.
func (c *change) cancelTick() {
	if c.extra.TickID != 0 {
		c.oldTick = c.extra.TickID
		c.extra.TickID, c.extra.TickAt = 0, time.Time{}
		c.jobDirty = true
	}
	c.tick = nil
}

// commit writes a change in one transaction, then performs its effects.
func (e *Engine) commit(ctx context.Context, c *change) error {
	if c.jobDirty || len(c.dirty) > 0 {
		c.job.LastModTime = c.now
		c.jobDirty = true
	}
	err := e.store.Update(ctx, func(tx store.Tx) error {
		if c.staged != nil {
			// First: the action written below names the coordinator.
			cj, err := c.staged.Write(ctx, tx)
			if err != nil {
				return err
			}
			c.stagedFor.CoordID = cj.ID
			c.logs[len(c.logs)-1].Message = fmt.Sprintf("coordinator [%s] submitted as [%s]", c.stagedFor.CoordName, cj.ID)
		}
		if c.tick != nil {
			if err := tx.AddEffect(ctx, c.tick); err != nil {
				return err
			}
			c.extra.TickID = c.tick.ID
		}
		if c.oldTick != 0 {
			if err := tx.DoneEffect(ctx, c.oldTick); err != nil {
				return err
			}
		}
		if c.jobDirty {
			c.job.State = c.extra.encode()
			if err := tx.PutBundleJob(ctx, c.job); err != nil {
				return err
			}
		}
		for _, a := range c.actions {
			if c.dirty[a.ID] {
				if err := tx.PutBundleAction(ctx, a); err != nil {
					return err
				}
			}
		}
		for _, ef := range c.effects {
			if err := tx.AddEffect(ctx, ef); err != nil {
				return err
			}
		}
		for _, id := range c.done {
			if err := tx.DoneEffect(ctx, id); err != nil {
				return err
			}
		}
		for _, l := range c.logs {
			if err := tx.AppendLog(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.staged != nil {
		c.staged.Committed()
	}
	if c.reported != c.job.Status && c.reported != "" {
		e.rt.Observer().JobStatus("bundle", c.reported, c.job.Status)
	}
	c.reported = c.job.Status
	effects := c.effects
	if c.tick != nil {
		effects = append(effects, c.tick)
	}
	e.rt.Dispatch(effects)
	return nil
}

// commandPayload is what an EffectBundleCommand passes on: the command
// and its arguments.
type commandPayload struct {
	Op        string `json:"op"` // suspend, resume, kill, change, rerun
	Value     string `json:"value,omitempty"`
	Dates     string `json:"dates,omitempty"`
	Refresh   bool   `json:"refresh,omitempty"`
	NoCleanup bool   `json:"noCleanup,omitempty"`
}

func (p commandPayload) encode() string {
	b, _ := json.Marshal(p)
	return string(b)
}

func decodeCommand(s string) (commandPayload, error) {
	var p commandPayload
	err := json.Unmarshal([]byte(s), &p)
	return p, err
}

// jobConf parses the bundle's stored configuration.
func jobConf(j *store.BundleJob) (*conf.Config, error) {
	return conf.ParseXML(strings.NewReader(j.Conf), "bundle job "+j.ID)
}

// sortActions orders actions by coordinator name, as the store lists them.
func sortActions(acts []*store.BundleAction) {
	slices.SortFunc(acts, func(a, b *store.BundleAction) int { return strings.Compare(a.CoordName, b.CoordName) })
}
