package workflow

import (
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
)

// Variables exposes the job properties whose names are Java identifiers as
// EL variables, with Hadoop-style ${name} references in their values
// expanded (spec: wf 4.1). Other properties ("mapred.job.queue.name")
// are reachable only through wf:conf.
func Variables(props *conf.Config) el.MapVars {
	vars := el.MapVars{}
	for _, name := range props.Names() {
		if IsVariableName(name) {
			v, _ := props.Get(name)
			vars[name] = v
		}
	}
	return vars
}

// IsVariableName reports whether a property name matches
// [A-Za-z_][0-9A-Za-z_]*, the rule that makes a property an EL variable.
func IsVariableName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
