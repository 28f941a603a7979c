// Package conf reads, writes, merges and expands the two configuration formats
// an Oozie application is made of: Hadoop configuration XML (config-default.xml,
// job-xml files, the <configuration> blocks of workflow.xml) and Java
// .properties files (job.properties, -D definitions, launcher output).
//
// Both formats load into a Config: an ordered set of named properties that
// remembers where each value came from, so that later layers (the engine, the
// CLI) can say "job.properties:7: ..." instead of "bad value".
//
// # Precedence
//
// Layers are combined with Merge: a later layer wins, except that a property
// marked <final>true</final> by an earlier layer keeps its value. That is the
// rule Hadoop applies when it loads one resource after another, and it is what
// lets a site file pin a value that job files cannot change. Set and
// SetProperty are programmatic assignments and, as Hadoop's Configuration.set
// does, ignore finality. MergeDefaults gives Oozie's config-default.xml rule:
// a default only fills a name the job did not set.
//
// # Variables
//
// Get expands Hadoop-style ${name} references against the Config itself and
// then against an optional Resolver (for values such as user.name that come
// from the environment rather than from a file). Raw returns the text as
// written. Oozie EL expressions such as ${wf:conf('x')} or ${a == b} are not
// variable references: they are left exactly as written for the EL evaluator.
//
// # Where this package differs from Hadoop and the JDK
//
//   - Expansion: Hadoop stops expanding a value at the first reference it
//     cannot resolve, and throws when a value needs more than 20 substitutions.
//     Here an unresolvable reference stays literal and the rest of the text is
//     still expanded; a chain of references deeper than 20, a cycle, or a value
//     that would need more than maxSubstitutions substitutions in total leaves
//     the offending reference literal instead of failing. Get never fails.
//     Hadoop also rescans the text a substitution produces, so ${a.${b}}
//     looks up a name built from b's value; here the inner reference is
//     expanded but the name it builds is not looked up again.
//   - .properties input is read as UTF-8, as Oozie's tools read job.properties
//     as text. java.util.Properties.load(InputStream) reads ISO-8859-1 instead;
//     to keep such legacy files working, input that is not valid UTF-8 is
//     decoded as ISO-8859-1 as a whole (the fallback Java 9 resource bundles
//     use). A leading UTF-8 byte order mark is ignored, where Java would make
//     it part of the first key.
//   - A \u escape that names half of a UTF-16 surrogate pair without its other
//     half cannot be represented in a Go string and becomes U+FFFD.
//   - Property names read from XML are trimmed of surrounding whitespace and
//     values are kept verbatim, as Hadoop does; an empty name is rejected.
package conf
