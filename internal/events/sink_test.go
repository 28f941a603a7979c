package events

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-stomp/stomp/v3"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/testservers"
	"github.com/gozie/gozie/internal/vocab"
)

// The broker of the tests: the RabbitMQ .ci/run starts, with its STOMP
// plugin enabled.
const (
	amqpAddr  = "127.0.0.1:5672"
	stompAddr = "127.0.0.1:61613"
	amqpURL   = "amqp://guest:guest@" + amqpAddr + "/"
	stompURL  = "stomp://guest:guest@" + stompAddr + "/"
	waitFor   = 15 * time.Second
)

func needBroker(t *testing.T, addr, what string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Skipf("no %s broker at %s (%v): install and start rabbitmq-server (.ci/run does)", what, addr, err)
	}
	c.Close()
}

// uniquePrefix keeps each test's topics apart on the shared broker.
func uniquePrefix(t *testing.T) string {
	return fmt.Sprintf("gozie-test-%d.", time.Now().UnixNano())
}

type harness struct {
	t  *testing.T
	st store.Store
	rt *effect.Runtime
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := effect.New(effect.Options{Store: st, Logf: t.Logf, StoreRetryInterval: 20 * time.Millisecond,
		StoreRetryMax: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(); st.Close() })
	return &harness{t: t, st: st, rt: rt}
}

func (h *harness) sink(cfg Config) *Sink {
	h.t.Helper()
	s, err := NewSink(h.rt, cfg, h.t.Logf)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { s.Close() })
	return s
}

// add commits the effect of m, as an engine does with its job's change.
func (h *harness) add(jobID string, m Message) *store.Effect {
	h.t.Helper()
	ef := NewEffect(jobID, m, time.Now())
	ctx := context.Background()
	if err := h.st.Update(ctx, func(tx store.Tx) error { return tx.AddEffect(ctx, ef) }); err != nil {
		h.t.Fatal(err)
	}
	return ef
}

func (h *harness) pending() []*store.Effect {
	h.t.Helper()
	var out []*store.Effect
	ctx := context.Background()
	if err := h.st.View(ctx, func(tx store.Tx) (err error) {
		out, err = tx.PendingEffects(ctx, "", 0)
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// amqpSubscribe binds a private queue to exchange with the routing key
// topic; the binding is in place when it returns.
func amqpSubscribe(t *testing.T, exchange, topic string) <-chan amqp.Delivery {
	t.Helper()
	conn, err := amqp.Dial(amqpURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(exchange, "amq.") {
		if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, topic, exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	d, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func receive(t *testing.T, c <-chan amqp.Delivery) amqp.Delivery {
	t.Helper()
	select {
	case d := <-c:
		return d
	case <-time.After(waitFor):
		t.Fatal("no message received")
	}
	return amqp.Delivery{}
}

// checkHeaders compares the headers received with m's properties.
func checkHeaders(t *testing.T, get func(string) (string, bool), m Message) {
	t.Helper()
	for k, v := range m.Properties {
		if got, ok := get(k); !ok || got != v {
			t.Errorf("header %s = %q (present %v), want %q", k, got, ok, v)
		}
	}
}

func testMessages(t *testing.T) (wf, slaMsg Message) {
	wf, ok := JobMessage("WORKFLOW_JOB", "0000007-200101000000000-gozie-W", "", "etl", "john", "FAILED",
		ms(1342915200000), ms(1366672183543), "EL_ERROR", "variable [x] cannot be resolved")
	if !ok {
		t.Fatal("no message")
	}
	slaMsg = SLAMessage(&store.SLA{ID: "0000008-200101000000000-gozie-C@2", ParentID: "0000008-200101000000000-gozie-C",
		AppType: "COORDINATOR_ACTION", AppName: "hourly", User: "ann", ExpectedEnd: ms(1356998400000),
		ExpectedDurationMs: -1, ActualDurationMs: -1}, sla.Event{Status: "END_MISS", SLAStatus: "MISS"})
	return wf, slaMsg
}

func TestPublishAMQP(t *testing.T) {
	needBroker(t, amqpAddr, "AMQP")
	wf, slaMsg := testMessages(t)
	tests := []struct {
		name      string
		cfg       Config
		m         Message
		job       string
		exchange  string
		wantTopic string // after the prefix
	}{
		{"workflow job, topic per user", Config{URL: amqpURL}, wf, "0000007-200101000000000-gozie-W", "amq.topic", "john"},
		{"workflow job, typed topics", Config{URL: amqpURL, TopicName: "WORKFLOW=workflow,default=${username}"},
			wf, "0000007-200101000000000-gozie-W", "amq.topic", "workflow"},
		{"sla of a coordinator action, topic per job, own exchange",
			Config{URL: amqpURL, TopicName: "default=${jobId}", Exchange: "gozie.events.test"},
			slaMsg, "0000008-200101000000000-gozie-C", "gozie.events.test", "0000008-200101000000000-gozie-C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.cfg.TopicPrefix = uniquePrefix(t)
			topic := tt.cfg.TopicPrefix + tt.wantTopic
			sub := amqpSubscribe(t, tt.exchange, topic)
			s := h.sink(tt.cfg)
			ef := h.add(tt.job, tt.m)
			if err := s.Perform(context.Background(), ef); err != nil {
				t.Fatal(err)
			}
			d := receive(t, sub)
			if d.RoutingKey != topic || d.Exchange != tt.exchange {
				t.Errorf("routed by %s to %s, want %s to %s", d.Exchange, d.RoutingKey, tt.exchange, topic)
			}
			if string(d.Body) != tt.m.Body {
				t.Errorf("body %s, want %s", d.Body, tt.m.Body)
			}
			if d.DeliveryMode != amqp.Persistent || d.ContentType != "application/json" {
				t.Errorf("delivery mode %d, content type %q", d.DeliveryMode, d.ContentType)
			}
			checkHeaders(t, func(k string) (string, bool) { v, ok := d.Headers[k].(string); return v, ok }, tt.m)
			if p := h.pending(); len(p) != 0 {
				t.Errorf("still pending after publishing: %v", p)
			}
		})
	}
}

func TestPublishSTOMP(t *testing.T) {
	needBroker(t, stompAddr, "STOMP (rabbitmq-plugins enable rabbitmq_stomp)")
	wf, slaMsg := testMessages(t)
	tests := []struct {
		name      string
		cfg       Config
		m         Message
		wantTopic string
	}{
		{"workflow job", Config{URL: stompURL}, wf, "john"},
		{"sla, typed topics", Config{URL: stompURL, TopicName: "WORKFLOW=workflow,COORDINATOR=coordinator,default=${username}"},
			slaMsg, "coordinator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.cfg.TopicPrefix = uniquePrefix(t)
			dest := "/topic/" + tt.cfg.TopicPrefix + tt.wantTopic
			msgs := stompSubscribe(t, dest)
			s := h.sink(tt.cfg)
			if err := s.Perform(context.Background(), h.add("job", tt.m)); err != nil {
				t.Fatal(err)
			}
			var got *stomp.Message
			select {
			case got = <-msgs:
			case <-time.After(waitFor):
				t.Fatal("no message received")
			}
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			if got.Destination != dest || string(got.Body) != tt.m.Body {
				t.Errorf("got %s on %s, want %s on %s", got.Body, got.Destination, tt.m.Body, dest)
			}
			checkHeaders(t, func(k string) (string, bool) { return got.Header.Contains(k) }, tt.m)
			if p := h.pending(); len(p) != 0 {
				t.Errorf("still pending after publishing: %v", p)
			}
		})
	}
}

// stompSubscribe subscribes to dest; the subscription is in place when it
// returns (a probe sent after it on the same connection came back).
func stompSubscribe(t *testing.T, dest string) <-chan *stomp.Message {
	t.Helper()
	conn, err := stomp.Dial("tcp", stompAddr, stomp.ConnOpt.Login("guest", "guest"), stomp.ConnOpt.Host("/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.MustDisconnect() })
	sub, err := conn.Subscribe(dest, stomp.AckAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Send(dest, "text/plain", []byte("probe"), stomp.SendOpt.Receipt); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sub.C:
		if m.Err != nil || string(m.Body) != "probe" {
			t.Fatalf("probe: %v %s", m.Err, m.Body)
		}
	case <-time.After(waitFor):
		t.Fatal("subscription not ready")
	}
	return sub.C
}

// An outage loses no event: while the broker is unreachable, Perform fails
// and the effect stays pending; once the broker is back, the same effect
// publishes, on a new connection.
func TestOutage(t *testing.T) {
	tests := []struct {
		name, scheme, target string
	}{
		{"amqp", "amqp", amqpAddr},
		{"stomp", "stomp", stompAddr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needBroker(t, tt.target, tt.name)
			proxy := testservers.NewTCPProxy(t, tt.target)
			h := newHarness(t)
			prefix := uniquePrefix(t)
			var recv func() string
			if tt.scheme == "amqp" {
				sub := amqpSubscribe(t, "amq.topic", prefix+"john")
				recv = func() string { return string(receive(t, sub).Body) }
			} else {
				sub := stompSubscribe(t, "/topic/"+prefix+"john")
				recv = func() string {
					select {
					case m := <-sub:
						return string(m.Body)
					case <-time.After(waitFor):
						t.Fatal("no message received")
					}
					return ""
				}
			}
			s := h.sink(Config{URL: tt.scheme + "://guest:guest@" + proxy.Addr() + "/", TopicPrefix: prefix})
			ctx := context.Background()
			running, _ := JobMessage("WORKFLOW_JOB", "w1", "", "etl", "john", "RUNNING", ms(1), time.Time{}, "", "")
			if err := s.Perform(ctx, h.add("w1", running)); err != nil {
				t.Fatal(err)
			}
			if got := recv(); got != running.Body {
				t.Fatalf("received %s, want %s", got, running.Body)
			}

			proxy.Stop()
			done, _ := JobMessage("WORKFLOW_JOB", "w1", "", "etl", "john", "SUCCEEDED", ms(1), ms(2), "", "")
			ef := h.add("w1", done)
			for i := range 2 { // on the broken connection, then on a failed reconnect
				ctxT, cancel := context.WithTimeout(ctx, 5*time.Second)
				err := s.Perform(ctxT, ef)
				cancel()
				if err == nil {
					t.Fatalf("try %d: published with the broker unreachable", i)
				}
				t.Logf("try %d during the outage: %v", i, err)
			}
			if p := h.pending(); len(p) != 1 || p[0].ID != ef.ID {
				t.Fatalf("pending during the outage: %v, want the effect %d", p, ef.ID)
			}

			proxy.Start()
			if err := s.Perform(ctx, ef); err != nil {
				t.Fatalf("after the outage: %v", err)
			}
			if got := recv(); got != done.Body {
				t.Fatalf("received %s, want %s", got, done.Body)
			}
			if p := h.pending(); len(p) != 0 {
				t.Errorf("still pending: %v", p)
			}
		})
	}
}

// The runtime performs the events left pending (a server that stopped
// before publishing them) when it starts, through the registered sink.
func TestPendingPublishedOnStart(t *testing.T) {
	needBroker(t, amqpAddr, "AMQP")
	h := newHarness(t)
	prefix := uniquePrefix(t)
	sub := amqpSubscribe(t, "amq.topic", prefix+"john")
	h.sink(Config{URL: amqpURL, TopicPrefix: prefix})
	m, _ := JobMessage("COORDINATOR_ACTION", "c@1", "c", "hourly", "john", "WAITING", ms(1), time.Time{}, "", "")
	h.add("c", m)
	if err := h.rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := receive(t, sub)
	if string(d.Body) != m.Body || d.Headers["eventStatus"] != "WAITING" {
		t.Errorf("received %s %v", d.Body, d.Headers)
	}
	deadline := time.Now().Add(waitFor)
	for len(h.pending()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the effect was not marked done")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewSinkErrors(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		wantCode string
		wantText string
	}{
		{"unknown scheme", Config{URL: "http://broker:80/"}, "", "scheme must be amqp, amqps or stomp"},
		{"no url", Config{}, "", "scheme must be"},
		{"bad topic pattern", Config{URL: amqpURL, TopicName: "default=workflow"}, "E0100", "not allowed in default"},
		{"password not shown", Config{URL: "ftp://u:secret@h/"}, "", "u:xxxxx@h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSink(newHarness(t).rt, tt.cfg, t.Logf)
			if err == nil || vocab.CodeOf(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %v, want code %q and %q", err, tt.wantCode, tt.wantText)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// A payload that is not a message can never publish: it is dropped, not
// retried for ever.
func TestBadPayloadDropped(t *testing.T) {
	h := newHarness(t)
	s := h.sink(Config{URL: "amqp://guest:guest@127.0.0.1:1/"})
	ef := &store.Effect{JobID: "w", Kind: EffectPublish, Payload: "not json"}
	ctx := context.Background()
	if err := h.st.Update(ctx, func(tx store.Tx) error { return tx.AddEffect(ctx, ef) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Perform(ctx, ef); err != nil {
		t.Fatal(err)
	}
	if p := h.pending(); len(p) != 0 {
		t.Errorf("still pending: %v", p)
	}
}
