package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

var ctx = context.Background()

// clock is a fake monotonic clock the members of one test share.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// flaky is a store.Cluster whose heartbeats fail while down is set: a
// database this server cannot reach.
type flaky struct {
	store.Cluster
	down bool
}

func (f *flaky) Heartbeat(ctx context.Context, id string, load int) error {
	if f.down {
		return errors.New("connection refused")
	}
	return f.Cluster.Heartbeat(ctx, id, load)
}

// fakeEngine counts what the member asks of the engine.
type fakeEngine struct {
	mu             sync.Mutex
	adopts, forgot int
}

func (e *fakeEngine) Adopt(context.Context) error { e.mu.Lock(); e.adopts++; e.mu.Unlock(); return nil }
func (e *fakeEngine) ForgetAll()                  { e.mu.Lock(); e.forgot++; e.mu.Unlock() }

const lease = 20 * time.Second

// shared opens n stores on one fresh PostgreSQL schema.
func shared(t *testing.T, n int) []store.Store {
	dsn := postgres.TestDSN(t)
	var out []store.Store
	for range n {
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out = append(out, s)
	}
	return out
}

func join(t *testing.T, c store.Cluster, name string, clk *clock) *Member {
	t.Helper()
	m, err := Join(ctx, Options{Store: c, Name: name, URL: "http://" + name + "/oozie", Lease: lease, Now: clk.Now,
		Logf: t.Logf})
	if err != nil {
		t.Fatalf("Join(%s): %v", name, err)
	}
	return m
}

// newJob creates a workflow job through s (owned by its registered member).
func newJob(t *testing.T, s store.Store, id string) {
	t.Helper()
	err := s.Update(ctx, func(tx store.Tx) error {
		return tx.PutJob(ctx, &store.Job{ID: id, Status: store.JobRunning})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func owner(t *testing.T, c store.Cluster, job string) string {
	t.Helper()
	o, err := c.Owner(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestTakeOverAfterLease(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	ss := shared(t, 2)
	clk := &clock{now: time.Unix(1000, 0)}
	a := join(t, ss[0].(store.Cluster), "a", clk)
	b := join(t, ss[1].(store.Cluster), "b", clk)
	newJob(t, ss[0], "1-W")
	eng := &fakeEngine{}
	b.eng = eng

	// a heartbeats for a while: b never takes it over.
	for range 8 {
		clk.add(lease / 4)
		a.Tick(ctx)
		b.Tick(ctx)
	}
	if got := owner(t, b.st, "1-W"); got != a.ID() || eng.adopts != 0 {
		t.Fatalf("live a lost its job: owner %q, adopts %d", got, eng.adopts)
	}
	if live, _ := b.Live(ctx); len(live) != 2 {
		t.Errorf("b sees %d live servers, want 2", len(live))
	}
	// a stops. Until b has watched a's beat stand still for a whole
	// lease, nothing moves; a itself stops starting actions after three
	// quarters of it.
	if !a.LeaseValid() {
		t.Error("a's lease not valid right after a heartbeat")
	}
	clk.add(lease - lease/8 - time.Second) // half a heartbeat (lease/8) short, and a second
	b.Tick(ctx)
	if got := owner(t, b.st, "1-W"); got != a.ID() {
		t.Fatalf("taken over before the lease ran out: owner %q", got)
	}
	if a.LeaseValid() {
		t.Error("a's lease still valid three quarters of a lease after its last heartbeat")
	}
	clk.add(time.Second)
	b.Tick(ctx)
	if got := owner(t, b.st, "1-W"); got != b.ID() {
		t.Fatalf("owner after the lease = %q, want %q", got, b.ID())
	}
	if eng.adopts != 1 {
		t.Errorf("engine adopted %d times, want 1", eng.adopts)
	}
	if live, _ := b.Live(ctx); len(live) != 1 || live[0].ID != b.ID() {
		t.Errorf("live after the take-over = %v", live)
	}
	if a.LeaseValid() {
		t.Error("a, silent for a whole lease, still believes its lease valid")
	}

	// a wakes up: its heartbeat finds its registration gone; it registers
	// anew, owning nothing, and its engine drops what it cached.
	aEng := &fakeEngine{}
	a.eng = aEng
	old := a.ID()
	a.Tick(ctx)
	if a.ID() == old || !strings.HasPrefix(a.ID(), "a#") || aEng.forgot != 1 {
		t.Errorf("after rejoin: id %q (was %q), forgot %d", a.ID(), old, aEng.forgot)
	}
	if got := owner(t, b.st, "1-W"); got != b.ID() {
		t.Errorf("the rejoined server took the job back: owner %q", got)
	}
	if !a.LeaseValid() {
		t.Error("a registered anew but its lease is not valid")
	}
}

// TestOutageIsNotDeath: while this server's own heartbeats fail it forgets
// what it watched, so a database outage that stopped every server's
// heartbeats does not make the others look dead when it ends.
func TestOutageIsNotDeath(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	ss := shared(t, 2)
	clk := &clock{now: time.Unix(1000, 0)}
	join(t, ss[0].(store.Cluster), "a", clk)
	fb := &flaky{Cluster: ss[1].(store.Cluster)}
	b := join(t, fb, "b", clk)
	newJob(t, ss[0], "1-W")
	b.Tick(ctx) // watches a's beat
	fb.down = true
	for range 8 {
		clk.add(lease / 4)
		b.Tick(ctx)
	}
	if b.LeaseValid() {
		t.Error("b's lease valid after two leases without a heartbeat")
	}
	fb.down = false
	b.Tick(ctx)
	if got := owner(t, fb, "1-W"); got == b.ID() {
		t.Fatal("b took a's job over right after its own outage")
	}
	clk.add(lease)
	b.Tick(ctx)
	if got := owner(t, fb, "1-W"); got != b.ID() {
		t.Errorf("a silent for a lease after the outage: owner %q, want b", got)
	}
}

// TestRestartTakesBack: a server started again under its name takes the
// jobs of its earlier instance at once, without waiting for the lease,
// and claims jobs nobody owns.
func TestRestartTakesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	ss := shared(t, 3)
	clk := &clock{now: time.Unix(1000, 0)}
	first := join(t, ss[0].(store.Cluster), "a", clk)
	newJob(t, ss[0], "1-W")
	newJob(t, ss[2], "2-W") // an unregistered store: no owner
	again := join(t, ss[1].(store.Cluster), "a", clk)
	if again.ID() == first.ID() {
		t.Fatal("a restart got the same instance id")
	}
	for _, job := range []string{"1-W", "2-W"} {
		if got := owner(t, again.st, job); got != again.ID() {
			t.Errorf("owner of %s = %q, want the restarted instance %q", job, got, again.ID())
		}
	}
}

func TestRoute(t *testing.T) {
	ss := shared(t, 2)
	clk := &clock{now: time.Unix(1000, 0)}
	a := join(t, ss[0].(store.Cluster), "a", clk)
	b := join(t, ss[1].(store.Cluster), "b", clk)
	newJob(t, ss[0], "1-W")
	newJob(t, ss[1], "2-W")
	if _, local, err := a.Route(ctx, "1-W"); err != nil || !local {
		t.Errorf("a.Route(own job) = local %v, %v", local, err)
	}
	url, local, err := b.Route(ctx, "1-W")
	if err != nil || local || url != "http://a/oozie" {
		t.Errorf("b.Route(a's job) = %q, %v, %v", url, local, err)
	}
	if _, _, err := b.Route(ctx, "9-W"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Route(missing) = %v", err)
	}
	// a goes silent: after b watched it for a lease, its jobs' commands
	// get ErrOwnerDown until the take-over.
	b.Tick(ctx)
	clk.add(lease)
	if _, _, err := b.Route(ctx, "1-W"); !errors.Is(err, ErrOwnerDown) {
		t.Errorf("Route(job of a silent server) = %v, want ErrOwnerDown", err)
	}
}

// TestRouteToHeir: b takes a over, then c takes b over (chain); a command
// for a's job reaching d goes to c, the heir of a's heir, and c serves it.
func TestRouteToHeir(t *testing.T) {
	ss := shared(t, 4)
	clk := &clock{now: time.Unix(1000, 0)}
	var ms []*Member
	for i, name := range []string{"a", "b", "c", "d"} {
		ms = append(ms, join(t, ss[i].(store.Cluster), name, clk))
	}
	newJob(t, ss[0], "1-W")
	for _, x := range []struct{ me, dead *Member }{{ms[1], ms[0]}, {ms[2], ms[1]}} {
		live, err := x.me.st.Servers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range live {
			if s.ID != x.dead.ID() {
				continue
			}
			if moved, err := x.me.st.TakeOver(ctx, x.me.ID(), s.ID, s.Beat); err != nil || !moved {
				t.Fatalf("TakeOver of %s = %v, %v", s.ID, moved, err)
			}
		}
	}
	if url, local, err := ms[3].Route(ctx, "1-W"); err != nil || local || url != "http://c/oozie" {
		t.Errorf("d.Route(a's job) = %q, local %v, %v; want http://c/oozie", url, local, err)
	}
	if _, local, err := ms[2].Route(ctx, "1-W"); err != nil || !local {
		t.Errorf("c.Route(a's job) = local %v, %v; want local", local, err)
	}
}

// TestSpread: a server with clearly more unfinished jobs than a live peer
// sends new submissions there until the two are about even; with NoSpread
// or without a live peer it keeps them.
func TestSpread(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	ss := shared(t, 2)
	clk := &clock{now: time.Unix(1000, 0)}
	a := join(t, ss[0].(store.Cluster), "a", clk)
	for i := range 12 {
		newJob(t, ss[0], "a"+string(rune('a'+i))+"-W")
	}
	if got := a.Spread(); got != "" {
		t.Fatalf("Spread without a peer = %q", got)
	}
	b := join(t, ss[1].(store.Cluster), "b", clk)
	a.Tick(ctx)
	b.Tick(ctx)
	clk.add(time.Second)
	a.Tick(ctx) // a has watched b's beat move: b is alive
	sent := 0
	for range 20 {
		switch got := a.Spread(); got {
		case "http://b/oozie":
			sent++
		case "":
		default:
			t.Fatalf("Spread = %q", got)
		}
	}
	// a had 12, b none: a sends until a's count is within b's + 4.
	if sent < 10 || sent > 16 {
		t.Errorf("sent %d of 20 submissions to b (12 vs 0 jobs before)", sent)
	}
	a.opts.NoSpread = true
	if got := a.Spread(); got != "" {
		t.Errorf("Spread with NoSpread = %q", got)
	}
}

func TestJoinRefusesLongHeartbeat(t *testing.T) {
	_, err := Join(ctx, Options{Store: &flaky{}, Name: "a", Lease: 10 * time.Second, Heartbeat: 6 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "half the lease") {
		t.Errorf("Join with a heartbeat over half the lease: %v", err)
	}
}

// TestHoldForStepsElsewhere: a dead instance whose data directory this
// server cannot see, and which left steps there (a start under way, a
// step running), is taken over only a hold after its lease, so that
// restarted under its name meanwhile it takes its jobs back and
// re-attaches to those steps. One this server sees, one without such
// steps, and one of an earlier version (no data directory registered) is
// taken over after the lease.
func TestHoldForStepsElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	const hold = 30 * time.Second
	for _, tc := range []struct {
		name    string
		sees    bool
		steps   bool   // a left a pending start
		dataID  string // a's data directory identity
		restart bool   // a is restarted under its name within the hold
		want    time.Duration
	}{
		{"seen", true, true, "d-a", false, lease},
		{"no steps there", false, false, "d-a", false, lease},
		{"earlier version", false, true, "", false, lease},
		{"steps there", false, true, "d-a", false, lease + hold},
		{"restarted within the hold", false, true, "d-a", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := shared(t, 3)
			clk := &clock{now: time.Unix(1000, 0)}
			aOpts := Options{Store: ss[0].(store.Cluster), Name: "a", URL: "http://a/oozie", Lease: lease, Now: clk.Now,
				Logf: t.Logf, Host: "host-a", DataDir: "/var/lib/gozie", DataID: tc.dataID}
			a, err := Join(ctx, aOpts)
			if err != nil {
				t.Fatal(err)
			}
			var asked []string
			b, err := Join(ctx, Options{Store: ss[1].(store.Cluster), Name: "b", URL: "http://b/oozie", Lease: lease,
				Now: clk.Now, Logf: t.Logf, Host: "host-b", DataDir: "/var/lib/gozie", DataID: "d-b", Hold: hold,
				Sees: func(s store.ServerInfo) bool { asked = append(asked, s.DataDir+" "+s.DataID); return tc.sees }})
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{}
			b.eng = eng
			newJob(t, ss[0], "1-W")
			if tc.steps {
				err := ss[0].Update(ctx, func(tx store.Tx) error {
					return tx.AddEffect(ctx, &store.Effect{JobID: "1-W", ActionID: "1-W@s1", Kind: store.EffectStart})
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			b.Tick(ctx) // b sees a's beat; a is never heard of again
			start := clk.Now()
			step := lease / 4
			var took time.Duration
			var a2 *Member // a restarted, heartbeating
			for clk.Now().Sub(start) < 2*(lease+hold) && took == 0 {
				clk.add(step)
				if tc.restart && clk.Now().Sub(start) == lease+hold/2 {
					if a2, err = Join(ctx, aOpts); err != nil {
						t.Fatal(err)
					}
					if got := owner(t, b.st, "1-W"); got != a2.ID() || a2.ID() == a.ID() {
						t.Fatalf("restarted a did not take its job back: owner %q", got)
					}
				}
				if a2 != nil {
					a2.Tick(ctx)
				}
				b.Tick(ctx)
				if owner(t, b.st, "1-W") == b.ID() {
					took = clk.Now().Sub(start)
				}
			}
			if tc.want == 0 {
				if took != 0 || eng.adopts != 0 {
					t.Fatalf("b took the job over after %v although a came back", took)
				}
				return
			}
			// Taken over at the first heartbeat of b's at or after the
			// lease (less half a heartbeat) and the hold.
			if took < tc.want-step/2 || took > tc.want+step/2 {
				t.Errorf("taken over %v after a's last beat, want %v", took, tc.want)
			}
			if eng.adopts != 1 {
				t.Errorf("engine adopted %d times, want 1", eng.adopts)
			}
			if tc.dataID != "" && (len(asked) == 0 || asked[0] != "/var/lib/gozie d-a") {
				t.Errorf("b asked whether it sees %q, want a's directory", asked)
			}
		})
	}
}
