package engine

import (
	"fmt"
	"os/user"
	"strings"
	"time"
)

// jobIDTimeLayout is Oozie's yyMMddHHmmssSSS without the dot Go needs
// before fractional seconds.
const jobIDTimeLayout = "060102150405.000"

// formatJobID builds an id like 0000001-260122030405123-oozie-joe-W: the
// counter zero-padded to at least seven digits, the server start time, the
// system id and the job type letter.
func formatJobID(counter int64, start time.Time, systemID, kind string) string {
	stamp := strings.Replace(start.Format(jobIDTimeLayout), ".", "", 1)
	return fmt.Sprintf("%07d-%s-%s-%s", counter, stamp, systemID, kind)
}

// defaultSystemID is Oozie's oozie.system.id default, "oozie-" and the
// name of the user running the server, cut to 10 characters.
func defaultSystemID() string {
	name := "gozie"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	id := "oozie-" + name
	if len(id) > 10 {
		id = id[:10]
	}
	return id
}

// ActionID returns the id of a node's record in a job: <jobId>@<nodeName>.
func ActionID(jobID, node string) string { return jobID + "@" + node }
