package launch

import (
	"bufio"
	"encoding/json"
	"net"
	"sync"
	"time"
)

// A multiplexed connection (protocol 5) carries every request of a
// server for as long as both live: a connection per step cost a dial, an
// accept, a peer check, a goroutine on each side and a JSON decoder's
// set-up on the critical path of every step. Requests are lines with an
// id; each is answered on its own goroutine, its replies carrying the id,
// so a "run" waiting for its program holds up nothing else.
//
// The end of the connection means to the client what the end of a
// per-request connection meant: the supervisor is gone (or stopped), and
// every step it had started is checked. A supervisor that stops shuts
// the reading side of its multiplexed connections (the client's next
// write fails and goes to the next supervisor), answers what it had
// read, and closes each once its requests are answered: every started
// step gets its "exited" first.

// serveMux serves the requests that follow "mux" on c, read from br,
// until the client closes c or the supervisor stops.
func (s *supervisor) serveMux(c *net.UnixConn, br *bufio.Reader) {
	wmu := new(sync.Mutex)
	s.mu.Lock()
	// The connection itself no longer counts (see supervisor.conns);
	// accept's deferred decrement is balanced when this returns.
	s.conns--
	s.idle = time.Now()
	s.muxes[c] = struct{}{}
	if s.stopped {
		_ = c.CloseRead()
	}
	s.mu.Unlock()
	s.replier(c, wmu, 0)(supReply{Event: "ok"})

	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		s.mu.Lock()
		delete(s.muxes, c)
		s.conns++
		s.mu.Unlock()
	}()
	for {
		line, err := readLine(br, maxRequest)
		if err != nil {
			return
		}
		var req supRequest
		if err := json.Unmarshal(line, &req); err != nil || req.ID == 0 {
			// Not a request this protocol knows: the connection is of no
			// further use; its client tries again on a new one.
			s.replier(c, wmu, req.ID)(supReply{Event: "error", Error: "bad request on a multiplexed connection"})
			return
		}
		reply := s.replier(c, wmu, req.ID)
		if req.V != SupervisorProtocol || req.Op == "mux" {
			reply(supReply{Event: "error", Error: "bad request on a multiplexed connection"})
			continue
		}
		s.mu.Lock()
		s.conns++
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer func() {
				s.mu.Lock()
				s.conns--
				s.idle = time.Now()
				s.mu.Unlock()
				wg.Done()
			}()
			s.handle(req, reply)
		}()
	}
}
