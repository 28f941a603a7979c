package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/gozie/gozie/internal/store"
)

// Pipeline is what a database server needs for pipelined write
// transactions: statements sent together and answered together.
//
// Why: on PostgreSQL a transition of a job (its records, effects and log
// lines, the ownership check, BEGIN and COMMIT) was a dozen statements,
// each a round trip to another process, and the session sat idle in its
// transaction between them. Pipelined, Update queues the writes of its
// function and sends them in one round trip with the next read or, at the
// latest, with the check and the COMMIT: a transition without reads is one
// round trip. Reads see the transaction's earlier writes as before, since
// queued writes are sent first; the ids and values writes return (effect
// and log ids) are set once they have been sent, at the latest when
// Update returns; a failing write fails the Update, which rolls back
// everything, as before. Nothing is committed before the COMMIT, so the
// transaction stays one transaction.
type Pipeline struct {
	// Send runs stmts in order on conn, the driver's connection
	// (database/sql's Conn.Raw), in one round trip, calling each
	// statement's Row for its result rows. It returns the first failure;
	// the server skips what follows it, so a transaction begun in stmts
	// is then left failed (the caller rolls it back).
	Send func(ctx context.Context, conn any, stmts []Stmt) error
	// DoneEffects deletes the effects whose ids are its one argument (an
	// array) and returns the job id of each.
	DoneEffects string
	// Seal ends a fenced transaction, in the same round trip as its
	// COMMIT. Its arguments: the ids of effects to delete (as
	// DoneEffects), the ids of the jobs the transaction wrote to, and the
	// registered instance. It locks the row of each of those jobs and of
	// the deleted effects' jobs as the dialect's ShareLock does, until
	// the commit, and fails when one belongs to another instance: the
	// commit that follows in the pipeline is then skipped, so nothing is
	// committed. A job that does not exist passes.
	Seal string
	// NotOwner recognizes Seal's failure.
	NotOwner func(err error) bool
}

// Stmt is one statement of a pipeline.
type Stmt struct {
	SQL  string
	Args []any
	// Row, when set, is called for each result row.
	Row func(row interface{ Scan(dest ...any) error }) error
}

// pipelined is the state of a pipelined transaction.
type pipelined struct {
	conn  *sql.Conn
	p     *Pipeline
	began bool    // BEGIN has been sent
	queue []Stmt  // writes not sent yet
	done  []int64 // effects marked done, not deleted yet
	err   error   // a failed send: the transaction is lost
}

// returning queues a write whose one result column goes to dest.
func (p *pipelined) returning(q string, dest *int64, args ...any) {
	p.queue = append(p.queue, Stmt{SQL: q, Args: args, Row: func(row interface{ Scan(...any) error }) error {
		return row.Scan(dest)
	}})
}

// runPipelined is run for a write transaction of a dialect with a
// Pipeline: fn's writes are queued (tx.exec and the write methods), and
// sent by flush before a read or by commit.
func (db *DB) runPipelined(ctx context.Context, fn func(store.Tx) error) error {
	conn, err := db.Write.Conn(ctx)
	if err != nil {
		return store.Errorf("%s: begin: %w", db.Dialect.Name, err)
	}
	defer conn.Close()
	t := &tx{db: db, pool: db.Write, q: conn, owner: db.fence(), pipe: &pipelined{conn: conn, p: db.Dialect.Pipeline}}
	committed := false
	defer func() {
		// Also when fn panics: the connection must not go back to the
		// pool inside a transaction (the driver would drop it anyway).
		if !committed {
			t.rollback(ctx)
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := t.commit(ctx); err != nil {
		return err
	}
	committed = true
	return nil
}

// flush sends the queued writes of a pipelined transaction (and BEGIN,
// the first time), so that a read sees them. It does nothing for other
// transactions.
func (t *tx) flush(ctx context.Context) error {
	p := t.pipe
	if p == nil {
		return nil
	}
	if p.err != nil {
		return p.err
	}
	if p.began && len(p.queue) == 0 && len(p.done) == 0 {
		return nil
	}
	stmts := p.take()
	if len(p.done) > 0 {
		// Deleted now, for the reads; their jobs are checked by the Seal.
		stmts = append(stmts, Stmt{SQL: p.p.DoneEffects, Args: []any{p.done}, Row: t.touchRow})
		p.done = nil
	}
	if err := t.send(ctx, stmts); err != nil {
		p.err = store.Errorf("%s: %w", t.db.Dialect.Name, err)
	}
	return p.err
}

// take returns the queued statements, after a BEGIN when none was sent
// yet, and empties the queue.
func (p *pipelined) take() []Stmt {
	var stmts []Stmt
	if !p.began {
		stmts = append(stmts, Stmt{SQL: "BEGIN"})
		p.began = true
	}
	stmts = append(stmts, p.queue...)
	p.queue = nil
	return stmts
}

// touchRow records the job named by a DoneEffects row.
func (t *tx) touchRow(row interface{ Scan(...any) error }) error {
	var job string
	if err := row.Scan(&job); err != nil {
		return err
	}
	t.touch(job)
	return nil
}

// send runs stmts in one round trip on the transaction's connection.
func (t *tx) send(ctx context.Context, stmts []Stmt) error {
	p := t.pipe
	return p.conn.Raw(func(conn any) error { return p.p.Send(ctx, conn, stmts) })
}

// commit sends what is still queued, the ownership check of a fenced
// transaction and the COMMIT, in one round trip.
func (t *tx) commit(ctx context.Context) error {
	p := t.pipe
	if p.err != nil {
		return p.err
	}
	if !p.began && len(p.queue) == 0 && len(p.done) == 0 {
		return nil // nothing written, nothing begun
	}
	stmts := p.take()
	switch {
	case t.owner != "" && (len(t.touched) > 0 || len(p.done) > 0):
		jobs := make([]string, 0, len(t.touched))
		for id := range t.touched {
			jobs = append(jobs, id)
		}
		slices.Sort(jobs)
		done := p.done
		if done == nil {
			done = []int64{}
		}
		stmts = append(stmts, Stmt{SQL: p.p.Seal, Args: []any{done, jobs, t.owner}})
	case len(p.done) > 0:
		stmts = append(stmts, Stmt{SQL: p.p.DoneEffects, Args: []any{p.done}})
	}
	p.done = nil
	stmts = append(stmts, Stmt{SQL: "COMMIT"})
	err := t.send(ctx, stmts)
	if err != nil && p.p.NotOwner != nil && p.p.NotOwner(err) {
		return fmt.Errorf("%w (%v)", store.ErrNotOwner, err)
	}
	if err != nil {
		return store.Errorf("%s: commit: %w", t.db.Dialect.Name, err)
	}
	return nil
}

// rollback ends a pipelined transaction that is not committed: a failed
// one, or one whose function failed. A connection whose rollback fails is
// not reused: the driver finds it still in a transaction and drops it.
func (t *tx) rollback(ctx context.Context) {
	p := t.pipe
	if !p.began {
		return
	}
	ctx = context.WithoutCancel(ctx)
	_ = p.conn.Raw(func(conn any) error { return p.p.Send(ctx, conn, []Stmt{{SQL: "ROLLBACK"}}) })
}
