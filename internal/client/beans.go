package client

import (
	"strconv"

	"github.com/gozie/gozie/internal/rest"
)

// The beans the client decodes are the REST API's own (package rest):
// these names keep the client's API as it was.
type (
	// Time is a date field of a bean; the zero value is JSON null.
	Time = rest.Time
	// Str is a string field that is JSON null when empty.
	Str = rest.Str
	// Text is a string field some servers send as a number.
	Text = rest.Text
	// WorkflowJob is the workflow job bean (rest-api §5.1).
	WorkflowJob = rest.WorkflowJob
	// WorkflowAction is the workflow action bean (rest-api §5.2).
	WorkflowAction = rest.WorkflowAction
	// CoordJob is the coordinator job bean (rest-api §5.3).
	CoordJob = rest.CoordJob
	// CoordAction is the coordinator action bean (rest-api §5.4).
	CoordAction = rest.CoordAction
	// BundleJob is the bundle job bean (rest-api §5.5).
	BundleJob = rest.BundleJob
	// JobList is the answer of GET and PUT /jobs.
	JobList = rest.JobList
	// SLASummary is one SLA record of GET /v2/sla (rest-api §5.7).
	SLASummary = rest.SLASummary
	// SLATime is a date of an SLA summary (epoch ms or a date string).
	SLATime = rest.SLATime
	// SLASummaryList is the answer of GET /v2/sla.
	SLASummaryList = rest.SLASummaryList
	// BulkResponse is one element of a bulk-monitor answer.
	BulkResponse = rest.BulkResponse
	// BulkList is the answer of GET /jobs?bulk=.
	BulkList = rest.BulkList
	// Run is one element of a coordinator action's allruns list.
	Run = rest.Run
	// Retry is one attempt of a workflow action (show=retries).
	Retry = rest.Retry
)

// itoa formats optional integer query parameters.
func itoa(n int) string { return strconv.Itoa(n) }
