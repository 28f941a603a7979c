package fsys

import (
	"context"
	"net"
	"time"
)

// IdleDialer returns a dial function for a backend's clients whose
// connections time out after connect while dialling and after idle (0:
// never) without progress in a read or a write. Clients that take no
// context or set no deadline (the HDFS RPC client; an HTTP body being
// streamed) would otherwise hold their caller for ever when a server
// stops answering mid-call; a slow but moving transfer is not cut.
func IdleDialer(connect, idle time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || idle <= 0 {
			return c, err
		}
		return &idleConn{Conn: c, idle: idle}, nil
	}
}

// idleConn moves its deadline before each read and write.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(b []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(b)
}
