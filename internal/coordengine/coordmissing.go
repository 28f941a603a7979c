package coordengine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// MissingDependencies is one action of the REST answer to
// show=missing-dependencies (rest-api.md 4.1): what it is blocked on and
// the missing URIs of each dataset.
type MissingDependencies struct {
	ID        int                  `json:"id"`
	BlockedOn string               `json:"blockedOn"`
	DataSets  []DatasetMissingDeps `json:"dataSets"`
	// InputLogic is, for an app with <input-logic>, the logic as the last
	// input check evaluated it (coord.LogicState.Tree): which branch is
	// satisfied, which blocks, the wait clocks. A gozie addition: Oozie's
	// answer lists the missing dependencies only.
	InputLogic []string `json:"inputLogic,omitempty"`
}

// DatasetMissingDeps lists the missing URIs of one dataset.
type DatasetMissingDeps struct {
	DataSet             string   `json:"dataSet"`
	MissingDependencies []string `json:"missingDependencies"`
}

// CoordMissingDependencies answers "why is it still waiting": for a
// coordinator action id, that action; for a job id, the actions in scope
// (rangeType "action" or "date" with scope, rest-api.md 7.3), or every
// WAITING action when no scope is given. Actions with nothing missing are
// left out. The first missing dependency is what the input check stopped
// at; the later ones were not checked yet (input checks stop at the first
// missing instance), so they are listed as still pending.
func (e *Engine) CoordMissingDependencies(ctx context.Context, id, rangeType, scope string) ([]MissingDependencies, error) {
	jobID, _, isAction := vocab.SplitID(id)
	j, err := e.coordJob(ctx, jobID)
	if err != nil {
		return nil, err
	}
	var actions []*store.CoordAction
	switch {
	case isAction:
		a, err := e.coordAction(ctx, id)
		if err != nil {
			return nil, err
		}
		actions = []*store.CoordAction{a}
	case scope != "":
		sel, err := parseCoordScope(rangeType, scope)
		if err != nil {
			return nil, err
		}
		all, err := e.coordActions(ctx, jobID, store.CoordActionFilter{})
		if err != nil {
			return nil, err
		}
		for _, a := range all {
			if sel(a) {
				actions = append(actions, a)
			}
		}
	default:
		if actions, err = e.coordActions(ctx, jobID, store.CoordActionFilter{Statuses: []string{store.CoordActionWaiting}}); err != nil {
			return nil, err
		}
	}
	// Missing URIs are attributed to the dataset of the data-in whose
	// instance they are (the URI itself, or a done flag inside it).
	datasets := map[string]string{} // data-in name -> dataset name
	if app, _, err := e.coordApp(j); err == nil {
		for _, in := range app.Inputs {
			datasets[in.Name] = in.Dataset
		}
	}
	out := []MissingDependencies{}
	for _, a := range actions {
		deps := splitDeps(a.MissingDependencies)
		if len(deps) == 0 {
			continue
		}
		var inputs map[string][]string
		var logic []string
		if p, err := decodePlan(a); err == nil {
			inputs = p.InputURIs
			if p.Logic != nil {
				logic = p.Logic.Tree
			}
		}
		m := MissingDependencies{ID: a.Number, BlockedOn: deps[0], InputLogic: logic}
		index := map[string]int{}
		for _, d := range deps {
			name := datasets[eventOfURI(inputs, d)]
			k, ok := index[name]
			if !ok {
				k = len(m.DataSets)
				index[name] = k
				m.DataSets = append(m.DataSets, DatasetMissingDeps{DataSet: name})
			}
			m.DataSets[k].MissingDependencies = append(m.DataSets[k].MissingDependencies, d)
		}
		out = append(out, m)
	}
	return out, nil
}

// eventOfURI returns the data-in event one of whose instance URIs is uri
// or contains it (a done flag), "" when none does.
func eventOfURI(inputs map[string][]string, uri string) string {
	for name, uris := range inputs {
		for _, u := range uris {
			if uri == u || strings.HasPrefix(uri, strings.TrimSuffix(u, "/")+"/") {
				return name
			}
		}
	}
	return ""
}

// decodePlan reads the materialization plan stored with an action.
func decodePlan(a *store.CoordAction) (*coord.ActionPlan, error) {
	p := &coord.ActionPlan{}
	if err := json.Unmarshal([]byte(a.Plan), p); err != nil {
		return nil, fmt.Errorf("action %s: bad plan: %w", a.ID, err)
	}
	return p, nil
}

// splitDeps splits the stored "#"-separated dependency list, whose
// unresolved latest/future part follows "!!".
func splitDeps(s string) []string {
	var out []string
	for _, d := range strings.Split(strings.ReplaceAll(s, "!!", "#"), "#") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}
