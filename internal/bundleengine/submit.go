package bundleengine

import (
	"context"
	"strings"

	"github.com/gozie/gozie/internal/bundle"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Submit creates a bundle job in PREP from its job properties (spec:
// bundle 4.1). Its timer is due at the kick-off time, or now when the
// definition gives none: a submitted bundle starts by itself, as in Oozie.
func (e *Engine) Submit(ctx context.Context, props *conf.Config) (string, error) {
	j, err := e.prepare(ctx, props)
	if err != nil {
		return "", err
	}
	return e.create(ctx, j, false)
}

// Run creates a bundle job and starts it at once, whatever its kick-off
// time (Oozie's -run starts the bundle right after submitting it).
func (e *Engine) Run(ctx context.Context, props *conf.Config) (string, error) {
	j, err := e.prepare(ctx, props)
	if err != nil {
		return "", err
	}
	return e.create(ctx, j, true)
}

// BundleDryrun checks a bundle submission without creating a job and returns
// the bundle's definition with its variables resolved (the "id" value of
// the REST API's dry run).
func (e *Engine) BundleDryrun(ctx context.Context, props *conf.Config) (string, error) {
	props, ctx, err := e.submitProps(ctx, props)
	if err != nil {
		return "", err
	}
	return bundle.DryRun(props, bundle.SubmitOptions{ReadFile: e.host.CoordFileReader(ctx), Now: e.now()})
}

// submitProps completes a submission's properties with the default user
// and returns the context to read its files in.
func (e *Engine) submitProps(ctx context.Context, props *conf.Config) (*conf.Config, context.Context, error) {
	props = props.Clone()
	if _, ok := props.Get(vocab.PropUser); !ok && e.host.DefaultUser() != "" {
		props.Set(vocab.PropUser, e.host.DefaultUser())
	}
	if err := e.host.CheckExpansion(props); err != nil {
		return nil, nil, err
	}
	user, _ := props.Get(vocab.PropUser)
	ctx, err := e.host.JobUserContext(ctx, user)
	return props, ctx, err
}

// prepare reads and checks a bundle submission: the job it makes, not yet
// written.
func (e *Engine) prepare(ctx context.Context, props *conf.Config) (*store.BundleJob, error) {
	props, ctx, err := e.submitProps(ctx, props)
	if err != nil {
		return nil, err
	}
	now := e.now()
	app, full, err := bundle.Submit(props, bundle.SubmitOptions{ReadFile: e.host.CoordFileReader(ctx), Now: now})
	if err != nil {
		return nil, err
	}
	if err := e.host.CheckExpansion(full); err != nil {
		return nil, err
	}
	var confXML strings.Builder
	if err := full.WriteXML(&confXML); err != nil {
		return nil, err
	}
	j := &store.BundleJob{
		AppName: app.Name, Status: store.BundlePrep, Conf: confXML.String(), Definition: app.Definition,
		TimeUnit: "NONE", KickoffTime: app.KickoffTime, CreatedTime: now, LastModTime: now,
	}
	j.AppPath, _ = full.Get(vocab.PropBundleAppPath)
	j.User, _ = full.Get(vocab.PropUser)
	j.Group, _ = full.Get(vocab.PropACL)
	if j.Group == "" {
		j.Group, _ = full.Get(vocab.PropGroup)
	}
	j.ACL, _ = full.Get(vocab.PropACL)
	j.ExternalID, _ = full.Get(vocab.PropExternal)
	return j, nil
}

// create writes a new bundle in PREP with its timer, or (start) already
// started with its coordinators' submissions, in one transaction. The
// job's number is drawn first, on its own: a failed commit leaves a gap in
// the numbers and nothing else.
func (e *Engine) create(ctx context.Context, j *store.BundleJob, start bool) (string, error) {
	var n int64
	err := e.store.Update(ctx, func(tx store.Tx) (err error) {
		n, err = tx.NextSequence(ctx, store.JobSequence)
		return err
	})
	if err != nil {
		return "", err
	}
	j.ID = e.host.NewJobID(n, vocab.TypeBundle)
	c := &change{job: j, dirty: map[string]bool{}, now: j.CreatedTime, jobDirty: true}
	c.log("", "INFO", "bundle job submitted, app [%s] status [%s]", j.AppName, j.Status)
	if start {
		if err := e.start(c); err != nil {
			return "", err
		}
	} else {
		at := j.KickoffTime
		if at.IsZero() || at.Before(c.now) {
			at = c.now
		}
		c.schedule(at)
	}
	if err := e.commit(ctx, c); err != nil {
		return "", err
	}
	return j.ID, nil
}
