package action

import "sort"

// builtin makes the executor of one action type from the launchers that
// all launcher-style types of a registry share.
type builtin func(l *launchers) Executor

// builtins are the action types of this package, each registered by an
// init function in the file that implements it.
var builtins = map[string]builtin{}

func registerBuiltin(actionType string, b builtin) {
	if _, dup := builtins[actionType]; dup {
		panic("action: type " + actionType + " registered twice")
	}
	builtins[actionType] = b
}

// BuiltinTypes returns the action types RegisterBuiltins registers, sorted.
func BuiltinTypes() []string {
	types := make([]string, 0, len(builtins))
	for t := range builtins {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// RegisterBuiltins registers the executors of this package. The
// launcher-style ones share one set of launchers (one supervisor client,
// one record of the launchers this process watches).
func RegisterBuiltins(r *Registry, opts Options) {
	l := newLaunchers(opts)
	for t, b := range builtins {
		r.Register(t, b(l))
	}
	for _, h := range registerHooks {
		h(r, l)
	}
}
