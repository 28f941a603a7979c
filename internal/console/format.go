package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"
)

// funcs are the template helpers.
var funcs = template.FuncMap{
	"jobURL": jobURL,
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	// when is a time that may wrap between its date and its time of day.
	"when": func(t time.Time) template.HTML {
		if t.IsZero() {
			return "-"
		}
		u := t.UTC()
		return template.HTML(`<span class="nw">` + u.Format(time.DateOnly) + `</span> <span class="nw">` + u.Format(time.TimeOnly) + `</span>`)
	},
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
	"status": func(s string) string {
		switch s {
		case "SUCCEEDED", "OK", "DONE":
			return "st-ok"
		case "FAILED", "KILLED", "ERROR", "FAILED_KILLED", "TIMEDOUT", "DONEWITHERROR", "RUNNINGWITHERROR",
			"SUSPENDEDWITHERROR", "PAUSEDWITHERROR", "START_MANUAL", "END_MANUAL":
			return "st-bad"
		case "RUNNING", "READY", "SUBMITTED", "PREP", "START_RETRY", "END_RETRY":
			return "st-run"
		case "SUSPENDED", "PREPSUSPENDED", "PAUSED", "PREPPAUSED", "WAITING":
			return "st-wait"
		}
		return "st-other"
	},
	"terminal": func(s string) bool {
		switch s {
		case "SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED":
			return true
		}
		return false
	},
	"pathEscape": url.PathEscape,
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
