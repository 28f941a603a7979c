// Package vocab is gozie's shared vocabulary, in the style of go/token: the
// Oozie error-code catalogue, the one coded and positioned error type every
// package reports with, the job and action identifiers of every kind, and
// the typed statuses of workflow, coordinator and bundle jobs and actions
// with the lifecycle tables of the specifications.
//
// It is a leaf: it imports only the standard library, so that the engines,
// the store, the faces and the child-side tools can all share it without
// importing each other.
package vocab
