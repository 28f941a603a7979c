package testservers

import (
	"io"
	"net"
	"sync"
	"testing"
)

// TCPProxy forwards a local port to a server (a message broker): Stop
// cuts it, as an outage of the server does, and Start restores it on the
// same port.
type TCPProxy struct {
	t      testing.TB
	target string

	mu    sync.Mutex
	addr  string
	ln    net.Listener
	conns []net.Conn
}

// NewTCPProxy returns a started proxy to target (host:port), stopped
// when the test ends.
func NewTCPProxy(t testing.TB, target string) *TCPProxy {
	p := &TCPProxy{t: t, target: target}
	p.Start()
	t.Cleanup(p.Stop)
	return p
}

// Addr is the proxy's host:port.
func (p *TCPProxy) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Start listens again, on the port of the first start.
func (p *TCPProxy) Start() {
	p.t.Helper()
	addr := p.Addr()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, b)
			p.mu.Unlock()
			go func() { io.Copy(b, c); b.Close() }()
			go func() { io.Copy(c, b); c.Close() }()
		}
	}()
}

// Stop closes the listener and every connection through the proxy.
func (p *TCPProxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
