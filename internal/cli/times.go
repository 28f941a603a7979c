package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/schedule"
)

// timesEntry is one line of gozie times: an instant in UTC and in the
// requested zone.
type timesEntry struct {
	UTC           string `json:"utc"`
	Local         string `json:"local"`
	OffsetMinutes int    `json:"offsetMinutes"`
	Zone          string `json:"zone"` // abbreviation in effect ("PDT")
	DST           bool   `json:"dst"`
}

func newTimesEntry(t time.Time, loc *time.Location) timesEntry {
	lt := t.In(loc)
	name, off := lt.Zone()
	return timesEntry{
		UTC:           schedule.FormatTime(t),
		Local:         lt.Format("2006-01-02T15:04-0700"),
		OffsetMinutes: off / 60,
		Zone:          name,
		DST:           lt.IsDST(),
	}
}

// runTimes is gozie times, the datetime tool of spec: coord 7.3: the
// nominal times a frequency yields in a time zone (with exactly the
// semantics materialization uses), or one datetime converted to a zone.
func runTimes(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("times", "-frequency FREQ -start T [-end T] [-timezone TZ] [-n N] [-json]\n       gozie times -convert T -timezone TZ [-json]", stderr)
	freqText := fs.String("frequency", "", "frequency: ${coord:days(1)}-style EL, minutes, or a 5-field cron expression")
	startText := fs.String("start", "", "first nominal time, e.g. 2009-03-08T08:00Z")
	endText := fs.String("end", "", "end (exclusive); default: unbounded, print -n times")
	tzText := fs.String("timezone", "UTC", "job time zone (IANA id, GMT+hh:mm); day and month frequencies step in it")
	ptzText := fs.String("processing-timezone", "UTC", "Oozie processing time zone (UTC or GMT+hhmm): datetimes and cron use it")
	n := fs.Int("n", 10, "how many nominal times to print")
	convert := fs.String("convert", "", "convert this datetime to -timezone instead of listing nominal times")
	asJSON := fs.Bool("json", false, `print {"times":[{"utc":...,"local":...,"offsetMinutes":...}]}`)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "Error: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	pz, err := schedule.ParseProcessingZone(*ptzText)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	loc, err := schedule.LoadZone(*tzText)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	var entries []timesEntry
	switch {
	case *convert != "":
		if *freqText != "" || *startText != "" {
			fmt.Fprintln(stderr, "Error: -convert cannot be combined with -frequency or -start")
			return exitUsage
		}
		t, err := pz.Parse(*convert)
		if err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitUsage
		}
		entries = append(entries, newTimesEntry(t, loc))
	default:
		if *freqText == "" || *startText == "" {
			fmt.Fprintln(stderr, "Error: -frequency and -start are required (or use -convert)")
			fs.Usage()
			return exitUsage
		}
		if *n <= 0 {
			fmt.Fprintln(stderr, "Error: -n must be positive")
			return exitUsage
		}
		f, err := coord.ParseFrequency(*freqText, nil)
		if err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitFail
		}
		s := schedule.Schedule{Freq: f, Loc: loc, Processing: pz, End: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
		if s.Start, err = pz.Parse(*startText); err != nil {
			fmt.Fprintf(stderr, "Error: -start: %v\n", err)
			return exitUsage
		}
		if *endText != "" {
			if s.End, err = pz.Parse(*endText); err != nil {
				fmt.Fprintf(stderr, "Error: -end: %v\n", err)
				return exitUsage
			}
			if !s.Start.Before(s.End) {
				fmt.Fprintln(stderr, "Error: -start must be earlier than -end")
				return exitUsage
			}
		}
		for _, t := range s.Times() {
			entries = append(entries, newTimesEntry(t, loc))
			if len(entries) == *n {
				break
			}
		}
		if len(entries) == 0 && f.Cron != nil {
			fmt.Fprintf(stderr, "Error: E1003: frequency [%s] materializes no actions between start and end time\n", f)
			return exitFail
		}
	}
	if *asJSON {
		if entries == nil {
			entries = []timesEntry{}
		}
		b, _ := json.Marshal(map[string]any{"times": entries})
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	for _, e := range entries {
		dst := ""
		switch {
		case *convert != "" && e.DST:
			dst = "  daylight saving time in effect"
		case *convert != "":
			dst = "  standard time"
		case e.DST:
			dst = "  DST"
		}
		fmt.Fprintf(stdout, "%s  %s %s (%s)%s\n", e.UTC, e.Local, e.Zone, loc, dst)
	}
	return exitOK
}
