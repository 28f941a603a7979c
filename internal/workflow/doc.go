// Package workflow is the hPDL (workflow.xml) model of gozie: it parses every
// Oozie workflow schema version (uri:oozie:workflow:0.1 to 1.0) plus the SLA
// and extension action namespaces, and validates definitions the way Oozie
// does, reporting Oozie's error codes.
//
// The package is pure: it reads only the bytes handed to it, never the clock
// or the file system. EL expressions (${...}) are kept verbatim; they are
// resolved at run time by the engine.
//
// # Processing order
//
// Parse follows Oozie's submission path so that the first error reported is
// the one Oozie would report:
//
//  1. size limit (E0736);
//  2. well-formed XML and a known workflow namespace (E0701);
//  3. schema structure, when Options.SchemaValidation (E0701, worded like
//     the Xerces messages Oozie prints, plus the line and column);
//  4. model building: one start, one end, decisions with a default, kill
//     nodes with a message (E0701);
//  5. <global> and server defaults applied to action bodies; actions that
//     need a cluster and still lack one fail with E0701 "No name-node
//     defined" / "No job-tracker or resource-manager defined" (checked in
//     that order, as Oozie's parser does);
//  6. graph checks (Validate): E0705, E0724, E0723, E0706, E0708, E0707, then
//     the fork/join rules (E0730, E0733, E0737, E0742, E0743, E0744, E0757)
//     when both oozie.validate.ForkJoin and oozie.wf.validate.ForkJoin allow.
//
// # Choices where the sources disagree or are silent
//
//   - Node kinds are named StartNode, EndNode, ... because Action is the type
//     of an action body.
//   - E0705 reads "Node already defined, node [x]"; Oozie's template has a
//     typo ("Nnode") that gozie does not reproduce.
//   - Node names: the spec text says "up to 20 characters" but the schemas'
//     IDENTIFIER pattern sets no bound; gozie applies the pattern's character
//     rules and a configurable bound (Options.MaxNodeNameLength, default 128).
//     EL in a node name is rejected (E0701 with schema checks, else E0724):
//     the graph must be known at submission. EL in a transition target is an
//     E0701 pattern violation with schema checks and an E0708 otherwise.
//   - job-tracker/resource-manager and name-node of the built-in actions
//     (map-reduce, pig, java) are treated as optional in the structure
//     checks of every workflow version (schemas up to 0.4 require them)
//     because <global> and server defaults may supply them; their presence
//     is enforced after that resolution, as Oozie's parser does. Extension
//     schemas that require them (shell 0.1, hive 0.2, ...) are kept as
//     they are: there the body itself must name them.
//   - fs <setrep> is accepted from schema 0.5 on: section 3.2.4 documents it
//     although the appendix schemas omit it.
//   - Extension action bodies (shell, email, ssh, hive, hive2, sqoop, spark,
//     distcp, git) are checked against the content model of their own
//     namespace version (extschemas.go, from the XSDs Oozie ships; element
//     values are not typed); a version of one of these types that no
//     schema declares is E0701, as Xerces' strict wildcard refuses it.
//     Action elements in other namespaces are kept as generic actions;
//     whether they may run is decided by Options.ExtensionActions (E0723),
//     not by the schema check.
//   - E0744 (a fork listing a node twice) belongs to the fork/join rules and
//     is switched off with them; duplicate paths to a join or kill node are
//     tolerated.
//   - The workflow name is any string in every version: the spec's appendix
//     types it IDENTIFIER in 0.1-0.3, but the schemas Oozie ships declare
//     xs:string, so ${...} names (resolved at submission) are valid.
//   - E0743 counts only nodes other than kill, join and end, as Oozie's
//     validator does: several ok paths of a fork may reach one kill node.
package workflow
