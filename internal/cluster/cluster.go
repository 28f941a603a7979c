// Package cluster lets several gozie servers share one PostgreSQL store:
// each server registers an instance with a heartbeat, works only the jobs
// the store names it owner of, and takes over the jobs of an instance whose
// heartbeats stopped for longer than the lease.
//
// # Protocol
//
// A server instance (one process start) registers a row with a random
// token (store.Cluster.Register). Every job row names its owner instance;
// a job created by a server is that server's. A commit touching a job
// fails with store.ErrNotOwner unless the job's owner is the committing
// instance, checked under a row lock held until the commit (fencing): an
// instance that lost its jobs while paused cannot write to them.
//
// Each server heartbeats every Heartbeat (the row's beat counter goes up)
// and watches the other instances' beat counters on its own monotonic
// clock. An instance whose counter has not moved for Lease, while this
// server's own heartbeats kept succeeding, is dead: this server moves all
// its jobs to itself and removes its row in one transaction, which checks
// the counter once more. Observations are discarded whenever the
// observer's own heartbeat fails, so a database outage never makes every
// instance look dead at once. No clocks of different hosts are compared.
//
// A dead instance whose data directory this server cannot see (another
// host) and which left steps there (starts under way, steps running) is
// taken over only Hold after its lease: restarted under its name within
// that time, it takes its jobs back itself and re-attaches to those steps,
// which a server on another host cannot do.
//
// A server starts actions only while its own lease is current (its last
// successful heartbeat began less than Lease minus a margin ago), so a
// server paused past its lease does not start an action that the server
// taking its job over starts as well. A server started under the same
// name as an earlier instance (a restart) takes that instance's jobs back
// at once and re-attaches to the actions it left running.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// Engine is what the cluster needs of the engine: take up jobs the store
// now lists as this server's, and drop cached state after this server's
// registration was taken from it.
type Engine interface {
	Adopt(ctx context.Context) error
	ForgetAll()
}

// Defaults of Options.
const (
	DefaultLease = 20 * time.Second
)

// Options configure a Member. Store and Name are required.
type Options struct {
	Store store.Cluster
	// Name is the server's stable identity (gozie.server.id); URL its
	// base URL, where other servers forward commands for its jobs.
	Name, URL, Version string
	// Lease is how long an instance's heartbeats may stop before its
	// jobs are taken over; default DefaultLease. Heartbeat is the
	// interval of heartbeats; default Lease/4.
	Lease     time.Duration
	Heartbeat time.Duration
	// Now is the clock; default time.Now (monotonic readings).
	Now func() time.Time
	// Logf receives what the member does; default log.Printf.
	Logf func(format string, args ...any)
	// NoSpread keeps every submission on the server that receives it
	// (see Spread).
	NoSpread bool
	// Host, DataDir and DataID say where this server keeps its steps
	// (its host name, data directory and that directory's identity,
	// action.DataDirID); they are registered with the instance.
	Host, DataDir, DataID string
	// Sees reports whether this server can look at the steps of another
	// instance: the directory registered as its DataDir is, seen from
	// this host, the directory of its DataID (the same host, or a data
	// directory shared between hosts). nil means it always can.
	Sees func(store.ServerInfo) bool
	// Hold is how much longer than the lease this server waits before
	// it takes over the jobs of a dead instance it cannot see (Sees)
	// that left steps on its host: starts under way (perhaps launched,
	// not yet recorded) or running. A server restarted under the same
	// name meanwhile takes its jobs back and re-attaches to those steps;
	// taken over, each such start runs again here and each running step
	// ends JA017. 0 takes them over after the lease like any other.
	Hold time.Duration
}

// Member is this server's membership of a shared store.
type Member struct {
	opts Options
	st   store.Cluster

	mu       sync.Mutex
	self     store.ServerInfo
	lastOK   time.Time // start of the last successful heartbeat
	observed map[string]observation
	servers  []store.ServerInfo // as of the last heartbeat round
	eng      Engine
	// load is this instance's count of unfinished jobs at its last
	// heartbeat; kept and sent count the submissions kept here and sent
	// to each other instance since then (Spread).
	load int
	kept int
	sent map[string]int

	// takeOvers count the instances whose jobs this server took: dead
	// ones (Tick), and earlier instances of its own name (Join).
	takeOvers, takeBacks atomic.Int64
}

// TakeOvers returns how many instances this member took the jobs of
// since it joined: dead other servers, and its own earlier instances
// (a restart taking its jobs back).
func (m *Member) TakeOvers() (dead, restarts int64) {
	return m.takeOvers.Load(), m.takeBacks.Load()
}

// Registered reports whether this member is registered and its lease is
// current (its last heartbeat succeeded recently enough to start actions):
// the readiness of a server sharing a store.
func (m *Member) Registered() bool {
	return m.ID() != "" && m.LeaseValid()
}

type observation struct {
	beat  int64
	since time.Time // when this beat value was first seen
	// holdUntil, once the instance is dead, is when its jobs may be
	// taken over (Options.Hold); zero before it is decided.
	holdUntil time.Time
}

// Join registers this server. It takes back the jobs of earlier instances
// of the same name (this server before a restart) and claims jobs no
// instance owns (a database used before ownership existed). The engine
// must be started after Join, so that it adopts those jobs.
func Join(ctx context.Context, opts Options) (*Member, error) {
	if opts.Store == nil || opts.Name == "" {
		return nil, errors.New("cluster: Store and Name are required")
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = opts.Lease / 4
	}
	if opts.Heartbeat > opts.Lease/2 {
		return nil, fmt.Errorf("cluster: heartbeat interval %s must be at most half the lease %s", opts.Heartbeat, opts.Lease)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	opts.Hold = max(opts.Hold, 0)
	m := &Member{opts: opts, st: opts.Store, observed: map[string]observation{}, sent: map[string]int{}}
	earlier, err := m.st.Servers(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.register(ctx); err != nil {
		return nil, err
	}
	for _, s := range earlier {
		if s.Name != opts.Name {
			continue
		}
		moved, err := m.st.TakeOver(ctx, m.self.ID, s.ID, s.Beat)
		if err != nil {
			return nil, err
		}
		if moved {
			m.takeBacks.Add(1)
			m.logf("gozie: cluster: took back the jobs of %s, an earlier instance of this server", s.ID)
		}
	}
	n, err := m.st.ClaimUnowned(ctx, m.self.ID)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		m.logf("gozie: cluster: claimed %d job(s) no server owned", n)
	}
	return m, nil
}

func (m *Member) logf(format string, args ...any) { m.opts.Logf(format, args...) }

// register records a new instance of this server and makes it the owner
// of the jobs the store creates from now on.
func (m *Member) register(ctx context.Context) error {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	now := m.opts.Now()
	s := store.ServerInfo{ID: m.opts.Name + "#" + hex.EncodeToString(b[:]), Name: m.opts.Name, URL: m.opts.URL,
		Version: m.opts.Version, Started: now, Host: m.opts.Host, DataDir: m.opts.DataDir, DataID: m.opts.DataID}
	if err := m.st.Register(ctx, s); err != nil {
		return err
	}
	m.mu.Lock()
	m.self, m.lastOK = s, now
	clear(m.observed)
	m.mu.Unlock()
	m.logf("gozie: cluster: registered as %s (lease %s, heartbeat every %s)", s.ID, m.opts.Lease, m.opts.Heartbeat)
	return nil
}

// ID is this server's current instance token.
func (m *Member) ID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.self.ID
}

// Name is this server's stable identity.
func (m *Member) Name() string { return m.opts.Name }

// Lease is how long heartbeats may stop before jobs are taken over.
func (m *Member) Lease() time.Duration { return m.opts.Lease }

// deadAfter is how long a beat must stand still, as this server watches
// it, before its instance is dead: the lease less half a heartbeat, since
// the watching is done at this server's heartbeats, which fall on the
// lease's end give or take a little (without the slack a lease of four
// heartbeats would often wait a fifth). Still more than the three quarters
// of a lease after which the silent server starts nothing (LeaseValid),
// because a heartbeat is at most half the lease.
func (m *Member) deadAfter() time.Duration { return m.opts.Lease - m.opts.Heartbeat/2 }

// LeaseValid reports whether this server may start actions: its last
// successful heartbeat began less than three quarters of the lease ago.
// Another server takes its jobs only after watching its beat stand still
// for a whole lease, which began after that heartbeat was written.
func (m *Member) LeaseValid() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.Now().Sub(m.lastOK) < m.opts.Lease-m.opts.Lease/4
}

// Run heartbeats and takes over dead instances' jobs until ctx ends. eng
// adopts what is taken over.
func (m *Member) Run(ctx context.Context, eng Engine) {
	m.mu.Lock()
	m.eng = eng
	m.mu.Unlock()
	t := time.NewTicker(m.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m.Tick(ctx)
	}
}

// Tick is one heartbeat round: renew this instance, watch the others,
// take over the dead ones. Run calls it every Heartbeat; tests call it
// with a fake clock.
func (m *Member) Tick(ctx context.Context) {
	start := m.opts.Now()
	id := m.ID()
	load, err := m.st.CountOwned(ctx, id)
	if err == nil {
		err = m.st.Heartbeat(ctx, id, load)
	}
	if err == nil {
		m.mu.Lock()
		m.load, m.kept = load, 0
		clear(m.sent)
		m.mu.Unlock()
	}
	if errors.Is(err, store.ErrNotOwner) {
		m.rejoin(ctx)
		return
	}
	if err != nil {
		// Without a heartbeat of its own this server cannot tell a dead
		// instance from a database that did not answer anybody.
		m.mu.Lock()
		clear(m.observed)
		m.mu.Unlock()
		if ctx.Err() == nil {
			m.logf("gozie: cluster: heartbeat: %v", err)
		}
		return
	}
	m.mu.Lock()
	m.lastOK = start
	m.mu.Unlock()
	servers, err := m.st.Servers(ctx)
	if err != nil {
		m.logf("gozie: cluster: list servers: %v", err)
		return
	}
	now := m.opts.Now()
	var dead []store.ServerInfo
	m.mu.Lock()
	m.servers = servers
	seen := map[string]bool{}
	for _, s := range servers {
		seen[s.ID] = true
		if s.ID == id {
			continue
		}
		o, ok := m.observed[s.ID]
		if !ok || o.beat != s.Beat {
			m.observed[s.ID] = observation{beat: s.Beat, since: now}
			continue
		}
		if now.Sub(o.since) >= m.deadAfter() {
			dead = append(dead, s)
		}
	}
	for sid := range m.observed {
		if !seen[sid] {
			delete(m.observed, sid)
		}
	}
	eng := m.eng
	m.mu.Unlock()
	adopt := false
	for _, s := range dead {
		if !m.due(ctx, s, now) {
			continue
		}
		moved, err := m.st.TakeOver(ctx, id, s.ID, s.Beat)
		if err != nil {
			m.logf("gozie: cluster: take over %s: %v", s.ID, err)
			continue
		}
		m.mu.Lock()
		delete(m.observed, s.ID)
		m.mu.Unlock()
		if moved {
			m.takeOvers.Add(1)
			m.logf("gozie: cluster: %s (%s) sent no heartbeat for %s; its jobs are this server's now", s.ID, s.URL, m.opts.Lease)
			adopt = true
		}
	}
	if adopt && eng != nil {
		if err := eng.Adopt(ctx); err != nil {
			m.logf("gozie: cluster: take up jobs: %v (the sweep tries again)", err)
		}
	}
}

// due reports whether the jobs of a dead instance may be taken over now:
// at once, unless this server cannot see the instance's data directory
// and the instance left steps there (Options.Hold). Then they wait until
// the hold has passed too, so that the instance, restarted under its
// name meanwhile, takes them back itself and re-attaches to those steps.
// The steps are counted once, when the instance is found dead: nobody
// works its jobs while it is.
func (m *Member) due(ctx context.Context, s store.ServerInfo, now time.Time) bool {
	if m.opts.Hold == 0 || s.DataID == "" || m.opts.Sees == nil || m.opts.Sees(s) {
		return true
	}
	m.mu.Lock()
	o := m.observed[s.ID]
	m.mu.Unlock()
	if !o.holdUntil.IsZero() {
		return !now.Before(o.holdUntil)
	}
	n, err := m.st.CountHostSteps(ctx, s.ID)
	if err != nil {
		m.logf("gozie: cluster: steps of %s: %v (asking again at the next heartbeat)", s.ID, err)
		return false
	}
	if n == 0 {
		return true
	}
	o.holdUntil = o.since.Add(m.deadAfter() + m.opts.Hold)
	m.mu.Lock()
	if cur, ok := m.observed[s.ID]; ok && cur.beat == o.beat {
		m.observed[s.ID] = o
	}
	m.mu.Unlock()
	m.logf("gozie: cluster: %s (%s) sent no heartbeat for %s; it left %d step(s) starting or running in %s on %s, which this server cannot see: waiting %s more for it to come back before taking its jobs over",
		s.ID, s.URL, m.opts.Lease, n, s.DataDir, s.Host, m.opts.Hold)
	return !now.Before(o.holdUntil)
}

// rejoin follows the loss of this instance's registration: another server
// took its jobs over. It registers again, owning nothing, and drops the
// engine's cached state. It does not take back jobs of its own name:
// the instance that now owns them may be alive.
func (m *Member) rejoin(ctx context.Context) {
	m.logf("gozie: cluster: instance %s was declared dead by another server, which has its jobs; registering again", m.ID())
	m.mu.Lock()
	eng := m.eng
	m.mu.Unlock()
	if eng != nil {
		eng.ForgetAll()
	}
	if err := m.register(ctx); err != nil {
		m.logf("gozie: cluster: register again: %v", err)
	}
}

// Live lists the instances believed alive: this one, and every other whose
// beat moved within the lease as this server watched it, or, before it
// watched for a whole lease, whose last heartbeat is within the lease by
// this host's clock.
func (m *Member) Live(ctx context.Context) ([]store.ServerInfo, error) {
	servers, err := m.st.Servers(ctx)
	if err != nil {
		return nil, err
	}
	now := m.opts.Now()
	wall := time.Now()
	id := m.ID()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.ServerInfo
	for _, s := range servers {
		o, watched := m.observed[s.ID]
		switch {
		case s.ID == id:
		case watched && o.beat == s.Beat && now.Sub(o.since) >= m.deadAfter():
			continue
		case !watched && wall.Sub(s.Heartbeat) > m.opts.Lease:
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// Spread chooses where a new submission goes: "" to keep it on this
// server, or the URL of a live server with clearly fewer unfinished jobs
// (by the loads of the last heartbeats, plus the submissions kept and sent
// since). Clients pointed at one server thus still spread their work over
// all of them, while a balanced cluster keeps each submission where it
// arrived.
func (m *Member) Spread() string {
	if m.opts.NoSpread {
		return ""
	}
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	mine := m.load + m.kept
	best, bestLoad := store.ServerInfo{}, -1
	for _, s := range m.servers {
		if s.ID == m.self.ID || s.URL == "" {
			continue
		}
		if o, ok := m.observed[s.ID]; !ok || o.beat != s.Beat || now.Sub(o.since) >= m.deadAfter() {
			continue // not watched alive in the last round
		}
		if l := s.Load + m.sent[s.ID]; bestLoad < 0 || l < bestLoad {
			best, bestLoad = s, l
		}
	}
	if bestLoad < 0 || mine <= bestLoad+max(4, bestLoad/4) {
		m.kept++
		return ""
	}
	m.sent[best.ID]++
	return best.URL
}

// ErrOwnerDown is returned by Route for a job whose server stopped
// answering and has not been taken over yet.
var ErrOwnerDown = errors.New("the server working this job is not answering")

// Route says where commands for a job go: local when this instance owns
// it (or nobody does), else the owning server's URL. A job owned by an
// instance that looks dead gives ErrOwnerDown: its jobs move to a live
// server within the lease.
func (m *Member) Route(ctx context.Context, jobID string) (url string, local bool, err error) {
	owner, err := m.st.Owner(ctx, jobID)
	if err != nil {
		return "", false, err
	}
	if owner == "" || owner == m.ID() {
		return "", true, nil
	}
	live, err := m.Live(ctx)
	if err != nil {
		return "", false, err
	}
	for _, s := range live {
		if s.ID == owner {
			return s.URL, false, nil
		}
	}
	within := m.opts.Lease.String()
	if m.opts.Hold > 0 {
		within += " (" + (m.opts.Lease + m.opts.Hold).String() + " if it left steps on a host the other servers cannot see)"
	}
	return "", false, fmt.Errorf("job %s: %w (%s); a live server takes its jobs over within %s", jobID, ErrOwnerDown, owner, within)
}
