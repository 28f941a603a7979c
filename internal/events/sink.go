package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
)

// Config is the broker settings (site keys gozie.events.url,
// oozie.service.JMSTopicService.topic.name,
// oozie.service.JMSTopicService.topic.prefix, gozie.events.exchange).
type Config struct {
	// URL is the broker: amqp://, amqps:// or stomp://, with the user and
	// password in it.
	URL string
	// TopicName is JMSTopicService's topic.name pattern ("" is
	// "default=${username}"); TopicPrefix is put before every topic.
	TopicName   string
	TopicPrefix string
	// Exchange is the AMQP topic exchange ("" is amq.topic).
	Exchange string
}

// publishTimeout bounds one publish, connecting included: a broker that
// hangs fails the effect, which the runtime retries, instead of holding it.
const publishTimeout = 30 * time.Second

// publisher is one connection to a broker.
type publisher interface {
	// publish sends m on topic and returns once the broker has it.
	publish(ctx context.Context, topic string, m Message) error
	close() error
}

// Sink publishes the EffectPublish effects of a runtime to a broker. It
// connects when the first event comes and again after a failure; one
// publish at a time goes through its connection.
type Sink struct {
	rt     *effect.Runtime
	cfg    Config
	url    *url.URL
	topics *topics
	logf   func(string, ...any)
	dial   func(ctx context.Context) (publisher, error)

	mu     sync.Mutex
	conn   publisher // nil until connected, and after a failure
	closed bool
}

// NewSink returns the sink of cfg and registers it on rt as the handler of
// EffectPublish. It does not connect: a broker down at start-up only delays
// the events.
func NewSink(rt *effect.Runtime, cfg Config, logf func(string, ...any)) (*Sink, error) {
	topics, err := parseTopics(cfg.TopicName, cfg.TopicPrefix)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("events: broker url: %w", err)
	}
	if logf == nil {
		logf = rt.Logf
	}
	s := &Sink{rt: rt, cfg: cfg, url: u, topics: topics, logf: logf}
	switch u.Scheme {
	case "amqp", "amqps":
		s.dial = func(ctx context.Context) (publisher, error) { return dialAMQP(ctx, cfg.URL, cfg.Exchange) }
	case "stomp":
		s.dial = func(ctx context.Context) (publisher, error) { return dialSTOMP(ctx, u) }
	default:
		return nil, fmt.Errorf("events: broker url %q: scheme must be amqp, amqps or stomp", redactURL(u))
	}
	// In order: a job's events committed together (STARTED, then
	// SUCCESS) are published in that order, not raced on goroutines.
	rt.Register(EffectPublish, s, effect.InOrder())
	return s, nil
}

// Perform publishes the message of ef and marks ef done. A broker that
// cannot be reached, or does not confirm, fails it: the runtime performs
// it again after a backoff, so the event is sent at least once.
func (s *Sink) Perform(ctx context.Context, ef *store.Effect) error {
	var m Message
	if err := json.Unmarshal([]byte(ef.Payload), &m); err != nil {
		// Nothing can ever publish it: drop it rather than retry forever.
		s.logf("gozie: events: effect %d of job %s: bad payload dropped: %v", ef.ID, ef.JobID, err)
		return s.rt.MarkDone(ctx, ef)
	}
	if err := s.publish(ctx, s.topics.topic(m), m); err != nil {
		return err
	}
	return s.rt.MarkDone(ctx, ef)
}

// Quarantine drops an event whose publishing kept killing the server.
func (s *Sink) Quarantine(ctx context.Context, ef *store.Effect, _ int, msg string) error {
	s.logf("gozie: events: effect %d of job %s dropped: %s", ef.ID, ef.JobID, msg)
	return s.rt.MarkDone(ctx, ef)
}

// publish sends m through the connection, connecting first if there is
// none; a failure drops the connection so that the next try makes a new
// one.
func (s *Sink) publish(ctx context.Context, topic string, m Message) error {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("events: sink closed")
	}
	if s.conn == nil {
		c, err := s.dial(ctx)
		if err != nil {
			return fmt.Errorf("events: connect to %s: %w", redactURL(s.url), err)
		}
		s.logf("gozie: events: connected to %s", redactURL(s.url))
		s.conn = c
	}
	if err := s.conn.publish(ctx, topic, m); err != nil {
		_ = s.conn.close() // the connection is broken already; its close error says nothing more
		s.conn = nil
		return fmt.Errorf("events: publish to %s topic %s: %w", redactURL(s.url), topic, err)
	}
	return nil
}

// Close closes the connection; events not yet published stay pending in
// the store.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn == nil {
		return nil
	}
	err := s.conn.close()
	s.conn = nil
	return err
}

// redactURL is u without its password, for logs and errors.
func redactURL(u *url.URL) string { return u.Redacted() }
