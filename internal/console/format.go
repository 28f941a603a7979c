package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/vocab"
)

// funcs are the template helpers.
var funcs = template.FuncMap{
	"jobURL": jobURL,
	// when is the one way the console writes a time: UTC, date and time
	// of day to the second, in a <time> element with the exact instant;
	// it may wrap between its date and its time of day, never inside
	// either. rest.Time values pass their .Time.
	"when":     when,
	"duration": duration,
	// ptr is a bean value (rest.Str, rest.Text, rest.Time), "-" when
	// unset.
	"ptr": func(v fmt.Stringer) string {
		if s := v.String(); s != "" {
			return s
		}
		return "-"
	},
	"dash": func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	},
	// status is the CSS class of a status: the colour is a hint, the
	// status text is always shown beside it.
	"status": statusClass,
	// glyph is a mark for a status square too small for its text, so
	// that the status does not rest on colour alone.
	"glyph": func(s string) string {
		switch statusClass(s) {
		case "st-ok":
			return "✓"
		case "st-bad":
			return "✗"
		case "st-run":
			return "▸"
		case "st-wait":
			return "…"
		}
		return "·"
	},
	"terminal": func(s string) bool {
		switch s {
		case "SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED":
			return true
		}
		return false
	},
	"pathEscape": url.PathEscape,
	// ms is a duration in milliseconds as the console writes durations,
	// "-" for -1 (unknown).
	"ms": func(ms int64) string {
		if ms < 0 {
			return "-"
		}
		return duration(time.UnixMilli(0), time.UnixMilli(ms), time.Time{})
	},
	// slaClass is the CSS class of an SLA status.
	"slaClass": func(s string) string {
		switch s {
		case "MET":
			return "st-ok"
		case "MISS":
			return "st-bad"
		case "IN_PROCESS":
			return "st-run"
		}
		return "st-other"
	},
	// parentOf is the job a parent id belongs to: a coordinator action's
	// coordinator, so that "all" lists every workflow it launched.
	"parentOf": vocab.JobOf,
	"label": func(act string) string {
		switch act {
		case "rerun-failed":
			return "Rerun failed nodes"
		case "rerun-skip":
			return "Rerun"
		case "coord-rerun":
			return "Rerun actions"
		}
		return strings.ToUpper(act[:1]) + act[1:]
	},
}

// when writes t as the console writes every time (see funcs); "-" for the
// zero time.
func when(t time.Time) template.HTML {
	if t.IsZero() {
		return "-"
	}
	u := t.UTC()
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `"><span class="nw">` + u.Format(time.DateOnly) +
		`</span> <span class="nw">` + u.Format(time.TimeOnly) + `</span></time>`)
}

// duration is how long something that started at start took: until end,
// or until now while it has not ended; "-" when it has not started. It
// is short and reads at a glance ("42s", "3m 05s", "2h 04m", "3d 04h").
func duration(start, end, now time.Time) string {
	if start.IsZero() {
		return "-"
	}
	if end.IsZero() {
		end = now
	}
	d := end.Sub(start)
	switch {
	case d < 0:
		return "-"
	case d < time.Second:
		return "<1s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd %02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// statusClass is the CSS class of a status: the colour is a hint, the
// status text is always shown beside it.
func statusClass(s string) string {
	switch s {
	case "SUCCEEDED", "OK", "DONE":
		return "st-ok"
	case "FAILED", "KILLED", "ERROR", "FAILED_KILLED", "TIMEDOUT", "DONEWITHERROR", "RUNNINGWITHERROR",
		"SUSPENDEDWITHERROR", "PAUSEDWITHERROR", "START_MANUAL", "END_MANUAL":
		return "st-bad"
	case "RUNNING", "READY", "SUBMITTED", "PREP", "START_RETRY", "END_RETRY", "USER_RETRY":
		return "st-run"
	case "SUSPENDED", "PREPSUSPENDED", "PAUSED", "PREPPAUSED", "WAITING":
		return "st-wait"
	}
	return "st-other"
}
