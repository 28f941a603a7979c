package assembly

import (
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
)

// newPurge builds the purge service of a server from Oozie's PurgeService
// keys; nil for a store that cannot purge. The first periodic round runs
// 10 seconds after the start, as Oozie's, then one every interval.
func newPurge(cfg server.Config, st store.Store, eng *engine.Engine, logf func(string, ...any)) (*purge.Service, error) {
	p, ok := st.(store.Purger)
	if !ok {
		return nil, nil
	}
	c, err := purge.ConfigFrom(func(k string) string { return cfg[k] })
	if err != nil {
		return nil, err
	}
	return purge.New(p, c, purge.Options{Clock: eng.Runtime().Clock(), Logf: logf, FirstDelay: 10 * time.Second}), nil
}
