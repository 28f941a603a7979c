package coordengine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// CodeCoordUpdate is Oozie's code for a refused coordinator update.
const CodeCoordUpdate = "E1023"

func coordUpdateError(format string, args ...any) *vocab.Error {
	return errorf(CodeCoordUpdate, "Coord Job update Error: ["+format+"]", args...)
}

// Banner lines of the update's diff, as Oozie's client users know them.
const (
	diffDefinitionHead = "**********Job definition changes**********\n"
	diffConfHead       = "**********Job conf changes****************\n"
	diffRule           = "******************************************\n"
)

// UpdateOptions say how CoordUpdate works.
type UpdateOptions struct {
	// DryRun reports the changes without making them.
	DryRun bool
	// ShowDiff returns the changes; without it CoordUpdate returns "".
	ShowDiff bool
	// OwnConf refuses, with an *vocab.ConfChangeError naming the
	// properties, a configuration that would differ from the job's: for a
	// caller who may have the job's definition read again but not change
	// what runs as its owner (run-as mode).
	OwnConf bool
}

// CoordUpdate re-reads the definition of coordinator job id from its
// application path and, when props is not empty, replaces the job's
// configuration with props (Oozie's coordinator update). The start and end
// times, frequency, time unit, time zone and name may not change (E1023);
// the definition, configuration, concurrency, throttle, timeout and
// execution order do, for the actions materialized from now on. The answer
// is the changes, in Oozie's layout, or "" without opts.ShowDiff.
func (e *Engine) CoordUpdate(ctx context.Context, id string, props *conf.Config, opts UpdateOptions) (string, error) {
	dryRun, showDiff := opts.DryRun, opts.ShowDiff
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return "", err
	}
	j := c.job
	if j.Status == store.CoordSucceeded || j.Status == store.CoordDoneWithError {
		return "", coordUpdateError("Can't update coord job. Job has finished processing")
	}
	old, err := conf.ParseXML(strings.NewReader(j.Conf), "job "+j.ID)
	if err != nil {
		return "", err
	}
	confChange := props != nil && len(props.Properties()) > 0
	if !confChange {
		props = old
	} else {
		props = props.Clone()
		// The owner stays the job's: an update changes what runs, not who
		// runs it.
		props.Set(vocab.PropUser, j.User)
		if v, _ := props.Get(vocab.PropCoordAppPath); strings.TrimSpace(v) == "" {
			props.Set(vocab.PropCoordAppPath, j.AppPath)
		}
	}
	if err := e.checkExpansion(props); err != nil {
		return "", err
	}
	if ctx, err = e.wf.JobUserContext(ctx, j.User); err != nil {
		return "", err
	}
	app, full, err := coord.Submit(props, coord.SubmitOptions{
		ReadFile:            e.readFile(ctx),
		Now:                 c.now,
		MinFrequencyMinutes: e.opts.MinFrequencyMinutes,
		MaxActionBytes:      e.maxAction,
	})
	if err != nil {
		var ce *coord.Error
		if errors.As(err, &ce) && ce.Code != "" && ce.Form == vocab.FormPlain {
			return "", &vocab.Error{Code: ce.Code, Msg: ce.Msg}
		}
		return "", err
	}
	if err := e.checkExpansion(full); err != nil {
		return "", err
	}
	if opts.OwnConf && confChange {
		if changed := confChanges(old, full); len(changed) > 0 {
			return "", &vocab.ConfChangeError{JobID: id, Names: changed}
		}
	}
	switch {
	case app.Frequency != j.Frequency:
		return "", coordUpdateError("Frequency can't be changed. Old frequency = %s new frequency = %s", j.Frequency, app.Frequency)
	case !app.End.Equal(j.EndTime):
		return "", coordUpdateError("End time can't be changed. Old end time = %s new end time = %s", fmtUTC(j.EndTime), fmtUTC(app.End))
	case !app.Start.Equal(j.StartTime):
		return "", coordUpdateError("Start time can't be changed. Old start time = %s new start time = %s", fmtUTC(j.StartTime), fmtUTC(app.Start))
	case app.Name != j.AppName:
		return "", coordUpdateError("Coord name can't be changed. Old name = %s new name = %s", j.AppName, app.Name)
	case app.TimeUnit != j.TimeUnit:
		return "", coordUpdateError("Timeunit can't be changed. Old Timeunit = %s new Timeunit = %s", j.TimeUnit, app.TimeUnit)
	case app.TimeZone != j.TimeZone:
		return "", coordUpdateError("TimeZone can't be changed. Old timeZone = %s new timeZone = %s", j.TimeZone, app.TimeZone)
	}
	var confXML strings.Builder
	if err := full.WriteXML(&confXML); err != nil {
		return "", err
	}
	var diff strings.Builder
	diff.WriteString(diffDefinitionHead)
	diff.WriteString(lineDiff(j.Definition, app.Definition))
	diff.WriteString(diffRule)
	diff.WriteString(diffConfHead)
	if confChange {
		diff.WriteString(lineDiff(j.Conf, confXML.String()))
	} else {
		diff.WriteString("No conf update requested\n")
	}
	diff.WriteString(diffRule)
	if !dryRun {
		j.AppPath, _ = full.Get(vocab.PropCoordAppPath)
		if confChange {
			j.Conf = confXML.String()
		}
		j.Definition = app.Definition
		j.Concurrency, j.Throttle, j.Timeout, j.Execution = app.Concurrency, app.Throttle, app.Timeout, app.Execution
		c.jobDirty = true
		c.log("", "INFO", "Coord update changes : %s", diff.String())
		if err := e.commitCoord(ctx, c); err != nil {
			return "", err
		}
	}
	if !showDiff {
		return "", nil
	}
	return diff.String(), nil
}

// confChanges names the properties added, changed or removed from a to b,
// sorted.
func confChanges(a, b *conf.Config) []string {
	var out []string
	for _, p := range b.Properties() {
		if v, ok := a.Raw(p.Name); !ok || v != p.Value {
			out = append(out, p.Name)
		}
	}
	for _, p := range a.Properties() {
		if !b.Has(p.Name) {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
