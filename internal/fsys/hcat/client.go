package hcat

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/hcat/metastore"
)

// client calls the metastores of one hcat:// authority: a bounded pool of
// connections (binary protocol over a buffered socket, what the metastore
// serves without SASL), each call bounded by the socket timeout and the
// caller's context, several metastores tried in order (failover).
type client struct {
	store   string   // hcat://authority, for errors
	servers []string // host:port, in the order written
	opts    options

	sem       chan struct{} // one token per connection in use
	mu        sync.Mutex
	idle      []*conn
	preferred atomic.Int32 // the metastore that answered last
	dials     atomic.Int64 // connections made, for tests
}

// conn is one connection to a metastore.
type conn struct {
	server string
	sock   *thrift.TSocket
	trans  thrift.TTransport
	ms     *metastore.ThriftHiveMetastoreClient
	used   time.Time
}

func newClient(store string, servers []string, o options) *client {
	return &client{store: store, servers: servers, opts: o, sem: make(chan struct{}, o.maxConns)}
}

// call runs fn on a connection. A transport failure (refused, reset,
// timed out, garbled) closes that connection and tries the next
// metastore; an answer of the metastore, an exception included, is
// returned as it is. When no metastore answers the error matches
// fsys.ErrUnavailable.
func (c *client) call(ctx context.Context, fn func(context.Context, *metastore.ThriftHiveMetastoreClient) error) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return &fsys.UnavailableError{Store: c.store, Err: ctx.Err()}
	}
	defer func() { <-c.sem }()
	var last error
	// An idle connection first; the metastore may have closed it, so its
	// failure is tried again on a new connection.
	if cn := c.takeIdle(); cn != nil {
		err := c.do(ctx, cn, fn)
		if !isTransport(err) {
			c.putIdle(cn)
			return err
		}
		cn.close()
		last = err
	}
	start := int(c.preferred.Load())
	for i := range c.servers {
		if ctx.Err() != nil {
			break
		}
		idx := (start + i) % len(c.servers)
		cn, err := c.dial(ctx, c.servers[idx])
		if err != nil {
			last = err
			continue
		}
		err = c.do(ctx, cn, fn)
		if isTransport(err) {
			cn.close()
			last = err
			continue
		}
		c.preferred.Store(int32(idx))
		c.putIdle(cn)
		return err
	}
	if ctx.Err() != nil {
		last = fmt.Errorf("%w (last: %v)", ctx.Err(), last)
	}
	return &fsys.UnavailableError{Store: c.store, Err: last}
}

// do runs fn on cn, its socket timeout the smaller of the configured one
// and what is left of ctx; cancelling ctx closes the connection, which
// ends a call blocked in a read.
func (c *client) do(ctx context.Context, cn *conn, fn func(context.Context, *metastore.ThriftHiveMetastoreClient) error) error {
	timeout := c.opts.socketTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(d), time.Millisecond))
	}
	if err := cn.sock.SetSocketTimeout(timeout); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { cn.sock.Close() })
	err := fn(ctx, cn.ms)
	if !stop() && err == nil {
		// Cancelled right after the answer: the socket is closed.
		err = fmt.Errorf("metastore %s: %w", cn.server, ctx.Err())
	}
	cn.used = time.Now()
	if err != nil && isTransport(err) {
		return fmt.Errorf("metastore %s: %w", cn.server, err)
	}
	return err
}

// dial connects to one metastore within the connect timeout.
func (c *client) dial(ctx context.Context, server string) (*conn, error) {
	c.dials.Add(1)
	d := net.Dialer{Timeout: c.opts.connectTimeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return nil, fmt.Errorf("metastore %s: %w", server, err)
	}
	cfg := &thrift.TConfiguration{ConnectTimeout: c.opts.connectTimeout, SocketTimeout: c.opts.socketTimeout}
	sock := thrift.NewTSocketFromConnConf(nc, cfg)
	trans := thrift.NewTBufferedTransport(sock, 8192)
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	ms := metastore.NewThriftHiveMetastoreClient(thrift.NewTStandardClient(proto, proto))
	return &conn{server: server, sock: sock, trans: trans, ms: ms, used: time.Now()}, nil
}

func (cn *conn) close() { cn.trans.Close() }

// takeIdle returns an idle connection used recently enough, closing
// those idle for longer than the idle timeout.
func (c *client) takeIdle() *conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.idle) > 0 {
		cn := c.idle[len(c.idle)-1]
		c.idle = c.idle[:len(c.idle)-1]
		if time.Since(cn.used) < c.opts.idleTimeout {
			return cn
		}
		cn.close()
	}
	return nil
}

// putIdle keeps cn for the next call; at most maxConns are kept.
func (c *client) putIdle(cn *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) >= c.opts.maxConns {
		cn.close()
		return
	}
	c.idle = append(c.idle, cn)
}

// Close closes the idle connections.
func (c *client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cn := range c.idle {
		cn.close()
	}
	c.idle = nil
}

// isTransport reports whether err leaves the connection unusable: anything
// but nil or an answer of the metastore (its exceptions, or an
// application exception such as an unknown method).
func isTransport(err error) bool {
	if err == nil {
		return false
	}
	var me *metastore.MetaException
	var ne *metastore.NoSuchObjectException
	var ae thrift.TApplicationException
	return !errors.As(err, &me) && !errors.As(err, &ne) && !errors.As(err, &ae)
}
