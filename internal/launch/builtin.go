package launch

import (
	"sort"

	"github.com/gozie/gozie/internal/action"
)

// Factory makes the executor of one action type from the runtime that all
// launcher-style types of a registry share.
type Factory func(l *Runtime) action.Executor

// builtins are the registered action types, each put here by the init
// function of the family package that implements it (internal/action/...;
// internal/action/all links them all).
var builtins = map[string]Factory{}

// hooks run at the end of RegisterBuiltins, with the runtime the built-in
// types share: types that exist only by the server's configuration (the
// custom types) register there.
var hooks []func(r *action.Registry, l *Runtime)

// Register makes f the factory of actionType. A family package calls it
// from an init function, as a database/sql driver registers itself; a
// type registered twice is a programming error and panics.
func Register(actionType string, f Factory) {
	if _, dup := builtins[actionType]; dup {
		panic("launch: action type " + actionType + " registered twice")
	}
	builtins[actionType] = f
}

// RegisterHook adds h to the functions RegisterBuiltins calls after it has
// registered the built-in types.
func RegisterHook(h func(r *action.Registry, l *Runtime)) { hooks = append(hooks, h) }

// Builtin returns the factory registered for actionType, nil when none.
func Builtin(actionType string) Factory { return builtins[actionType] }

// BuiltinTypes returns the action types RegisterBuiltins registers, sorted.
func BuiltinTypes() []string {
	types := make([]string, 0, len(builtins))
	for t := range builtins {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// RegisterBuiltins registers the executors of every registered type. The
// launcher-style ones share one Runtime (one supervisor client, one record
// of the launchers this process watches).
func RegisterBuiltins(r *action.Registry, opts Options) {
	l := NewRuntime(opts)
	for t, b := range builtins {
		r.Register(t, b(l))
	}
	for _, h := range hooks {
		h(r, l)
	}
}
