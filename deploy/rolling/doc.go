// Package rolling holds the rolling-upgrade test of docs/operations.md
// ("Upgrades"): three `gozie server` processes on one PostgreSQL database,
// restarted one at a time on a second build while workflows and a
// coordinator run. It has no code of its own; the test builds gozie twice
// with different link-time versions and drives the servers over REST.
package rolling
