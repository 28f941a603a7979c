package coord

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// ParseFrequency reads a coordinator or dataset frequency attribute: EL text
// evaluated in the coord-job-submit-freq phase (${coord:days(1)},
// ${coord:hours(2) * 3}, job properties as variables), a number of minutes,
// or a five-field cron expression. The unit and end-of flag come from the
// frequency function that ran, as in Oozie.
func ParseFrequency(text string, vars el.Resolver) (schedule.Frequency, error) {
	if !el.HasExpr(text) {
		return schedule.ValidateFrequency(strings.TrimSpace(text))
	}
	ctx := &ELContext{Vars: vars}
	out, err := Eval(PhaseSubmitFreq, ctx, text)
	if err != nil {
		return schedule.Frequency{}, err
	}
	out = strings.TrimSpace(out)
	n, err := strconv.Atoi(out)
	if err != nil {
		if schedule.IsCronSyntax(out) {
			return schedule.ValidateFrequency(out)
		}
		return schedule.Frequency{}, fmt.Errorf("invalid frequency %q: evaluates to %q, not a number of units", text, out)
	}
	if n <= 0 {
		return schedule.Frequency{}, fmt.Errorf("invalid frequency %q: must be positive, got %d", text, n)
	}
	f := schedule.Frequency{N: n, Unit: ctx.TimeUnit, End: ctx.EndOfDuration}
	if f.Unit == 0 {
		f.Unit = schedule.Minute
	}
	return f, nil
}
