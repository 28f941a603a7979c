package coord

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
)

// ErrNoFiles is what a SubmitOptions.ReadFile of CheckDefinition returns
// when the check may read no file besides the definition (the server's
// validate of an uploaded document): a dataset include then goes
// unchecked instead of failing the check.
var ErrNoFiles = errors.New("no files are read by this check")

// CheckDefinition checks a coordinator application as Submit does, for a
// check without the job's properties (gozie validate without -config, the
// server's validate): a variable props do not define does not fail it.
// Each field whose EL names such a variable is left unchecked, with the
// checks that need it (start before end, the frequency, the dataset an
// event names), and reported in the warnings, as are required
// <parameters> without a value and includes that cannot be read here.
// Everything else — schema, structure, EL syntax, datasets, instances —
// fails as at submission, with the same codes.
func CheckDefinition(props *conf.Config, opts SubmitOptions) (warnings []string, err error) {
	open := &openVars{}
	if _, _, err := submitApp(props, opts, open); err != nil {
		return nil, err
	}
	return open.notes, nil
}

// openVars is the state of a check without the job's properties: the
// variables the evaluation under way looked up in vain, and the notes on
// what could not be checked.
type openVars struct {
	missing []string
	notes   []string
	// includes is set once an include could not be read: the datasets
	// an event names may be in it.
	includes bool
}

// note records what could not be checked, once.
func (o *openVars) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(o.notes, s) {
		o.notes = append(o.notes, s)
	}
}

// openLookup resolves the job variables and remembers the names it could
// not: a failed evaluation that looked such a name up is unchecked, not an
// error.
type openLookup struct {
	job  el.Resolver
	open *openVars
}

func (v openLookup) Lookup(name string) (any, bool) {
	val, ok := v.job.Lookup(name)
	if !ok && !slices.Contains(v.open.missing, name) {
		v.open.missing = append(v.open.missing, name)
	}
	return val, ok
}

// errUnchecked is returned by the resolver, in a check without the job's
// properties, for a field that uses a variable no one defined; callers
// leave the field at its zero value and skip what depends on it.
var errUnchecked = errors.New("unchecked: a variable is not defined")

// begin starts an evaluation: no variable is missing yet.
func (rv resolver) begin() {
	if rv.open != nil {
		rv.open.missing = rv.open.missing[:0]
	}
}

// unchecked turns the failure err of evaluating text (field what) into
// errUnchecked, with a note, when the evaluation looked up a variable that
// is not defined and the check has no job properties; otherwise it
// returns err.
func (rv resolver) unchecked(err error, what, text string) error {
	if err == nil || rv.open == nil || len(rv.open.missing) == 0 {
		return err
	}
	names := make([]string, len(rv.open.missing))
	for i, n := range rv.open.missing {
		names[i] = "[" + n + "]"
	}
	rv.open.note("%s [%s] not checked: variable %s not defined (give the job properties with -config)",
		what, strings.TrimSpace(text), strings.Join(names, ", "))
	return errUnchecked
}

// skip reports whether err is a field left unchecked.
func skip(err error) bool { return errors.Is(err, errUnchecked) }

// SampleRunConf is the workflow configuration the first action of the job
// would submit (RunConf), its inputs as materialization leaves them: what
// a check of the workflow it launches needs (the app path, the names
// defined).
func (a *App) SampleRunConf(props *conf.Config) (*conf.Config, error) {
	plan, err := a.Materialize(PlanState{NextMaterializedTime: a.Start},
		PlanOptions{Now: a.Start, Window: time.Nanosecond, BatchSize: 1, Lookahead: time.Minute}, props)
	if err != nil {
		return nil, err
	}
	if len(plan.Actions) == 0 {
		return nil, errors.New("the job has no action")
	}
	return a.RunConf(plan.Actions[0], props)
}
