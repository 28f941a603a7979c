package console

import (
	"context"
	"net/http"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// Bundles is what the console reads of the bundle engine (Options.Bundles).
type Bundles interface {
	BundleJob(ctx context.Context, id string) (*store.BundleJob, error)
	BundleJobInfo(ctx context.Context, id string) (*rest.BundleJob, error)
	BundleJobList(ctx context.Context, f store.JobFilter) ([]*rest.BundleJob, int, error)
}

// noBundles answers for a console without bundles: no bundle exists.
type noBundles struct{}

func (noBundles) BundleJob(ctx context.Context, id string) (*store.BundleJob, error) {
	return nil, &engine.Error{Code: engine.CodeJobNotFound, Msg: "Job does not exist [" + id + "]"}
}

func (noBundles) BundleJobInfo(ctx context.Context, id string) (*rest.BundleJob, error) {
	return nil, &engine.Error{Code: engine.CodeJobNotFound, Msg: "Job does not exist [" + id + "]"}
}

func (noBundles) BundleJobList(ctx context.Context, f store.JobFilter) ([]*rest.BundleJob, int, error) {
	return nil, 0, nil
}

// bundleStatuses are the statuses of a bundle job (spec: bundle 4.1), the
// choices of the jobs page's filter on the bundle tab.
var bundleStatuses = []string{store.BundlePrep, store.BundleRunning, store.BundleRunningWithError, store.BundlePrepSuspended,
	store.BundleSuspended, store.BundleSuspendedWithError, store.BundlePrepPaused, store.BundlePaused, store.BundlePausedWithError,
	store.BundleSucceeded, store.BundleDoneWithError, store.BundleKilled, store.BundleFailed}

// bundleData is the bundle job page.
type bundleData struct {
	Job *store.BundleJob
	// Coordinators are the bundle's coordinator jobs as the engine
	// reports them (status, frequency, next materialization).
	Coordinators []*rest.CoordJob
	Conf         [][2]string
	ConfRaw      string
	Definition   string
	Terminal     bool
	Controls     []string
}

// bundleTerminal reports whether a bundle status is final (spec: bundle
// 4.1: no transition leaves it).
func bundleTerminal(status string) bool {
	switch status {
	case store.BundleSucceeded, store.BundleDoneWithError, store.BundleKilled, store.BundleFailed:
		return true
	}
	return false
}

// bundleControls are the commands a bundle in status takes: those of the
// other kinds, and start while it waits in PREP for its kick-off time.
func bundleControls(status string) []string {
	c := controls(status)
	if status == store.BundlePrep {
		c = append([]string{"start"}, c...)
	}
	return c
}

func (c *Console) bundle(w http.ResponseWriter, r *http.Request, id string) {
	ctx := ctxOf(r)
	j, err := c.opts.Bundles.BundleJob(ctx, id)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	info, err := c.opts.Bundles.BundleJobInfo(ctx, id)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	m := c.masker(r, j.User, j.Group, j.ACL, j.Conf)
	d := &bundleData{Job: j, Coordinators: info.BundleCoordJobs, Terminal: bundleTerminal(j.Status),
		Controls: bundleControls(j.Status), Definition: m.XML(j.Definition)}
	d.Conf, d.ConfRaw = confTable(j.Conf, m)
	c.render(w, http.StatusOK, "bundle", page{Title: j.AppName + " " + id, Nav: "jobs", Live: !d.Terminal, Data: d})
}
