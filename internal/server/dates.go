package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/schedule"
)

// zoneParam is the location of the timezone query parameter; GMT when
// absent or unknown, as Java's TimeZone.getTimeZone (rest-api.md 0.6).
func zoneParam(r *http.Request) *time.Location {
	id := r.URL.Query().Get("timezone")
	if id == "" || id == "GMT" || id == "UTC" {
		return nil
	}
	loc, err := schedule.LoadZone(id)
	if err != nil {
		return nil
	}
	return loc
}

// localDateLayout is the REST date format with the zone's short name.
const localDateLayout = "Mon, 02 Jan 2006 15:04:05 MST"

// localize rewrites a GMT REST date in loc.
func localize(p *string, loc *time.Location) {
	if p == nil || loc == nil {
		return
	}
	t, err := time.Parse(engine.DateLayout, *p)
	if err != nil {
		return
	}
	*p = t.In(loc).Format(localDateLayout)
}

// localizeJob rewrites every date of a workflow job object in loc (nil
// keeps GMT).
func localizeJob(j *engine.JobJSON, loc *time.Location) {
	if loc == nil {
		return
	}
	for _, p := range []*string{j.LastModTime, j.CreatedTime, j.StartTime, j.EndTime} {
		localize(p, loc)
	}
	for _, a := range j.Actions {
		localizeAction(a, loc)
	}
}

func localizeAction(a *engine.ActionJSON, loc *time.Location) {
	if loc == nil {
		return
	}
	localize(a.StartTime, loc)
	localize(a.EndTime, loc)
}

// localizeAny rewrites every REST date string inside a JSON value of any
// Go type (the coordinator objects) in loc; nil keeps it as it is.
func localizeAny(v any, loc *time.Location) any {
	if loc == nil {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return walkDates(out, loc)
}

func walkDates(v any, loc *time.Location) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = walkDates(e, loc)
		}
	case []any:
		for i, e := range x {
			x[i] = walkDates(e, loc)
		}
	case string:
		if t, err := time.Parse(engine.DateLayout, x); err == nil {
			return t.In(loc).Format(localDateLayout)
		}
	}
	return v
}
