package gozietest_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/testservers"
)

// TestEventsEndToEnd: a server with gozie.events.url publishes to
// RabbitMQ, on the topic of each kind of event, the status changes of a
// workflow job (STARTED, SUCCESS) and the SLA events of its <sla:info>,
// with Oozie's selector properties.
func TestEventsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	const url = "amqp://guest:guest@127.0.0.1:5672/"
	if c, err := net.DialTimeout("tcp", "127.0.0.1:5672", time.Second); err != nil {
		t.Skip("RabbitMQ is not running on 127.0.0.1:5672 (rabbitmq-server -detached): " + err.Error())
	} else {
		c.Close()
	}
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A topic per test run, so that other tests' events stay out.
	topic := "gozie-e2e-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + time.Now().Format("150405.000000")
	for _, key := range []string{topic + ".wf", topic + ".coord"} {
		if err := ch.QueueBind(q.Name, key, "amq.topic", false, nil); err != nil {
			t.Fatal(err)
		}
	}
	deliveries, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "joe", Config: map[string]string{
		"gozie.sla.check.interval.s":               "1",
		"gozie.events.url":                         url,
		"oozie.service.JMSTopicService.topic.name": "WORKFLOW=" + topic + ".wf,COORDINATOR=" + topic + ".coord",
	}})
	nominal := time.Now().UTC().Add(-30 * time.Minute).Format("2006-01-02T15:04Z")
	dir := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" xmlns:sla="uri:oozie:sla:0.2" name="events-e2e">
  <start to="end"/><end name="end"/>
  <sla:info><sla:nominal-time>` + nominal + `</sla:nominal-time><sla:should-start>${10 * MINUTES}</sla:should-start>
    <sla:should-end>${2 * HOURS}</sla:should-end></sla:info>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	coordXML := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="events-coord" frequency="${coord:days(1)}"
    start="2020-01-01T00:00Z" end="2020-01-02T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + dir + `</app-path></workflow></action></coordinator-app>`
	if err := os.WriteFile(filepath.Join(dir, "coordinator.xml"), []byte(coordXML), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(srv.URL, client.Options{User: "joe"})
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.wf.application.path", dir)
	if _, _, err := c.Submit(ctx, cf, true); err != nil {
		t.Fatal(err)
	}
	cc := conf.New()
	cc.Set("user.name", "joe")
	cc.Set("oozie.coord.application.path", dir)
	if _, _, err := c.Submit(ctx, cc, true); err != nil {
		t.Fatal(err)
	}
	// The standalone workflow and the coordinator's (the same app, with
	// its <sla:info>) both announce their start and end and their SLA
	// events; a workflow's SLA events go to the workflow topic, as
	// in Oozie (JMSTopicService picks the topic by the tracked job's
	// type); the coordinator action's go to the coordinator topic.
	want := map[string]int{
		"WORKFLOW_JOB JOB STARTED " + topic + ".wf": 2, "WORKFLOW_JOB JOB SUCCESS " + topic + ".wf": 2,
		"WORKFLOW_JOB SLA START_MISS " + topic + ".wf": 2, "WORKFLOW_JOB SLA DURATION_MET " + topic + ".wf": 2,
		"WORKFLOW_JOB SLA END_MET " + topic + ".wf":          2,
		"COORDINATOR_ACTION JOB WAITING " + topic + ".coord": 1, "COORDINATOR_ACTION JOB STARTED " + topic + ".coord": 1,
		"COORDINATOR_ACTION JOB SUCCESS " + topic + ".coord": 1,
	}
	for len(want) > 0 {
		select {
		case d := <-deliveries:
			h := func(k string) string { v, _ := d.Headers[k].(string); return v }
			key := h("appType") + " " + h("msgType") + " " + h("eventStatus") + " " + d.RoutingKey
			if want[key] == 0 {
				t.Errorf("unexpected event %s: %s", key, d.Body)
				continue
			}
			if want[key]--; want[key] == 0 {
				delete(want, key)
			}
			var body map[string]any
			if err := json.Unmarshal(d.Body, &body); err != nil || body["id"] == nil {
				t.Errorf("event %s body %s: %v", key, d.Body, err)
			}
			if h("user") != "joe" || (h("appName") != "events-e2e" && h("appName") != "events-coord") {
				t.Errorf("event %s headers %v", key, d.Headers)
			}
		case <-ctx.Done():
			t.Fatalf("events not received: %v", want)
		}
	}
}

// TestEventsBrokerOutage: the broker is unreachable for 10 s while a
// workflow runs; its events wait in the outbox and arrive once it is
// back, none lost.
func TestEventsBrokerOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	const target = "127.0.0.1:5672"
	if c, err := net.DialTimeout("tcp", target, time.Second); err != nil {
		t.Skip("RabbitMQ is not running on 127.0.0.1:5672 (rabbitmq-server -detached): " + err.Error())
	} else {
		c.Close()
	}
	conn, err := amqp.Dial("amqp://guest:guest@" + target + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	topic := "gozie-e2e-outage-" + time.Now().Format("150405.000000")
	if err := ch.QueueBind(q.Name, topic, "amq.topic", false, nil); err != nil {
		t.Fatal(err)
	}
	deliveries, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testservers.NewTCPProxy(t, target)
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "joe", Config: map[string]string{
		"gozie.events.url":                         "amqp://guest:guest@" + proxy.Addr() + "/",
		"oozie.service.JMSTopicService.topic.name": "WORKFLOW=" + topic,
	}})
	dir := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="outage"><start to="end"/><end name="end"/></workflow-app>`
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	proxy.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.wf.application.path", dir)
	id, _, err := client.New(srv.URL, client.Options{User: "joe"}).Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	// The outage lasts 10 s (the scenario, not a wait for a result):
	// nothing may arrive meanwhile.
	select {
	case d := <-deliveries:
		t.Fatalf("an event arrived through a stopped broker: %s", d.Body)
	case <-time.After(10 * time.Second):
	}
	proxy.Start()
	want := map[string]bool{"STARTED": true, "SUCCESS": true}
	for len(want) > 0 {
		select {
		case d := <-deliveries:
			status, _ := d.Headers["eventStatus"].(string)
			var body map[string]any
			if err := json.Unmarshal(d.Body, &body); err != nil || body["id"] != id || !want[status] {
				t.Fatalf("event %s: %s (%v)", status, d.Body, err)
			}
			delete(want, status)
		case <-ctx.Done():
			t.Fatalf("events not received after the outage: %v", want)
		}
	}
}
