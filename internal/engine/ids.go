package engine

import (
	"os/user"
	"time"

	"github.com/gozie/gozie/internal/vocab"
)

// formatJobID builds an id like 0000001-260122030405123-oozie-joe-W
// (vocab.FormatJobID).
func formatJobID(counter int64, start time.Time, systemID, kind string) string {
	return vocab.FormatJobID(counter, start, systemID, kind)
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
func ActionID(jobID, node string) string { return vocab.ActionID(jobID, node) }
