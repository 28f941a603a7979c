package action

// RegisterBuiltins registers the executors of this package. The
// launcher-style ones share one set of launchers (one supervisor client,
// one record of the launchers this process watches).
func RegisterBuiltins(r *Registry, opts Options) {
	l := newLaunchers(opts)
	r.Register("fs", NewFS())
	r.Register("shell", newProcess(l, shellProgram{opts}))
}
