package coordengine

import (
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// applySubmitControls sets what a job continued from elsewhere is
// submitted with (vocab.PropCoordMaterializeFrom, PropCoordPauseTime,
// PropCoordSubmitSuspended, written by `gozie migrate`) on the job about
// to be stored: its first materialization, pause time and PREPSUSPENDED
// status. Bad values refuse the submission with E1003.
func applySubmitControls(j *store.CoordJob, app *coord.App, props *conf.Config) error {
	if v, ok := props.Get(vocab.PropCoordMaterializeFrom); ok && strings.TrimSpace(v) != "" {
		t, err := schedule.ParseTime(strings.TrimSpace(v))
		if err != nil {
			return errorf(coord.CodeInvalidAttrs, "Invalid coordinator application attributes, property [%s] = [%s]: a UTC datetime such as 2030-01-01T00:00Z is expected",
				vocab.PropCoordMaterializeFrom, v)
		}
		f := app.MaterializeFrom(t)
		j.NextMaterializedTime, j.LastActionNumber, j.DoneMaterialization = f.NextMaterializedTime, f.LastActionNumber, f.Done
	}
	if v, ok := props.Get(vocab.PropCoordPauseTime); ok && strings.TrimSpace(v) != "" {
		t, err := schedule.ParseTime(strings.TrimSpace(v))
		if err != nil {
			return errorf(coord.CodeInvalidAttrs, "Invalid coordinator application attributes, property [%s] = [%s]: a UTC datetime such as 2030-01-01T00:00Z is expected",
				vocab.PropCoordPauseTime, v)
		}
		j.PauseTime = t
	}
	if v, ok := props.Get(vocab.PropCoordSubmitSuspended); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			j.Status = store.CoordPrepSuspended
			j.SuspendedTime = j.CreatedTime
		case "false", "":
		default:
			return errorf(coord.CodeInvalidAttrs, "Invalid coordinator application attributes, property [%s] = [%s]: true or false is expected",
				vocab.PropCoordSubmitSuspended, v)
		}
	}
	return nil
}
