package vocab

// Job properties of a coordinator submission that continue a job begun
// elsewhere (`gozie migrate`, docs/operations.md "Moving live pipelines
// from Oozie"); any submission may set them.
const (
	// PropCoordMaterializeFrom is a UTC datetime (2006-01-02T15:04Z): the
	// job's first materialized action is its first nominal time at or
	// after it, numbered as if the job had run from its start; the job's
	// start, and with it coord:nominalTime and dataset instances, is
	// unchanged.
	PropCoordMaterializeFrom = "gozie.coord.materialize.from"
	// PropCoordMaterializeFromPrefix, followed by the name of a bundle's
	// coordinator, sets PropCoordMaterializeFrom for that coordinator
	// only, in a bundle's job configuration.
	PropCoordMaterializeFromPrefix = "gozie.coord.materialize.from."
	// PropCoordPauseTime is a UTC datetime: the job's pause time from its
	// submission, as if `-change pausetime=` had been run at once.
	PropCoordPauseTime = "gozie.coord.pause.time"
	// PropCoordSubmitSuspended "true" submits the job suspended
	// (PREPSUSPENDED): it materializes nothing until resumed.
	PropCoordSubmitSuspended = "gozie.coord.submit.suspended"
	// PropMigratedFrom names the job a submission copies (the source
	// server's job id); `gozie migrate` looks for it to submit each job
	// once.
	PropMigratedFrom = "gozie.migrated.from"
)
