package sla

import (
	"strings"
	"time"

	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// The keys of an sla-change value, as Oozie's REST API and -slachange
// name them. The same names without the "sla-" prefix are accepted too.
const (
	ChangeNominalTime = "sla-nominal-time"
	ChangeShouldStart = "sla-should-start"
	ChangeShouldEnd   = "sla-should-end"
	ChangeMaxDuration = "sla-max-duration"
)

// ParseChange reads an sla-change value, "key=value;key=value", into its
// pairs, keys normalized to their "sla-" form. A pair without "=", a
// repeated key or an empty value list is an E1015, an unknown key an
// E1027, as Oozie answers them.
func ParseChange(value string) (map[string]string, error) {
	if strings.TrimSpace(value) == "" {
		return nil, vocab.Errorf("E1015", "Invalid coordinator job change value %s, %s", value, "change value can not be empty")
	}
	out := map[string]string{}
	for _, tok := range strings.Split(value, ";") {
		if tok == "" {
			continue // a trailing ";", which Oozie's split drops too
		}
		key, val, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, vocab.Errorf("E1015", "Invalid coordinator job change value %s, %s", value,
				"change value must be name=value pair or name=(empty string)")
		}
		if strings.Contains(val, "=") {
			return nil, vocab.Errorf("E1015", "Invalid coordinator job change value %s, elements on %s %s", value, key,
				"must be name=value pair or name=(empty string)")
		}
		norm := key
		if !strings.HasPrefix(norm, "sla-") {
			norm = "sla-" + norm
		}
		switch norm {
		case ChangeNominalTime, ChangeShouldStart, ChangeShouldEnd, ChangeMaxDuration:
		default:
			return nil, vocab.Errorf("E1027", "SLA change command failed. Unsupported parameter %s", key)
		}
		if _, dup := out[norm]; dup {
			return nil, vocab.Errorf("E1015", "Invalid coordinator job change value %s, can not specify repeated change values on %s", value, key)
		}
		out[norm] = strings.TrimSpace(val)
	}
	return out, nil
}

// Change applies an sla-change value to s (keys: sla-nominal-time, a
// datetime; sla-should-start, sla-should-end and sla-max-duration,
// numbers of minutes after EL, as in <sla:info>) and recomputes
// NextCheck.
//
// As Oozie applies it: should-start and should-end given are counted from
// the new nominal time when one is given, else from the old one; a
// nominal time given alone moves no deadline. max-duration given sets
// the expected duration as in <sla:info> (0 or less: none; empty: the
// time between the expected start and end). Without max-duration, a
// duration that was derived from the expected start and end follows them;
// an explicit one stays (Oozie would derive it again, losing the value
// the user set). Criteria already decided stay decided; the open ones are
// judged against the new expectations from the next Step on.
//
// On error s is left unchanged.
func Change(s *store.SLA, value string, now time.Time) error {
	params, err := ParseChange(value)
	if err != nil {
		return err
	}
	r := *s
	derived := !s.ExpectedStart.IsZero() && s.ExpectedDurationMs >= 0 &&
		s.ExpectedDurationMs == s.ExpectedEnd.Sub(s.ExpectedStart).Milliseconds()
	nominal := r.NominalTime
	if v, ok := params[ChangeNominalTime]; ok && v != "" {
		if nominal, err = schedule.ParseTime(v); err != nil {
			return vocab.Errorf("E0302", "Invalid parameter [nominal-time %q: %v]", v, err)
		}
		r.NominalTime = nominal
	}
	if v, ok := params[ChangeShouldStart]; ok {
		if r.ExpectedStart, err = offsetFrom(nominal, "should-start", v); err != nil {
			return err
		}
	}
	if v, ok := params[ChangeShouldEnd]; ok {
		if r.ExpectedEnd, err = offsetFrom(nominal, "should-end", v); err != nil {
			return err
		}
	}
	if v, ok := params[ChangeMaxDuration]; ok {
		// An empty value derives the duration, as an absent max-duration
		// in <sla:info>; 0 or less removes the criterion.
		if r.ExpectedDurationMs, err = duration(&r, v); err != nil {
			return err
		}
	} else if derived {
		r.ExpectedDurationMs, _ = duration(&r, "")
	}
	r.NextCheck = nextCheck(&r)
	r.LastModTime = now
	*s = r
	return nil
}
