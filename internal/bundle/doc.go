// Package bundle is the bundle model (Oozie's third kind of job, spec:
// bundle): the bundle-app parser for schemas uri:oozie:bundle:0.1 and 0.2,
// submission (bundle-config-default.xml, <parameters>, EL with the job's
// properties, the checks and error codes of Oozie's bundle submission), the
// configuration each coordinator of a bundle is submitted with, and the
// bundle dry run.
//
// The flow: Submit (or Load of a stored Definition) gives an App; the
// bundle engine submits each enabled Coordinator with CoordProps. DryRun is
// what a dry-run submission answers; CheckDefinition validates a document
// without the job's properties (gozie validate without -config).
//
// The package is pure: files are read through SubmitOptions.ReadFile and
// nothing reads the clock.
//
// # Oozie behaviour reproduced
//
//   - The whole document, comments removed, is one EL text evaluated with
//     the job's properties as variables: EL is resolved wherever it is
//     (attributes, texts, even descriptions), and the resolved document is
//     what a dry run prints.
//   - Failures after the schema check (parameters, EL, duplicate names,
//     the kick-off time) are E1310 "Bundle Job submission Error", the
//     inner coded error in brackets; the schema (E0701) and reading the
//     definition (E1301) keep their own codes.
//   - The defaults file beside bundle.xml is bundle-config-default.xml.
//   - critical and enabled are true only for "true" in any case
//     (Java's Boolean.parseBoolean); enabled defaults to true.
package bundle
