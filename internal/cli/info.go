package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/gozie/gozie/internal/schedule"
)

// runInfo is gozie info -timezones: every time zone identifier gozie
// understands, in the format of the oozie command (spec: coord 4.2 requires such a
// tool). The list comes from the tzdata embedded in the binary, so it is the
// same on a machine without /usr/share/zoneinfo.
func runInfo(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("info", "-timezones", stderr)
	timezones := fs.Bool("timezones", false, "list the supported time zone identifiers")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 || !*timezones {
		fmt.Fprintln(stderr, "Error: info needs -timezones")
		fs.Usage()
		return exitUsage
	}
	fmt.Fprintln(stdout, `The format is "SHORT_NAME (ID)"`)
	fmt.Fprintln(stdout, "Give the ID (GMT, UTC or Region/City)to the -timezone argument")
	fmt.Fprintln(stdout, "GMT offsets can also be used (e.g. GMT-07:00, GMT-0700, GMT+05:30, GMT+0530)")
	fmt.Fprintln(stdout, "Available Time Zones:")
	// The short names are those of standard time in the current year; the
	// CLI may read the clock, the schedule package may not.
	for _, z := range schedule.AvailableZones(time.Now()) {
		fmt.Fprintf(stdout, "      %s\n", z.DisplayName)
	}
	return exitOK
}
