package coordengine

import (
	"strings"

	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/xmltree"
)

// SLA namespaces of <sla:info> in a coordinator action.
var slaNamespaces = map[string]bool{"uri:oozie:sla:0.1": true, "uri:oozie:sla:0.2": true}

// registerSLA records the <sla:info> of a new action for tracking, in the
// change that creates the action: materialization resolved its fields
// into the action XML (Oozie's coord-sla-create phase). An expectation
// that is not valid is noted in the job's log and the action runs
// untracked, as in Oozie.
func (c *coordChange) registerSLA(a *store.CoordAction) {
	if !strings.Contains(a.ActionXML, "uri:oozie:sla:") {
		return
	}
	root, err := xmltree.Parse([]byte(a.ActionXML))
	if err != nil {
		return
	}
	info := findSLA(root)
	if info == nil {
		return
	}
	fields := map[string]string{}
	for _, f := range info.Children {
		fields[f.Name.Local] = strings.TrimSpace(f.Text)
	}
	j := c.job
	s := &store.SLA{ID: a.ID, AppType: sla.AppTypeCoordAction, AppName: j.AppName, User: j.User, ParentID: j.ID,
		CreatedTime: c.now, LastModTime: c.now}
	if vocab.IsBundleJob(j.ParentID) {
		s.BundleID = j.ParentID
	}
	if err := sla.Expect(s, info.Name.Space, fields); err != nil {
		c.log(a.ID, "WARN", "SLA not tracked: %v", err)
		return
	}
	c.slas = append(c.slas, s)
}

// findSLA returns the <sla:info> element under root, nil if none.
func findSLA(root *xmltree.Element) *xmltree.Element {
	if root.Name.Local == "info" && slaNamespaces[root.Name.Space] {
		return root
	}
	for _, ch := range root.Children {
		if f := findSLA(ch); f != nil {
			return f
		}
	}
	return nil
}
