package server

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/console"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
)

// SLAs is the SLA tracker as the server sees it (Options.SLAs): the
// records GET /v2/sla lists and the sla-enable, sla-disable and
// sla-change job commands.
type SLAs interface {
	// SLAList returns the records f selects, in f's order.
	SLAList(ctx context.Context, f store.SLAFilter) ([]*store.SLA, error)
	// SLAEnable turns the alerts of the records of jobID that scope
	// selects on (enable) or off.
	SLAEnable(ctx context.Context, jobID string, scope sla.Scope, enable bool) error
	// SLAChange changes the expectations of the records of jobID that
	// scope selects; value is "sla-key=v;sla-key=v" (rest-api.md 4.2).
	SLAChange(ctx context.Context, jobID string, scope sla.Scope, value string) error
}

// slaLen is GET /v2/sla's default number of records (rest-api.md 7.8).
const slaLen = 1000

// slaChangeKeys are the keys sla-change's value may set (rest-api.md
// 4.2): Oozie refuses any other with E1027.
var slaChangeKeys = map[string]bool{"sla-nominal-time": true, "sla-should-start": true, "sla-should-end": true, "sla-max-duration": true}

// slaSortBy are the sortby values of GET /v2/sla (rest-api.md 7.7): the
// names of the fields of Oozie's summary bean.
var slaSortBy = map[string]bool{"actualDuration": true, "actualEndTS": true, "actualStartTS": true, "appName": true,
	"appType": true, "createdTimeTS": true, "eventProcessed": true, "eventStatus": true, "expectedDuration": true,
	"expectedEndTS": true, "expectedStartTS": true, "jobId": true, "jobStatus": true, "lastModifiedTS": true,
	"nominalTimeTS": true, "parentId": true, "slaStatus": true, "user": true}

// slaEventStatuses and slaStatuses are the values of the event_status
// and sla_status filters (DG_SLAMonitoring).
var (
	slaEventStatuses = map[string]bool{"START_MET": true, "START_MISS": true, "DURATION_MET": true, "DURATION_MISS": true, "END_MET": true, "END_MISS": true}
	slaStatuses      = map[string]bool{"NOT_STARTED": true, "IN_PROCESS": true, "MET": true, "MISS": true}
)

// bundleIDPattern tells a bundle id from a bundle name in the bundle
// filter (rest-api.md 6).
var bundleIDPattern = regexp.MustCompile(`^\d{7}-\d{15}-.{1,10}-B$`)

// errNoSLA refuses the SLA requests of a server without an SLA tracker.
func errNoSLA() *apiError {
	return errorf(http.StatusBadRequest, "E1027", "SLA change command failed. this server does not monitor SLAs: no SLA tracker is configured")
}

// handleSLA answers GET /oozie/v2/sla (rest-api.md 5.7, 7.7). Any
// authenticated user may read it, as Oozie's servlet checks no job's
// rights.
func (s *Server) handleSLA(w http.ResponseWriter, r *http.Request, c *call) error {
	if r.Method != http.MethodGet {
		return errorf(http.StatusMethodNotAllowed, "E0301", "Invalid resource [%s]: method %s not allowed", r.URL.Path, r.Method)
	}
	if s.opts.SLAs == nil {
		return errorf(http.StatusNotFound, "E0301", "Invalid resource [%s]: this server does not monitor SLAs", r.URL.Path)
	}
	f, err := s.slaFilter(r.Context(), r)
	if err != nil {
		return err
	}
	recs, err := s.opts.SLAs.SLAList(r.Context(), f)
	if err != nil {
		return err
	}
	now := s.opts.Now()
	out := rest.SLASummaryList{SLASummaryList: make([]*rest.SLASummary, 0, len(recs))}
	tz, zoned := r.URL.Query()["timezone"]
	for _, rec := range recs {
		b := console.SLASummary(rec, now)
		if zoned {
			// Any timezone parameter, even GMT, turns the numbers into
			// date strings; an unknown zone is GMT (rest-api.md 0.6).
			loc, _ := schedule.LoadZone(tz[0])
			b.In(loc)
		}
		out.SLASummaryList = append(out.SLASummaryList, b)
	}
	writeJSON(w, out)
	return nil
}

// slaFilter parses GET /v2/sla's parameters (rest-api.md 7.7): filter,
// required, of name=value pairs separated by ';' (unknown name or no
// '=': E0401; bad value: E0303), len, offset (1-based, gozie's), sortby
// and order.
func (s *Server) slaFilter(ctx context.Context, r *http.Request) (store.SLAFilter, error) {
	q := r.URL.Query()
	f := store.SLAFilter{Limit: slaLen, ActualDurationMin: -1, ActualDurationMax: -1,
		ExpectedDurationMin: -1, ExpectedDurationMax: -1, SortBy: "nominalTimeTS"}
	raw := q.Get("filter")
	if raw == "" {
		return f, errMissingParam("filter")
	}
	if v := q.Get("len"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, errParamValue("len", v)
		}
		f.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return f, errParamValue("offset", v)
		}
		f.Offset = max(n, 1) - 1
	}
	if v := q.Get("sortby"); v != "" {
		if !slaSortBy[v] {
			return f, errParamValue("sortby", v)
		}
		f.SortBy = v
	}
	switch v := q.Get("order"); v {
	case "", "asc":
	case "desc":
		f.Desc = true
	default:
		return f, errParamValue("order", v)
	}
	pairs, err := parseSLAFilter(raw)
	if err != nil {
		return f, err
	}
	for _, p := range pairs {
		if err := s.applySLAFilter(ctx, &f, p[0], p[1]); err != nil {
			return f, err
		}
	}
	return f, checkSLARanges(&f, raw)
}

// parseSLAFilter splits a filter into its name=value pairs, names as
// Oozie accepts them (lower case, exact).
func parseSLAFilter(raw string) ([][2]string, error) {
	var out [][2]string
	for _, tok := range strings.Split(raw, ";") {
		if tok == "" {
			continue
		}
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" || v == "" || strings.Contains(v, "=") {
			return nil, errorf(http.StatusBadRequest, "E0401", "Missing configuration property [elements must be name=value pairs: %s]", tok)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// slaTimeFilters are the date filters and the bounds they set.
var slaTimeFilters = map[string]func(f *store.SLAFilter) *time.Time{
	"nominal_after":        func(f *store.SLAFilter) *time.Time { return &f.NominalAfter },
	"nominal_start":        func(f *store.SLAFilter) *time.Time { return &f.NominalAfter },
	"nominal_before":       func(f *store.SLAFilter) *time.Time { return &f.NominalBefore },
	"nominal_end":          func(f *store.SLAFilter) *time.Time { return &f.NominalBefore },
	"created_after":        func(f *store.SLAFilter) *time.Time { return &f.CreatedAfter },
	"created_before":       func(f *store.SLAFilter) *time.Time { return &f.CreatedBefore },
	"expectedstart_after":  func(f *store.SLAFilter) *time.Time { return &f.ExpectedStartAfter },
	"expectedstart_before": func(f *store.SLAFilter) *time.Time { return &f.ExpectedStartBefore },
	"expectedend_after":    func(f *store.SLAFilter) *time.Time { return &f.ExpectedEndAfter },
	"expectedend_before":   func(f *store.SLAFilter) *time.Time { return &f.ExpectedEndBefore },
	"actualstart_after":    func(f *store.SLAFilter) *time.Time { return &f.ActualStartAfter },
	"actualstart_before":   func(f *store.SLAFilter) *time.Time { return &f.ActualStartBefore },
	"actualend_after":      func(f *store.SLAFilter) *time.Time { return &f.ActualEndAfter },
	"actualend_before":     func(f *store.SLAFilter) *time.Time { return &f.ActualEndBefore },
}

// slaDurationFilters are the duration filters (ms) and what they set.
var slaDurationFilters = map[string]func(f *store.SLAFilter) *int64{
	"actual_duration_min":   func(f *store.SLAFilter) *int64 { return &f.ActualDurationMin },
	"actual_duration_max":   func(f *store.SLAFilter) *int64 { return &f.ActualDurationMax },
	"expected_duration_min": func(f *store.SLAFilter) *int64 { return &f.ExpectedDurationMin },
	"expected_duration_max": func(f *store.SLAFilter) *int64 { return &f.ExpectedDurationMax },
}

// applySLAFilter sets what one filter pair selects.
func (s *Server) applySLAFilter(ctx context.Context, f *store.SLAFilter, k, v string) error {
	bad := func() error { return errParamValue("filter", k+"="+v) }
	if at, ok := slaTimeFilters[k]; ok {
		t, err := time.Parse("2006-01-02T15:04Z", v)
		if err != nil {
			return bad()
		}
		*at(f) = t
		return nil
	}
	if d, ok := slaDurationFilters[k]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return bad()
		}
		*d(f) = n
		return nil
	}
	switch k {
	case "id":
		f.IDs = append(f.IDs, v)
	case "parent_id":
		f.ParentIDs = append(f.ParentIDs, v)
	case "app_name":
		f.AppNames = append(f.AppNames, v)
	case "app_type":
		f.AppTypes = append(f.AppTypes, v)
	case "user_name":
		f.Users = append(f.Users, v)
	case "job_status":
		f.JobStatuses = append(f.JobStatuses, v)
	case "event_status", "sla_status":
		allowed, dst := slaEventStatuses, &f.EventStatuses
		if k == "sla_status" {
			allowed, dst = slaStatuses, &f.SLAStatuses
		}
		for _, e := range strings.Split(v, ",") {
			e = strings.TrimSpace(e)
			if !allowed[e] {
				return bad()
			}
			*dst = append(*dst, e)
		}
	case "bundle":
		ids, err := s.slaBundleIDs(ctx, v)
		if err != nil {
			return err
		}
		f.BundleIDs = append(f.BundleIDs, ids...)
	default:
		return errorf(http.StatusBadRequest, "E0401", "Missing configuration property [invalid/unsupported names in filter: %s]", k)
	}
	return nil
}

// slaBundleIDs is what the bundle filter selects: a bundle id itself,
// else the bundles of that name (none matches nothing, not everything).
func (s *Server) slaBundleIDs(ctx context.Context, v string) ([]string, error) {
	if bundleIDPattern.MatchString(v) || s.bundles == nil {
		return []string{v}, nil
	}
	jobs, _, err := s.bundles.BundleJobList(ctx, store.JobFilter{Names: []string{v}, Brief: true, Limit: 1000})
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		// An id no bundle has: the name matches no record.
		return []string{v}, nil
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.BundleJobID
	}
	return ids, nil
}

// checkSLARanges refuses a range whose lower bound is after its upper
// one (rest-api.md 7.7: *_after must be at most *_before).
func checkSLARanges(f *store.SLAFilter, raw string) error {
	for _, p := range [][2]time.Time{{f.NominalAfter, f.NominalBefore}, {f.CreatedAfter, f.CreatedBefore},
		{f.ExpectedStartAfter, f.ExpectedStartBefore}, {f.ExpectedEndAfter, f.ExpectedEndBefore},
		{f.ActualStartAfter, f.ActualStartBefore}, {f.ActualEndAfter, f.ActualEndBefore}} {
		if !p[0].IsZero() && !p[1].IsZero() && p[0].After(p[1]) {
			return errParamValue("filter", raw)
		}
	}
	for _, p := range [][2]int64{{f.ActualDurationMin, f.ActualDurationMax}, {f.ExpectedDurationMin, f.ExpectedDurationMax}} {
		if p[0] >= 0 && p[1] >= 0 && p[0] > p[1] {
			return errParamValue("filter", raw)
		}
	}
	return nil
}

// slaCommand performs sla-enable, sla-disable and sla-change on a job the
// caller may change (rest-api.md 4.2): action-list and date select a
// coordinator's actions, coordinators a bundle's coordinators.
func (s *Server) slaCommand(r *http.Request, id, act string) error {
	if s.opts.SLAs == nil {
		return errNoSLA()
	}
	q := r.URL.Query()
	scope := sla.Scope{Actions: q.Get("action-list"), Dates: q.Get("date"), Coordinators: q.Get("coordinators")}
	switch act {
	case "sla-enable", "sla-disable":
		return s.opts.SLAs.SLAEnable(r.Context(), id, scope, act == "sla-enable")
	}
	value := q.Get("value")
	if err := checkSLAChange(value); err != nil {
		return err
	}
	return s.opts.SLAs.SLAChange(r.Context(), id, scope, value)
}

// checkSLAChange refuses an sla-change value that is empty or sets
// another key than the four of rest-api.md 4.2 (E1027).
func checkSLAChange(value string) error {
	if strings.TrimSpace(value) == "" {
		return errorf(http.StatusBadRequest, "E1027", "SLA change command failed. no value given: sla-nominal-time, sla-should-start, sla-should-end or sla-max-duration")
	}
	for _, kv := range strings.Split(value, ";") {
		k, _, _ := strings.Cut(kv, "=")
		if !slaChangeKeys[strings.TrimSpace(k)] {
			return errorf(http.StatusBadRequest, "E1027", "SLA change command failed. Invalid key [%s]: sla-nominal-time, sla-should-start, sla-should-end or sla-max-duration expected", strings.TrimSpace(k))
		}
	}
	return nil
}
