package assembly

import (
	"time"

	"github.com/gozie/gozie/internal/action/email"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/events"
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
		Events:    cfg["gozie.events.url"] != "",
	})
}

// newSink connects the job and SLA events to the broker of
// gozie.events.url (docs/events.md); nil without one.
func newSink(cfg server.Config, eng *engine.Engine, logf func(string, ...any)) (*events.Sink, error) {
	if cfg["gozie.events.url"] == "" {
		return nil, nil
	}
	return events.NewSink(eng.Runtime(), events.Config{
		URL:         cfg["gozie.events.url"],
		TopicName:   cfg["oozie.service.JMSTopicService.topic.name"],
		TopicPrefix: cfg["oozie.service.JMSTopicService.topic.prefix"],
		Exchange:    cfg["gozie.events.exchange"],
	}, logf)
}
