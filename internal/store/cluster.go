package store

import (
	"context"
	"time"
)

// ErrNotOwner is returned by a commit that wrote to a job another server
// owns: the job was taken over (its server's heartbeats stopped for longer
// than the lease) and this server must stop working it. Nothing of the
// transaction was committed.
var ErrNotOwner = NewSentinel("store: the job belongs to another server")

// ServerInfo is one registered server process of a shared store.
type ServerInfo struct {
	// ID is the instance token: unique for each start of a server
	// (Name, '#', a random suffix). Jobs record it as their owner, and a
	// commit for a job is accepted only from the instance it names.
	ID string
	// Name is the server's stable identity (gozie.server.id): a server
	// started again under the same name takes back the jobs of its
	// earlier instances at once, re-attaching to what they left running.
	Name string
	// URL is the server's base URL (http://host:11000/oozie), where other
	// servers forward the commands for its jobs.
	URL     string
	Version string
	Started time.Time
	// Heartbeat is the server's clock at its last heartbeat, and Beat
	// counts its heartbeats. Liveness is judged by Beat moving, watched on
	// the observer's own clock, so clocks of different hosts never
	// compare.
	Heartbeat time.Time
	Beat      int64
	// Load is the number of unfinished jobs the server owned at its last
	// heartbeat.
	Load int
	// Host, DataDir and DataID say where the server keeps its steps: its
	// host name, its data directory and that directory's identity
	// (action.DataDirID). A server that finds this one dead looks for
	// the identity at DataDir to know whether it can see its steps.
	// Empty for servers of earlier versions.
	Host, DataDir, DataID string
}

// Cluster is implemented by a store that several servers share
// (PostgreSQL). Ownership: every job row names the instance that created
// it, and the instance working it is that one, or the instance that
// inherited it when it was taken over (its heir: one hop, heirs of heirs
// are re-pointed); a job created in a transaction belongs to the
// registered instance;
// when a store is registered, its commits are fenced (a transaction that
// wrote to a job of another instance fails with ErrNotOwner) and its scans
// of pending effects and RUNNING actions list only its own jobs.
type Cluster interface {
	// Register records this server instance and makes it the owner of
	// the jobs the store creates from then on.
	Register(ctx context.Context, s ServerInfo) error
	// Heartbeat renews the instance's registration and records its load.
	// ErrNotOwner means the registration is gone: another server took the
	// instance's jobs over.
	Heartbeat(ctx context.Context, id string, load int) error
	// Servers lists every registered instance not taken over, live or
	// not, by name.
	Servers(ctx context.Context) ([]ServerInfo, error)
	// TakeOver gives every job of instance dead (and of the instances dead
	// had taken over) to instance me and ends dead's registration, in one
	// transaction, unless dead's Beat is no longer beat (it is alive after
	// all: false). A missing instance, or one already taken over, changes
	// nothing and reports false.
	TakeOver(ctx context.Context, me, dead string, beat int64) (bool, error)
	// ClaimUnowned makes me the owner of jobs no instance owns (created
	// by a server that ran before ownership existed), and reports how
	// many there were; 0 when another instance has claimed them already.
	ClaimUnowned(ctx context.Context, me string) (int, error)
	// Owner returns the instance owning a workflow, coordinator or bundle
	// job ("" for none): the one working it, that is the instance that
	// inherited the one its row names, if that was taken over;
	// ErrNotFound when there is no such job.
	Owner(ctx context.Context, jobID string) (string, error)
	// CountOwned counts the unfinished jobs of an instance: workflows,
	// coordinators and bundles alike.
	CountOwned(ctx context.Context, id string) (int, error)
	// CountHostSteps counts the steps of an instance's jobs whose outcome
	// only its host can tell: pending starts (perhaps launched, not yet
	// recorded) and RUNNING steps, sub-workflows left out.
	CountHostSteps(ctx context.Context, id string) (int, error)
}
