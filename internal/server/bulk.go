package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Bulk monitoring (GET /jobs?bulk=, rest-api.md 3.4): the coordinator
// actions of one bundle's coordinators, selected by coordinator name,
// action status (default KILLED and FAILED) and created and nominal time
// windows, each with its bundle and its coordinator, paged.

// bulkFilter is a parsed bulk parameter.
type bulkFilter struct {
	bundle       string
	coordinators []string
	statuses     []string
	// Windows of the actions' created and nominal times; zero: open.
	createdFrom, createdTo, nominalFrom, nominalTo time.Time
}

// bulkKeys are the names the bulk parameter accepts (case-insensitive).
var bulkKeys = []string{"bundle", "coordinators", "actionstatus", "startcreatedtime", "endcreatedtime",
	"startscheduledtime", "endscheduledtime", "filterlevel"}

// parseBulk reads k=v;k=v with comma lists as values: an unknown name, a
// bad time (yyyy-MM-ddTHH:mmZ) or action status, or an empty value is 400
// E0420; no bundle is 400 E0305.
func parseBulk(v string) (*bulkFilter, error) {
	bad := func(tok, why string) error {
		return errorf(http.StatusBadRequest, "E0420", "Invalid jobs filter [%s], %s", tok, why)
	}
	f := &bulkFilter{}
	for _, tok := range strings.Split(v, ";") {
		if tok == "" {
			continue
		}
		parts := strings.Split(tok, "=")
		if len(parts) != 2 {
			return nil, bad(tok, "elements must be name=value pairs")
		}
		name := strings.ToLower(strings.TrimSpace(parts[0]))
		if !slices.Contains(bulkKeys, name) {
			return nil, bad(tok, "invalid parameter name ["+name+"]")
		}
		var values []string
		for _, x := range strings.Split(parts[1], ",") {
			if x = strings.TrimSpace(x); x == "" {
				return nil, bad(tok, "value is empty or whitespace")
			}
			values = append(values, x)
		}
		if strings.Contains(name, "time") {
			t, err := time.Parse("2006-01-02T15:04Z", values[0])
			if err != nil {
				return nil, bad(tok, "invalid value ["+values[0]+"] for time. A datetime value of pattern [yyyy-MM-dd'T'HH:mm'Z'] is expected")
			}
			*map[string]*time.Time{"startcreatedtime": &f.createdFrom, "endcreatedtime": &f.createdTo,
				"startscheduledtime": &f.nominalFrom, "endscheduledtime": &f.nominalTo}[name] = t
			continue
		}
		switch name {
		case "bundle":
			if f.bundle == "" {
				f.bundle = values[0] // one bundle, as Oozie reads it
			}
		case "coordinators":
			f.coordinators = append(f.coordinators, values...)
		case "actionstatus":
			for _, s := range values {
				if !vocab.Known[vocab.CoordActionStatus](s) {
					return nil, bad(tok, "invalid action status ["+s+"]")
				}
			}
			f.statuses = append(f.statuses, values...)
		}
	}
	if f.bundle == "" {
		return nil, errMissingParam("bundle")
	}
	if len(f.statuses) == 0 {
		f.statuses = []string{"KILLED", "FAILED"}
	}
	return f, nil
}

// keep reports whether an action's times are inside the filter's windows.
func (f *bulkFilter) keep(a *rest.CoordAction) bool {
	in := func(t, from, to time.Time) bool {
		return (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to))
	}
	return in(a.CreatedTime.Time, f.createdFrom, f.createdTo) && in(a.NominalTime.Time, f.nominalFrom, f.nominalTo)
}

// bulkMonitor answers GET /jobs?bulk=.
func (s *Server) bulkMonitor(w http.ResponseWriter, r *http.Request, c *call) error {
	if s.bundles == nil {
		return errNoBundles()
	}
	if s.coords == nil {
		return errNoCoordinators()
	}
	f, err := parseBulk(r.URL.Query().Get("bulk"))
	if err != nil {
		return err
	}
	offset, length, err := pageParams(r, 50)
	if err != nil {
		return err
	}
	ctx := r.Context()
	b, err := s.bulkBundle(ctx, f.bundle)
	if err != nil {
		return err
	}
	m, err := s.bundleMasker(ctx, c.user, b.BundleJobID)
	if err != nil {
		return err
	}
	all, err := s.bulkActions(ctx, b, f, m)
	if err != nil {
		return err
	}
	page := []rest.BulkResponse{}
	if from := offset - 1; from < len(all) {
		page = all[from:min(len(all), from+length)]
	}
	writeJSON(w, rest.BulkList{Responses: page, Total: len(all), Offset: offset, Len: length})
	return nil
}

// bulkBundle finds the bundle of a bulk request by id or by name; no
// bundle, or several of that name, is 400 E0603 as in Oozie.
func (s *Server) bulkBundle(ctx context.Context, nameOrID string) (*rest.BundleJob, error) {
	if vocab.IsBundleJob(nameOrID) {
		b, err := s.bundles.BundleJobInfo(ctx, nameOrID)
		if vocab.CodeOf(err) == vocab.CodeJobNotFound {
			return nil, errorf(http.StatusBadRequest, "E0603", "No bundle entries found for bundle [%s]", nameOrID)
		}
		return b, err
	}
	list, _, err := s.bundles.BundleJobList(ctx, store.JobFilter{Names: []string{nameOrID}, Limit: 2, Brief: true})
	if err != nil {
		return nil, err
	}
	switch len(list) {
	case 0:
		return nil, errorf(http.StatusBadRequest, "E0603", "No bundle entries found for bundle [%s]", nameOrID)
	case 1:
		return s.bundles.BundleJobInfo(ctx, list[0].BundleJobID)
	}
	return nil, errorf(http.StatusBadRequest, "E0603", "Non-unique bundles present for bundle name [%s]: use its id", nameOrID)
}

// bulkAction is the action bean of a bulk answer: the fields Oozie's
// carries (no configurations), its error message masked by m.
func bulkAction(a *rest.CoordAction, m *redact.Masker) rest.CoordAction {
	out := rest.CoordAction{ID: a.ID, CoordJobID: a.CoordJobID, ActionNumber: a.ActionNumber, ErrorCode: a.ErrorCode,
		ErrorMessage: a.ErrorMessage, ExternalID: a.ExternalID, ExternalStatus: a.ExternalStatus, Status: a.Status,
		CreatedTime: a.CreatedTime, NominalTime: a.NominalTime, MissingDependencies: a.MissingDependencies, ToString: a.ToString}
	if m != nil {
		out.ErrorMessage = maskStr(out.ErrorMessage, m.Text)
	}
	return out
}

// bulkPage is how many actions bulkActions reads of a coordinator at a
// time.
const bulkPage = 1000

// bulkActions lists the matching actions of the bundle's coordinators,
// by coordinator id and then action creation, as Oozie orders them. The
// inner beans carry what Oozie's answer carries: the bundle's id, name
// and status, the coordinator's, and the action's own fields.
func (s *Server) bulkActions(ctx context.Context, b *rest.BundleJob, f *bulkFilter, m *redact.Masker) ([]rest.BulkResponse, error) {
	coords := slices.Clone(b.BundleCoordJobs)
	slices.SortFunc(coords, func(x, y *rest.CoordJob) int { return strings.Compare(x.CoordJobID, y.CoordJobID) })
	bundle := rest.BundleJob{BundleJobID: b.BundleJobID, BundleJobName: b.BundleJobName, Status: b.Status,
		BundleCoordJobs: []*rest.CoordJob{}}
	var out []rest.BulkResponse
	for _, c := range coords {
		if c.CoordJobID == "" {
			continue // not submitted yet: no actions
		}
		if len(f.coordinators) > 0 && !slices.Contains(f.coordinators, string(c.CoordJobName)) && !slices.Contains(f.coordinators, c.CoordJobID) {
			continue
		}
		coord := rest.CoordJob{CoordJobID: c.CoordJobID, CoordJobName: c.CoordJobName, Status: c.Status,
			BundleID: rest.Str(b.BundleJobID), Actions: []*rest.CoordAction{}}
		var acts []*rest.CoordAction
		for offset := 1; ; offset += bulkPage {
			info, err := s.coords.CoordJobInfo(ctx, c.CoordJobID, offset, bulkPage, false, f.statuses)
			if err != nil {
				return nil, err
			}
			acts = append(acts, info.Actions...)
			if len(info.Actions) < bulkPage {
				break
			}
		}
		slices.SortStableFunc(acts, func(x, y *rest.CoordAction) int { return x.CreatedTime.Compare(y.CreatedTime.Time) })
		for _, a := range acts {
			if f.keep(a) {
				out = append(out, rest.BulkResponse{Bundle: bundle, Coord: coord, Action: bulkAction(a, m)})
			}
		}
	}
	return out, nil
}
