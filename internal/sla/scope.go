// Package sla holds the pure part of SLA monitoring (spec: Oozie's SLA
// monitoring): the expectations an <sla:info> sets, the calculation of
// SLA events and statuses, the alert mail. It does no I/O and reads no
// clock.
package sla

// Scope selects the SLA records of a job that an sla-enable, sla-disable
// or sla-change command applies to (rest-api.md: action-list, date,
// coordinators). Empty fields select everything of the job: a workflow
// job and its actions, every action of a coordinator job, every
// coordinator of a bundle.
type Scope struct {
	// Actions is a coordinator job's action list ("1,3-4").
	Actions string
	// Dates is a coordinator job's nominal time ranges
	// ("2013-01-01T00:00Z::2013-01-02T00:00Z,...").
	Dates string
	// Coordinators names a bundle's coordinators (names or ids, comma
	// list).
	Coordinators string
}
