// Package el implements the JSP 2.0 / Unified EL expression language that
// Oozie uses to parameterize workflow and coordinator definitions.
//
// A text is a template: literal text mixed with any number of ${...}
// expressions. Parse turns a text into a Template (a list of literal and
// expression nodes, each expression a small AST); an Evaluator evaluates
// templates against variables (a Resolver) and functions (a Registry).
//
// The package is pure: it never reads the clock (functions such as
// timestamp() get the time from Evaluator.Now) and performs no I/O.
//
// # Coercions
//
// Operators follow the EL specification's coercion rules, as implemented by
// the Jasper EL that Oozie embeds: arithmetic is numeric only (strings that
// hold numbers take part, "'10' + 5" is 15), "/" always yields a double,
// comparisons are numeric when either side is a number, and null counts as
// 0 in arithmetic and as "" when coerced to a String function argument.
// Values are nil, string, bool, int64, float64, maps with string keys and
// slices; other Go integer and float kinds are widened to int64/float64.
//
// # Errors
//
// Every failure is an *Error carrying an Oozie error code. Both syntax and
// evaluation errors use E1004 ("Expression language evaluation error"):
// Oozie's E1003 means "Invalid coordinator application attributes", which is
// the wrapper the coordinator layer adds around an EL failure, so it is left
// to that layer. Error.Syntax tells the two kinds apart.
//
// # Known differences from Oozie/Jasper
//
//   - Jasper resolves functions while parsing, so an unknown function fails
//     even in a branch that never runs; Eval fails only when the call is
//     reached. Registry.Check gives the strict, parse-time behaviour.
//   - Doubles print with the JDK 19+ Double.toString rules (shortest
//     round-trip digits); older JDKs occasionally printed one more digit.
//   - toPropertiesStr omits the "#date" comment line Properties.store
//     writes, and toJsonStr/toPropertiesStr/toConfigurationStr sort keys
//     (Java's HashMap order is unspecified), so results are reproducible.
//   - Regular expressions run on Go's RE2; see ReplaceAll for the gaps.
//   - Jasper's quirk of dropping a backslash in "\{" outside expressions is
//     not reproduced.
//
// # Deferred syntax
//
// A #{...} segment is parsed and evaluated like ${...}, as Jasper's parser
// (behind Oozie's evaluator) accepts EL's deferred syntax; "\#{" is a
// literal "#{", and a text mixing both kinds is a syntax error, as in
// Jasper.
package el
