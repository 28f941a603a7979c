package server

import (
	"context"
	"net/http"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// Bundles is the bundle engine as the server sees it (Options.Bundles).
// Submissions and the job commands every kind has (start, suspend, resume,
// kill) go through the jobs service, which routes them by kind; the server
// needs of the bundle engine only what is particular to bundles.
type Bundles interface {
	// BundleJobInfo returns the bundle job bean (rest-api.md 5.5) with
	// its coordinator jobs in bundleCoordJobs.
	BundleJobInfo(ctx context.Context, id string) (*rest.BundleJob, error)
	// BundleJobList returns one page of bundle job beans and the number
	// of jobs the filter matches.
	BundleJobList(ctx context.Context, f store.JobFilter) ([]*rest.BundleJob, int, error)
	// BundleDryrun returns the "id" value of a bundle dry run: the
	// bundle-app XML after parsing (rest-api.md 3.1).
	BundleDryrun(ctx context.Context, props *conf.Config) (string, error)
	// BundleChange changes a bundle's endtime or pausetime; value is
	// "k=v;k=v" (rest-api.md 7.4).
	BundleChange(ctx context.Context, id, value string) error
	// BundleRerun reruns the coordinators of coordScope (names or ids,
	// comma list; empty: all) over the date ranges of dateScope.
	BundleRerun(ctx context.Context, id, coordScope, dateScope string, refresh, noCleanup bool) error
	// BundleOwner returns what authorization needs of a bundle job.
	BundleOwner(ctx context.Context, id string) (user, group, acl string, err error)
	// BundleDefinition returns the bundle XML of a job.
	BundleDefinition(ctx context.Context, id string) (string, error)
	// BundleJob returns the stored bundle job.
	BundleJob(ctx context.Context, id string) (*store.BundleJob, error)
}

// errNoBundles answers bundle requests when the server has no bundle
// engine.
func errNoBundles() *apiError {
	return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [bundle jobs are not supported by this server]")
}

// showBundle renders a bundle job with its coordinators, masked for the
// caller c and in the zone the request asks for.
func (s *Server) showBundle(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	ctx := r.Context()
	out, err := s.bundles.BundleJobInfo(ctx, id)
	if err != nil {
		return err
	}
	m, err := s.bundleMasker(ctx, c.user, id)
	if err != nil {
		return err
	}
	out = maskBundleJSON(out, m)
	out.In(zoneParam(r))
	writeJSON(w, out)
	return nil
}

// bundleMasker is coordMasker for a bundle job: the secrets of its own
// configuration and of its coordinators' configurations are masked for
// a reader the bundle does not name.
func (s *Server) bundleMasker(ctx context.Context, user, id string) (*redact.Masker, error) {
	owner, group, acl, err := s.bundles.BundleOwner(ctx, id)
	if err != nil {
		return nil, err
	}
	m := s.readerMasker(user, owner, group, acl)
	if m == nil {
		return nil, nil
	}
	info, err := s.bundles.BundleJobInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	docs := []string{string(info.Conf)}
	for _, cj := range info.BundleCoordJobs {
		docs = append(docs, string(cj.Conf))
	}
	return m.WithValues(m.SecretValues(docs...)...), nil
}

// maskBundleJSON returns a bundle job bean masked for a reader (nil m:
// unmasked): its conf and its coordinators' (maskCoordJSON). The bean and
// its coordinators are copied, never changed, since the caller then moves
// their dates to another zone.
func maskBundleJSON(o *rest.BundleJob, m *redact.Masker) *rest.BundleJob {
	cp := *o
	if m != nil {
		cp.Conf = maskStr(cp.Conf, m.XML)
	}
	cp.BundleCoordJobs = make([]*rest.CoordJob, len(o.BundleCoordJobs))
	for i, cj := range o.BundleCoordJobs {
		c := *maskCoordJSON(cj, m)
		cp.BundleCoordJobs[i] = &c
	}
	return &cp
}

// bundleDefinition returns a bundle's XML and the masker of its reader.
func (s *Server) bundleDefinition(ctx context.Context, user, id string) (string, *redact.Masker, error) {
	def, err := s.bundles.BundleDefinition(ctx, id)
	if err != nil {
		return "", nil, err
	}
	m, err := s.bundleMasker(ctx, user, id)
	return def, m, err
}

// bundleLogMeta returns what a bundle's log lines are written with (its
// owner, group and name) and the masker of the reader.
func (s *Server) bundleLogMeta(ctx context.Context, reader, id string) (user, group, app string, m *redact.Masker, err error) {
	if s.bundles == nil {
		return "", "", "", nil, errNoBundles()
	}
	if user, group, _, err = s.bundles.BundleOwner(ctx, id); err != nil {
		return "", "", "", nil, err
	}
	if info, err := s.bundles.BundleJobInfo(ctx, id); err == nil {
		app = string(info.BundleJobName)
	}
	m, err = s.bundleMasker(ctx, reader, id)
	return user, group, app, m, err
}

// bundleRerun answers bundle-rerun (and rerun of a bundle id, which
// Oozie's servlet routes the same way): coord-scope, date-scope, and the
// refresh and nocleanup flags, true only when "true" (rest-api.md 4.2).
func (s *Server) bundleRerun(r *http.Request, id string) error {
	if err := requireXML(r); err != nil {
		return err
	}
	q := r.URL.Query()
	return s.bundles.BundleRerun(r.Context(), id, q.Get("coord-scope"), q.Get("date-scope"),
		q.Get("refresh") == "true", q.Get("nocleanup") == "true")
}

// bundleList is the bundle page of the jobs list, dates in loc.
func (s *Server) bundleList(ctx context.Context, f store.JobFilter, loc *time.Location) (*rest.JobList, error) {
	if s.bundles == nil {
		return nil, errNoBundles()
	}
	jobs, total, err := s.bundles.BundleJobList(ctx, f)
	if err != nil {
		return nil, err
	}
	if jobs == nil {
		jobs = []*rest.BundleJob{}
	}
	for _, j := range jobs {
		j.In(loc)
	}
	return &rest.JobList{BundleJobs: jobs, Total: total}, nil
}

// bundleIDs returns the ids of the bundles of a filtered page the caller
// may change (bulk modify).
func (s *Server) bundleIDs(ctx context.Context, user string, f store.JobFilter) ([]string, error) {
	if s.bundles == nil {
		return nil, errNoBundles()
	}
	jobs, _, err := s.bundles.BundleJobList(ctx, f)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, j := range jobs {
		id := j.BundleJobID
		if id == "" {
			continue
		}
		if u, g, acl, err := s.bundles.BundleOwner(ctx, id); err == nil && s.auth.mayModify(user, u, g, acl) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
