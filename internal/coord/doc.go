// Package coord is the coordinator model: the coordinator-app parser
// (schemas 0.1-0.5, SLA 0.1/0.2, dataset include files), submission
// (config-default.xml, <parameters>, EL phases, the checks of spec section
// 11 with Oozie's error codes), materialization planning (frequencies, cron,
// DST, throttle, catch-up, window, pause), input checks (done flags,
// coord:latest/future, timeouts), the workflow configuration an action
// runs with, execution policies, and dry runs.
//
// Underneath are synchronous datasets, the coordinator action an evaluation
// is for, the dataset-instance arithmetic of spec sections 6.6 and 6.9
// (coord:current, coord:offset, ranges, hoursInDay, daysInMonth, tzOffset,
// latest/future, URI templates), Java SimpleDateFormat formatting for
// coord:formatTime, and the EL function registries of Oozie's evaluation
// phases.
//
// The flow: Submit (or Load of a persisted Definition) gives an App;
// App.Materialize plans actions; App.CheckInputs decides READY or TIMEDOUT;
// App.RunConf is the workflow configuration of a READY action; App.Decide
// applies concurrency and the execution policy; DryRun does all of it
// without a store.
//
// The package is pure: times are passed in, and the existence checks of
// coord:latest and coord:future go through a caller-supplied function.
//
// # Oozie quirks reproduced
//
//   - coord:current(n) adds (k+n) frequencies to the initial instance in one
//     Calendar.add, while ranges (currentRange and resolved start/end
//     instances) add once for the first instance and then step one frequency
//     at a time, so after month-end clamping (monthly from Jan 31) or a DST
//     gap the two disagree, as they do in Oozie.
//
//   - Instances before the (end-of-duration shifted) initial instance are ""
//     for current/offset and are silently dropped from ranges.
//
//   - coord:offset rewinds to the latest instance at or before the shifted
//     time; as a start-instance of a range it fast-forwards.
//
//   - Phase-1 (submission) evaluators echo instance functions back as
//     ${coord:...} text, print formatTime/epochTime arguments as
//     "'date' , fmt", and return 24, 30 and 3 for hoursInDay, daysInMonth and
//     tzOffset so arithmetic around them can be checked.
//
//   - latest() searches backwards from the instance of the action's actual
//     time, future(n, limit) forwards from the nominal time through limit+1
//     instances; unresolved calls stay as ${coord:latest(n)} text.
//
//   - An input check stops at the first missing dependency and reports it
//     and every later one as missing, present or not.
//
//   - An action's createdConf is the job configuration; the workflow
//     configuration is computed when the action starts (runConf).
//
//   - Catch-up: a materialization window wholly in the past extends to
//     throttle frequencies (cron: the job end); LAST_ONLY and NONE jobs
//     catch up to now, bounded by the batch size instead of the throttle.
//
// # Quirks deliberately not reproduced
//
//   - coord:offset in a range after month-end clamping throws "Shouldn't
//     happen" in Oozie; gozie resolves the range.
//   - coord:endOfDays/Weeks/Months as start-instances use the dataset time
//     zone; all known Oozie vectors are in UTC, where the choice is moot.
package coord
