package hdfs

import (
	"context"
	"net"
	"time"
)

// dialer returns a dial function whose connections time out after
// connect while dialling and after idle (0: never) during each read or
// write. The library takes no context and sets no deadline on NameNode
// calls: without this, a NameNode that stops answering mid-call would
// hold the caller, and the client's lock, for ever.
func dialer(connect, idle time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || idle <= 0 {
			return c, err
		}
		return &deadlineConn{Conn: c, idle: idle}, nil
	}
}

// deadlineConn moves its deadline before each read and write, so that a
// silent peer fails the call while a slow but moving transfer does not.
type deadlineConn struct {
	net.Conn
	idle time.Duration
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(b)
}
