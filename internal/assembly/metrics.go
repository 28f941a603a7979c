package assembly

import (
	"context"
	"errors"
	"time"

	"github.com/gozie/gozie/internal/metrics"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
)

// observe gives the server its metrics and readiness checks: the
// Prometheus page over the engines' runtime, the store, the input checks
// and the cluster member, and the checks of /health/ready (the store
// answers, its migrations are done, the cluster member is registered).
func observe(sys *System, cfg server.Config, opts *server.Options) {
	src := metrics.Sources{Store: sys.Store, Runtime: sys.Engine.Runtime(),
		StatsMaxAge: time.Duration(cfg.Int("gozie.metrics.store.refresh.s", 15)) * time.Second}
	if sys.Coordinators != nil {
		src.InputChecks = sys.Coordinators.InputCheckSchemes
	}
	if sys.Member != nil {
		src.Cluster = sys.Member
	}
	m := metrics.New(src)
	sys.Metrics = m
	sys.Engine.Runtime().SetObserver(m)
	if o, ok := sys.Store.(store.Observed); ok {
		o.Observe(m.StoreTransaction)
	}
	opts.Metrics, opts.Observer = m.Handler(), m
	opts.Ready = server.StoreChecks(sys.Store)
	if member := sys.Member; member != nil {
		opts.Ready = append(opts.Ready, server.ReadyCheck{Name: "cluster", Check: func(context.Context) error {
			if !member.Registered() {
				return errors.New("not registered, or its lease lapsed (no recent heartbeat)")
			}
			return nil
		}})
	}
}
