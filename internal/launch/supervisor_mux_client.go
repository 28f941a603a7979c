package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// muxConn is the client's side of a multiplexed connection to a
// supervisor (supervisor_mux.go): requests are written under wmu, one
// goroutine reads the replies and hands each to the call of its id.
type muxConn struct {
	conn *net.UnixConn
	wmu  sync.Mutex

	mu    sync.Mutex
	next  uint64
	calls map[uint64]chan supReply // by request id; closed when the connection ends
	// done: the connection ended or was retired (a write failed, the
	// supervisor handed over): no new requests go on it.
	done bool
}

// errMuxEnded is a request's outcome when the connection ends before its
// first reply: the supervisor died or stopped. Nothing ran on its behalf
// unless it claimed the directory, which a retry then finds.
var errMuxEnded = errors.New("the connection to the launch supervisor ended")

// muxConnect gives the client's multiplexed connection, opening one
// (and starting a supervisor as needed) when there is none or the last
// one ended.
func (c *supervisorClient) muxConnect() (*muxConn, error) {
	c.muxMu.Lock()
	defer c.muxMu.Unlock()
	if m := c.mux; m != nil && !m.ended() {
		return m, nil
	}
	conn, dec, _, err := c.call(supRequest{Op: "mux"}, true, 10*time.Second)
	if err != nil {
		return nil, err
	}
	m := &muxConn{conn: conn, calls: map[uint64]chan supReply{}}
	go m.read(dec)
	c.mux = m
	return m, nil
}

// read hands each reply to its call; when the connection ends it closes
// the channels of the calls still waiting, which is what tells a started
// step's watcher to notify the engine.
func (m *muxConn) read(dec *json.Decoder) {
	for {
		var rep supReply
		if err := dec.Decode(&rep); err != nil {
			break
		}
		m.mu.Lock()
		ch := m.calls[rep.ID]
		if rep.Event != "started" {
			delete(m.calls, rep.ID) // the call's last reply
		}
		m.mu.Unlock()
		if ch != nil {
			ch <- rep // buffered for both replies of a run: never blocks
		}
	}
	m.mu.Lock()
	m.done = true
	calls := m.calls
	m.calls = nil
	m.mu.Unlock()
	m.conn.Close()
	for _, ch := range calls {
		close(ch)
	}
}

func (m *muxConn) ended() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.done
}

// retire takes no more requests on m; the calls in flight get their
// replies until the supervisor closes the connection.
func (m *muxConn) retire() {
	m.mu.Lock()
	m.done = true
	m.mu.Unlock()
}

// forget drops a call whose caller stopped waiting: later replies to it
// are discarded.
func (m *muxConn) forget(id uint64) {
	m.mu.Lock()
	delete(m.calls, id)
	m.mu.Unlock()
}

// send writes req with a new id and returns the channel of its replies.
func (m *muxConn) send(req supRequest) (uint64, <-chan supReply, error) {
	ch := make(chan supReply, 2)
	m.mu.Lock()
	if m.done {
		m.mu.Unlock()
		return 0, nil, errMuxEnded
	}
	m.next++
	req.ID, req.V = m.next, SupervisorProtocol
	m.calls[req.ID] = ch
	m.mu.Unlock()
	data, err := json.Marshal(req)
	if err == nil {
		data = append(data, '\n')
		m.wmu.Lock()
		_ = m.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err = m.conn.Write(data)
		m.wmu.Unlock()
	}
	if err != nil {
		// A write that fails (the supervisor shut its reading side, or
		// died) may have sent part of the request, so the connection is
		// of no further use; the calls in flight on it still get their
		// replies.
		m.forget(req.ID)
		m.retire()
		return 0, nil, err
	}
	return req.ID, ch, nil
}

// muxCall sends req on the multiplexed connection and returns its first
// reply and the channel of the later ones. A connection that ends before
// the reply, or a supervisor that hands over (older protocol, other
// build), is replaced: up to three attempts, as for a request on a
// connection of its own.
func (c *supervisorClient) muxCall(req supRequest, timeout time.Duration) (supReply, <-chan supReply, error) {
	err := errMuxEnded
	for attempt := 0; attempt < 3; attempt++ {
		m, cerr := c.muxConnect()
		if cerr != nil {
			return supReply{}, nil, cerr
		}
		id, ch, serr := m.send(req)
		if serr != nil {
			err = serr
			continue
		}
		t := time.NewTimer(timeout)
		var rep supReply
		var ok bool
		select {
		case rep, ok = <-ch:
			t.Stop()
		case <-t.C:
			// The step goes to the per-step launcher; should the
			// supervisor claim the directory after all, that one finds it
			// claimed and runs nothing.
			m.forget(id)
			return supReply{}, nil, fmt.Errorf("launch supervisor: no answer in %v", timeout)
		}
		if !ok {
			err = errMuxEnded
			continue
		}
		if rep.Event == "version" {
			m.retire()
			if rep.V > SupervisorProtocol {
				return rep, nil, errSupervisorNewer
			}
			err = fmt.Errorf("launch supervisor: %s", rep.Error)
			continue
		}
		return rep, ch, nil
	}
	return supReply{}, nil, err
}
