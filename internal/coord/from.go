package coord

import (
	"time"

	"github.com/gozie/gozie/internal/schedule"
)

// From is where materialization of a job submitted with a first
// materialization time starts: NextMaterializedTime is the first nominal
// time at or after it (for a cron frequency, the first fire time), and
// LastActionNumber is the number of nominal times before it, so that the
// first action materialized is numbered as it would have been had the job
// run from its start. The job's start is unchanged, so coord:nominalTime,
// dataset instances and the unit schedule stay those of the definition.
type From struct {
	NextMaterializedTime time.Time
	LastActionNumber     int
	// Done is set when no nominal time at or after the time is before
	// the job's end: the job has nothing left to materialize.
	Done bool
}

// MaterializeFrom computes the job's starting point when its first
// materialization is t (gozie.coord.materialize.from, written by `gozie
// migrate`: the periods before t ran elsewhere). A t at or before the
// first nominal time changes nothing: the job starts at its start, as
// submitted without it.
func (a *App) MaterializeFrom(t time.Time) From {
	start := From{NextMaterializedTime: a.Start, Done: !a.Start.Before(a.End)}
	if t.IsZero() || !t.After(a.Start) {
		return start
	}
	var f From
	if a.Freq.Unit == schedule.CronUnit {
		f = a.cronFrom(t)
	} else {
		if a.Freq.N <= 0 {
			return start
		}
		f = a.unitFrom(t)
	}
	if f.LastActionNumber == 0 {
		return start
	}
	f.Done = !f.NextMaterializedTime.Before(a.End)
	return f
}

// unitFrom finds the smallest index i with Nominal(i) >= t by doubling,
// then bisecting: nominal times of a unit schedule grow with the index,
// and each is computed from the start in one step, as materialization
// does (walk).
func (a *App) unitFrom(t time.Time) From {
	s := schedule.Schedule{Start: a.Start, End: a.End, Freq: a.Freq, Loc: a.Location}
	if !s.Nominal(0).Before(t) {
		return From{NextMaterializedTime: a.Start}
	}
	lo, hi := 0, 1 // Nominal(lo) < t
	for s.Nominal(hi).Before(t) {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if s.Nominal(mid).Before(t) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return From{NextMaterializedTime: s.Nominal(hi), LastActionNumber: hi}
}

// cronFrom counts the fire times before t from the job start, searching
// as materialization does (from the start minus a minute, each next fire
// strictly after the previous one), and returns the first fire at or
// after t, or the job's end when the expression fires no more.
func (a *App) cronFrom(t time.Time) From {
	if a.Freq.Cron == nil {
		return From{NextMaterializedTime: a.Start}
	}
	pz := a.Processing.Location()
	cur := a.Start.Add(-time.Minute)
	n := 0
	for {
		fire, ok := a.Freq.Cron.Next(cur, pz)
		if !ok {
			return From{NextMaterializedTime: a.End, LastActionNumber: n}
		}
		if !fire.Before(t) || !fire.Before(a.End) {
			return From{NextMaterializedTime: fire, LastActionNumber: n}
		}
		n++
		cur = fire
	}
}
