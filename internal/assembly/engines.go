package assembly

import (
	"path/filepath"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/credentials"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// newEngines builds the workflow engine and, for a server, the
// coordinator engine on it, their options read from cfg. It is the one
// place that knows the engines' constructors.
func newEngines(st store.Store, reg *action.Registry, cfg server.Config, o Options, base string, place stepPlace,
	member *cluster.Member) (*engine.Engine, *coordengine.Engine, error) {
	dir := cfg["gozie.data.dir"]
	var eo engine.Options
	if o.Local {
		eo = engine.Options{
			Store: st, Actions: reg, DataDir: dir, DefaultUser: o.DefaultUser,
			PollInterval: 500 * time.Millisecond,
			StartSettle:  engine.DefaultStartSettle,
			// The server's bound on an action, so that a workflow tried
			// with gozie run fails where the server would fail it.
			MaxActionBytes: cfg.Int("gozie.action.max.bytes", engine.DefaultMaxActionBytes),
			CrashJournal:   filepath.Join(dir, engine.CrashJournalFile),
			Logf:           o.Logf,
			OnTransition:   o.OnTransition,
			// gozie run has set its local defaults where the
			// configuration sets none.
			DefaultNameNode:   cfg[workflow.ServerPropDefaultNameNode],
			DefaultJobTracker: cfg[workflow.ServerPropDefaultJobTrack],
		}
	} else {
		setExpandLimits(cfg)
		maxDef, err := cfg.DefinitionMaxBytes()
		if err != nil {
			return nil, nil, err
		}
		secs := func(key string, def int) time.Duration { return time.Duration(cfg.Int(key, def)) * time.Second }
		eo = engine.Options{
			Store: st, Actions: reg, DataDir: dir, SystemID: cfg["gozie.system.id"], DefaultUser: o.DefaultUser,
			PollInterval: time.Duration(cfg.Int("gozie.poll.interval.ms", 1000)) * time.Millisecond,
			CallbackURL:  base + "/callback", ConsoleURL: base, Logf: o.Logf,
			OnTransition:              o.OnTransition,
			NotificationTimeout:       secs("gozie.notification.timeout.s", 10),
			NotificationRetries:       cfg.Int("gozie.notification.retries", 3),
			NotificationRetryInterval: secs("gozie.notification.retry.interval.s", 60),
			MaxDefinitionBytes:        maxDef,
			MaxConfFileBytes:          int64(cfg.Int("gozie.conf.file.max.bytes", int(fsys.DefaultMaxConfFile))),
			Expand:                    conf.DefaultExpandLimits,
			MaxActionBytes:            cfg.Int("gozie.action.max.bytes", engine.DefaultMaxActionBytes),
			CrashJournal:              filepath.Join(dir, engine.CrashJournalFile),
			RunAsUser:                 cfg.Bool("gozie.launch.as.user"),
			DataID:                    place.dataID,
			Host:                      place.host,
			MaxRunningActions:         cfg.Int("gozie.actions.max.concurrent", 0),
			StartSettle:               time.Duration(cfg.Int("gozie.actions.start.settle.ms", int(engine.DefaultStartSettle/time.Millisecond))) * time.Millisecond,
			DefaultNameNode:           cfg[workflow.ServerPropDefaultNameNode],
			DefaultJobTracker:         cfg[workflow.ServerPropDefaultJobTrack],
		}
		if member != nil {
			eo.LeaseValid, eo.ServerID = member.LeaseValid, member.ID
		}
	}
	creds, err := credentials.FromConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	eo.Credentials = creds
	co := coordengine.Options{
		MaterializationWindow: time.Duration(cfg.Int("gozie.coord.materialization.window.s", 3600)) * time.Second,
		InputCheckInterval:    time.Duration(cfg.Int("gozie.coord.input.check.interval.s", 60)) * time.Second,
		BatchSize:             cfg.Int("gozie.coord.batch.size", 10000),
		MinFrequencyMinutes:   cfg.Int("gozie.coord.min.frequency.minutes", 5),
		InputCheckParallel:    cfg.Int("gozie.coord.input.check.parallel", fsys.DefaultProbeParallel),
		InputCheckTimeout:     time.Duration(cfg.Int("gozie.coord.input.check.timeout.s", 30)) * time.Second,
		InputCheckWalkBudget:  cfg.Int("gozie.coord.input.check.walk.budget", fsys.DefaultWalkBudget),
		InputCheckMaxBackoff:  time.Duration(cfg.Int("gozie.coord.input.check.backoff.max.s", 600)) * time.Second,
	}
	// Job events go to the broker gozie.events.url names (docs/events.md).
	eo.Events = cfg["gozie.events.url"] != "" && !o.Local
	co.Events = eo.Events
	if o.Tune != nil {
		o.Tune(&eo, &co)
	}
	eng, err := engine.New(eo)
	if err != nil || o.Local && !o.LocalCoordinators {
		return eng, nil, err
	}
	return eng, coordengine.New(eng, eng.Runtime(), co), nil
}
