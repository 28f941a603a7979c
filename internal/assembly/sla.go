package assembly

import (
	"time"

	"github.com/gozie/gozie/internal/action/email"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/slatrack"
)

// newTracker builds the SLA tracker of a server from its keys: the pass
// interval (gozie.sla.check.interval.s), the HTTP notification of every
// event (gozie.sla.notification.url), alert mails through the email
// action's SMTP keys (oozie.email.*), their links to the console.
func newTracker(cfg server.Config, eng *engine.Engine, base string, logf func(string, ...any)) *slatrack.Tracker {
	sender := email.NewSender(launch.Options{Site: cfg})
	return slatrack.New(eng.Runtime(), slatrack.Options{
		Interval:  time.Duration(cfg.Int("gozie.sla.check.interval.s", 30)) * time.Second,
		JobURL:    base + "/?job=",
		Send:      sender.Send,
		NotifyURL: cfg["gozie.sla.notification.url"],
		Logf:      logf,
	})
}
