package server

import (
	"net/http"
	"time"

	"github.com/gozie/gozie/internal/schedule"
)

// zoneParam is the location of the timezone query parameter; GMT when
// absent or unknown, as Java's TimeZone.getTimeZone (rest-api.md 0.6).
// The beans show their dates in it (rest.Time.In).
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
