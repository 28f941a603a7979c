package launch

import (
	"sort"

	"github.com/gozie/gozie/internal/action"
)

// builtin makes the executor of one action type from the launchers that
// all launcher-style types of a registry share.
type Factory func(l *Runtime) action.Executor

// builtins are the action types of this package, each registered by an
// init function in the file that implements it.
var Builtins = map[string]Factory{}

func Register(actionType string, b Factory) {
	if _, dup := Builtins[actionType]; dup {
		panic("action: type " + actionType + " registered twice")
	}
	Builtins[actionType] = b
}

// BuiltinTypes returns the action types RegisterBuiltins registers, sorted.
func BuiltinTypes() []string {
	types := make([]string, 0, len(Builtins))
	for t := range Builtins {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// RegisterBuiltins registers the executors of this package. The
// launcher-style ones share one set of launchers (one supervisor client,
// one record of the launchers this process watches).
func RegisterBuiltins(r *action.Registry, opts Options) {
	l := NewRuntime(opts)
	for t, b := range Builtins {
		r.Register(t, b(l))
	}
	for _, h := range RegisterHooks {
		h(r, l)
	}
}

// registerHooks run at the end of RegisterBuiltins, with the launchers the
// built-in types share: types that exist only by the server's
// configuration register there.
var RegisterHooks []func(r *action.Registry, l *Runtime)
