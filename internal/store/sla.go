package store

import (
	"context"
	"time"
)

// SLA is one tracked <sla:info> (Oozie's SLA registration and SLA summary
// in one record): what was expected of a workflow job, a workflow action
// or a coordinator action, what happened, and the events sent so far.
type SLA struct {
	// ID is the tracked job or action: a workflow job id, a workflow
	// action id (<job>@<node>) or a coordinator action id (<job>@<n>).
	ID string
	// AppType is WORKFLOW_JOB, WORKFLOW_ACTION or COORDINATOR_ACTION.
	AppType  string
	AppName  string
	User     string
	ParentID string
	// BundleID is the bundle of a coordinator action's coordinator, ""
	// for none (the REST filter bundle=).
	BundleID string

	// The expectations: zero times and ExpectedDurationMs -1 mean none.
	NominalTime        time.Time
	ExpectedStart      time.Time
	ExpectedEnd        time.Time
	ExpectedDurationMs int64
	// AlertEvents is the comma list of events mailed (start_miss,
	// end_miss, duration_miss, *_met; "" none), AlertContact the comma
	// list of addresses.
	AlertEvents     string
	AlertContact    string
	UpstreamApps    string
	NotificationMsg string
	// Disabled stops alerts (sla-disable); events are still computed.
	Disabled bool

	// What happened, as last seen by the calculator.
	JobStatus        string
	ActualStart      time.Time
	ActualEnd        time.Time
	ActualDurationMs int64 // -1 until known
	// SLAStatus is NOT_STARTED, IN_PROCESS, MET or MISS.
	SLAStatus string
	// EventStatus is the last event (START_MET, ..., END_MISS), "" none.
	EventStatus string
	// EventProcessed records the criteria decided so far (Oozie's bits:
	// 1 start, 2 duration, 4 end; 8 when every one is decided).
	EventProcessed int
	// NextCheck is when the calculator must look again (the next deadline
	// not yet decided); zero once every criterion is decided.
	NextCheck time.Time

	CreatedTime time.Time
	LastModTime time.Time
}

// SLAFilter selects SLA records for Tx.SLAs (GET /v2/sla). Empty fields
// match everything; list fields match any of their values.
type SLAFilter struct {
	IDs       []string
	ParentIDs []string
	// AppNames, AppTypes, Users and JobStatuses may hold SQL LIKE
	// patterns (% and _), as Oozie's filter allows.
	AppNames      []string
	AppTypes      []string
	Users         []string
	JobStatuses   []string
	BundleIDs     []string
	EventStatuses []string
	SLAStatuses   []string
	// Time ranges, inclusive; zero means unbounded.
	NominalAfter, NominalBefore             time.Time
	CreatedAfter, CreatedBefore             time.Time
	ExpectedStartAfter, ExpectedStartBefore time.Time
	ExpectedEndAfter, ExpectedEndBefore     time.Time
	ActualStartAfter, ActualStartBefore     time.Time
	ActualEndAfter, ActualEndBefore         time.Time
	// Duration ranges in ms; -1 (or 0, the zero value) means unbounded.
	// A bound selects known durations only (never -1).
	ActualDurationMin, ActualDurationMax     int64
	ExpectedDurationMin, ExpectedDurationMax int64
	// SortBy is a column of Oozie's sortby (nominalTimeTS by default),
	// Desc the order; ties go by nominal time ascending.
	SortBy string
	Desc   bool
	Offset int
	Limit  int // 0: no bound
}

// SLATx is the SLA part of a transaction.
type SLATx interface {
	// SLA returns the record of a tracked job or action, or ErrNotFound.
	SLA(ctx context.Context, id string) (*SLA, error)
	// PutSLA inserts or replaces a record.
	PutSLA(ctx context.Context, s *SLA) error
	// SLAs lists the records matching f.
	SLAs(ctx context.Context, f SLAFilter) ([]*SLA, error)
	// CountSLAs counts the records matching f, ignoring its order,
	// Offset and Limit.
	CountSLAs(ctx context.Context, f SLAFilter) (int, error)
	// DueSLAs lists up to limit (<= 0: all) records not decided yet whose NextCheck
	// is at or before t, or whose tracked job or action changed status
	// since the calculator last saw it (JobStatus differs from the job's
	// or action's status in the store), oldest NextCheck first; with
	// several servers, only the records of the jobs the instance owns.
	DueSLAs(ctx context.Context, t time.Time, limit int) ([]*SLA, error)
}
