package server

import (
	"container/list"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
)

// limitListener caps the connections open at once, like
// golang.org/x/net/netutil.LimitListener, with one difference that matters
// for a server facing many clients: when the cap is reached it closes the
// connection that has been idle longest (a keep-alive connection between
// requests, or one accepted that has not sent a byte yet) to make room,
// instead of leaving the new client in the backlog. A flood of idle
// connections therefore cannot lock clients out, and the cap still bounds
// file descriptors and goroutines. Only when every connection is busy with
// a request does Accept wait for one to finish.
//
// The http.Server using it must report connection states through
// ConnState, which is how the listener knows which connections are idle.
type limitListener struct {
	net.Listener
	max int

	mu     sync.Mutex
	cond   *sync.Cond
	open   int
	idle   *list.List                 // *limitConn, longest idle first
	where  map[net.Conn]*list.Element // idle connections' places in idle
	closed bool

	evicted int // connections closed to make room (tests read it)
}

func newLimitListener(l net.Listener, max int) *limitListener {
	ll := &limitListener{Listener: l, max: max, idle: list.New(), where: map[net.Conn]*list.Element{}}
	ll.cond = sync.NewCond(&ll.mu)
	return ll
}

// Accept waits for a connection, then for room for it: a free place under
// the cap, or an idle connection to close.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	for l.open >= l.max && l.idle.Len() == 0 && !l.closed {
		l.cond.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		c.Close()
		return nil, net.ErrClosed
	}
	var victim *limitConn
	if l.open >= l.max {
		victim = l.idle.Remove(l.idle.Front()).(*limitConn)
		delete(l.where, victim)
		l.evicted++
	}
	l.open++
	lc := &limitConn{Conn: c, l: l}
	l.mu.Unlock()
	if victim != nil {
		// Its serving goroutine sees the read fail and ends; the close
		// frees its place, which lc has already taken.
		victim.Close()
	}
	return lc, nil
}

// Close closes the listener and wakes an Accept waiting for room.
func (l *limitListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// connState is the http.Server ConnState hook: new and idle connections
// may be evicted, active ones not.
func (l *limitListener) connState(c net.Conn, state http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.closed {
		return
	}
	if e, ok := l.where[lc]; ok {
		l.idle.Remove(e)
		delete(l.where, lc)
	}
	if state == http.StateNew || state == http.StateIdle {
		l.where[lc] = l.idle.PushBack(lc)
		l.cond.Broadcast()
	}
}

// limitConn gives its place back once when closed.
type limitConn struct {
	net.Conn
	l      *limitListener
	closed bool // guarded by l.mu
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	l := c.l
	l.mu.Lock()
	if !c.closed {
		c.closed = true
		l.open--
		if e, ok := l.where[c]; ok {
			l.idle.Remove(e)
			delete(l.where, c)
		}
		l.cond.Broadcast()
	}
	l.mu.Unlock()
	return err
}
