package events

import (
	"context"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-stomp/stomp/v3"
	"github.com/go-stomp/stomp/v3/frame"
)

// stompPort is the STOMP port of a URL without one.
const stompPort = "61613"

// stompPublisher sends to /topic/<name> with a receipt: a send returns
// once the broker acknowledged it.
type stompPublisher struct {
	conn *stomp.Conn
	net  net.Conn
}

func dialSTOMP(ctx context.Context, u *url.URL) (publisher, error) {
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), stompPort)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	// The deadline covers the CONNECT exchange; publish sets its own.
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	opts := []func(*stomp.Conn) error{stomp.ConnOpt.HeartBeat(0, 0)}
	if u.User != nil {
		pw, _ := u.User.Password()
		opts = append(opts, stomp.ConnOpt.Login(u.User.Username(), pw))
	}
	// The path names the virtual host, as in an amqp:// URL; the host
	// header is the virtual host to RabbitMQ, whose default one is "/"
	// (the library would send the host name, an unknown virtual host).
	vhost := strings.TrimPrefix(u.Path, "/")
	if vhost == "" {
		vhost = "/"
	}
	opts = append(opts, stomp.ConnOpt.Host(vhost))
	conn, err := stomp.Connect(nc, opts...)
	if err != nil {
		nc.Close()
		return nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	return &stompPublisher{conn: conn, net: nc}, nil
}

func (p *stompPublisher) publish(ctx context.Context, topic string, m Message) error {
	opts := []func(*frame.Frame) error{stomp.SendOpt.Receipt, stomp.SendOpt.Header("persistent", "true")}
	for k, v := range m.Properties {
		opts = append(opts, stomp.SendOpt.Header(k, v))
	}
	// A broker that never sends the receipt would hold Send: the deadline
	// on the socket bounds it.
	if dl, ok := ctx.Deadline(); ok {
		_ = p.net.SetDeadline(dl)
		defer p.net.SetDeadline(time.Time{})
	}
	return p.conn.Send("/topic/"+topic, "application/json", []byte(m.Body), opts...)
}

func (p *stompPublisher) close() error {
	// Every send had its receipt: nothing is left to wait for, and a
	// graceful DISCONNECT could hang on a dead broker.
	err := p.conn.MustDisconnect()
	p.net.Close()
	return err
}
