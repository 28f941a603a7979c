package events

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// defaultExchange is RabbitMQ's predefined topic exchange.
const defaultExchange = "amq.topic"

// amqpPublisher publishes on an AMQP 0-9-1 topic exchange, the routing key
// the topic, with publisher confirms: a publish returns once the broker
// took the message.
type amqpPublisher struct {
	conn     *amqp.Connection
	ch       *amqp.Channel
	exchange string
}

func dialAMQP(ctx context.Context, rawURL, exchange string) (publisher, error) {
	if exchange == "" {
		exchange = defaultExchange
	}
	timeout := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	conn, err := amqp.DialConfig(rawURL, amqp.Config{Dial: amqp.DefaultDial(timeout), Heartbeat: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	p := &amqpPublisher{conn: conn, exchange: exchange}
	if p.ch, err = conn.Channel(); err != nil {
		conn.Close()
		return nil, err
	}
	// The amq.* exchanges exist and cannot be declared; another is
	// declared durable so that the first event does not find it missing.
	if !strings.HasPrefix(exchange, "amq.") {
		if err := p.ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("declare exchange %s: %w", exchange, err)
		}
	}
	if err := p.ch.Confirm(false); err != nil {
		conn.Close()
		return nil, fmt.Errorf("publisher confirms: %w", err)
	}
	return p, nil
}

func (p *amqpPublisher) publish(ctx context.Context, topic string, m Message) error {
	headers := amqp.Table{}
	for k, v := range m.Properties {
		headers[k] = v
	}
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, p.exchange, topic, false, false, amqp.Publishing{
		Headers: headers, ContentType: "application/json", DeliveryMode: amqp.Persistent,
		Timestamp: time.Now(), Type: m.Kind, Body: []byte(m.Body),
	})
	if err != nil {
		return err
	}
	acked, err := dc.WaitContext(ctx)
	if err != nil {
		return err
	}
	if !acked {
		// The library nacks what was in flight when the connection
		// went: say which, for the log.
		if p.conn.IsClosed() {
			return errors.New("connection lost before the broker confirmed the message")
		}
		return errors.New("the broker refused the message (nack)")
	}
	return nil
}

func (p *amqpPublisher) close() error {
	if p.conn.IsClosed() {
		return nil
	}
	return p.conn.Close()
}
