// Package xmltree is the one XML foundation of gozie: every document it
// reads (workflow, coordinator, dataset, bundle, Hadoop configuration and
// extension action bodies) goes through the same decoder policy into the
// same positioned element tree, and is checked by the same content-model
// validator. The same bytes therefore get the same answer from every reader.
//
// The decoder policy (Parse):
//   - UTF-8, US-ASCII and ISO-8859-1 documents are read, the encoding named
//     by the XML declaration honoured (ISO-8859-1 is transcoded to UTF-8);
//     a leading byte-order mark is ignored; any other encoding is refused.
//   - Nesting is bounded by MaxDepth and size by MaxBytes, so that hostile
//     input costs neither stack nor quadratic time.
//   - A DOCTYPE that declares or references anything (an internal subset,
//     an external identifier) and any other markup declaration (<!ENTITY,
//     <!ELEMENT, ...) are refused: gozie never expands entities or fetches
//     DTDs. A bare <!DOCTYPE name>, which declares nothing, is accepted.
//   - Text outside the root element and a second root are refused.
//
// The validator (Type, Particle, Validator.Check) mirrors what Oozie's XSD
// validation (Xerces) rejects and words its messages the way Xerces does, so
// users recognise them. Readers turn a *DocError into their own coded error
// (E0701 for workflow and coordinator documents, conf.ParseError for
// configurations) and keep the models of their documents in their own
// packages: a new document kind is models plus this tree.
//
// The package is pure: it reads the bytes it is given and nothing else.
package xmltree
