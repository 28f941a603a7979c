package xmltree_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/workflow"
	"github.com/gozie/gozie/internal/xmltree"
)

// The three readers of the probe. Each reads its kind of document and
// returns the text the document carries in its probe slot (V): a kill
// message, a coordinator action's configuration value, a property value.
var probeReaders = []struct {
	name string
	body string // the document's root element, V where the probe text goes
	read func([]byte) (string, error)
}{
	{"workflow", `<workflow-app xmlns="uri:oozie:workflow:0.5" name="probe"><start to="k"/><kill name="k"><message>V</message></kill><end name="e"/></workflow-app>`,
		func(b []byte) (string, error) {
			// The Oozie definition-length limit (E0736, 100,000 bytes by
			// default) comes before the XML policy; it is lifted here so
			// that the probe reaches the policy.
			app, err := workflow.Parse(b, workflow.Options{SchemaValidation: true, MaxDefinitionLength: -1})
			if err != nil {
				return "", err
			}
			return app.Node("k").Message, nil
		}},
	{"coordinator", `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="probe" frequency="60" start="2026-01-01T00:00Z" end="2026-01-02T00:00Z" timezone="UTC"><action><workflow><app-path>hdfs://nn/app</app-path><configuration><property><name>p</name><value>V</value></property></configuration></workflow></action></coordinator-app>`,
		func(b []byte) (string, error) {
			app, err := coord.ParseApp(b)
			if err != nil {
				return "", err
			}
			return app.Configuration[0].Value, nil
		}},
	{"configuration", `<configuration><property><name>p</name><value>V</value></property></configuration>`,
		func(b []byte) (string, error) {
			c, err := conf.ParseXML(strings.NewReader(string(b)), "probe")
			if err != nil {
				return "", err
			}
			v, _ := c.Raw("p")
			return v, nil
		}},
}

// TestProbeSameAnswer feeds the same documents to the workflow, coordinator
// and configuration readers and checks that all three give one answer: the
// same text read, or a refusal for the same reason at the same place. Where
// a row's document is written per kind, only the root element differs: the
// prolog and the probed bytes are the same.
func TestProbeSameAnswer(t *testing.T) {
	const latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
	deep := strings.Repeat("<x>", xmltree.MaxDepth+1) + strings.Repeat("</x>", xmltree.MaxDepth+1)
	rows := []struct {
		name    string
		prolog  string // before the per-kind body
		v       string // the probe text, in the document's encoding
		same    string // when set, the whole document, identical for all readers
		want    string // the text every reader reads, when accepted
		refused xmltree.Kind
	}{
		{name: "UTF-8 declared", prolog: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", v: "café", want: "café"},
		{name: "UTF-8 undeclared, BOM", prolog: "\uFEFF", v: "café", want: "café"},
		{name: "US-ASCII", prolog: "<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n", v: "cafe", want: "cafe"},
		{name: "ISO-8859-1", prolog: latin1, v: "caf\xe9", want: "café"},
		{name: "ISO-8859-1 undeclared", v: "caf\xe9", refused: xmltree.Syntax},
		{name: "unsupported encoding", prolog: "<?xml version=\"1.0\" encoding=\"EBCDIC\"?>\n", v: "x", refused: xmltree.Encoding},
		{name: "DTD with an entity", prolog: "<!DOCTYPE x [<!ENTITY e \"v\">]>\n", v: "&e;", refused: xmltree.DTD},
		{name: "external DTD", prolog: "<!DOCTYPE x SYSTEM \"http://example.com/x.dtd\">\n", v: "x", refused: xmltree.DTD},
		{name: "entity declaration", prolog: "<!ENTITY e \"v\">\n", v: "x", refused: xmltree.DTD},
		{name: "over-deep", same: deep, refused: xmltree.TooDeep},
		{name: "over-large", v: strings.Repeat("x", xmltree.MaxBytes), refused: xmltree.TooLarge},
		{name: "not well-formed", prolog: "\n", v: "<b>", refused: xmltree.Syntax},
		{name: "text outside the root", same: "<configuration/>\ntrailing", refused: xmltree.TextOutside},
		{name: "two roots", same: "<configuration/>\n<configuration/>", refused: xmltree.ExtraRoot},
		{name: "empty", same: " \n", refused: xmltree.Empty},
	}
	table := []string{fmt.Sprintf("%-24s | %-22s | %-22s | %-22s", "document", "workflow", "coordinator", "configuration")}
	for _, row := range rows {
		line := fmt.Sprintf("%-24s", row.name)
		for _, r := range probeReaders {
			doc := row.same
			if doc == "" {
				doc = row.prolog + strings.Replace(r.body, "V", row.v, 1)
			}
			got, err := r.read([]byte(doc))
			answer, problem := judge(row.want, row.refused, []byte(doc), got, err)
			if problem != "" {
				t.Errorf("%s, %s: %s", row.name, r.name, problem)
			}
			line += fmt.Sprintf(" | %-22s", answer)
		}
		table = append(table, line)
	}
	t.Log("\n" + strings.Join(table, "\n"))
}

// judge checks one reader's answer against the row's expectation and
// returns the answer as a table cell, and what is wrong with it.
func judge(want string, refused xmltree.Kind, doc []byte, got string, err error) (string, string) {
	if refused == 0 {
		if err != nil {
			return "error", fmt.Sprintf("refused: %v", err)
		}
		if got != want {
			return fmt.Sprintf("read %q", got), fmt.Sprintf("read %q, want %q", got, want)
		}
		return fmt.Sprintf("read %q", got), ""
	}
	if err == nil {
		return "accepted", fmt.Sprintf("accepted (read %q), want refusal %v", got, refused)
	}
	// The policy's own verdict on the bytes is the reference every reader
	// must repeat, in its own words but at the same place.
	_, perr := xmltree.Parse(doc)
	var te *xmltree.DocError
	if !errors.As(perr, &te) || te.Kind != refused {
		return "?", fmt.Sprintf("xmltree.Parse = %v, want kind %v", perr, refused)
	}
	cell := fmt.Sprintf("refused %s @%d:%d", kindName[refused], te.Line, te.Col)
	var pe *conf.ParseError
	if errors.As(err, &pe) && pe.Code == "" { // conf.ParseError is the uncoded vocab.Error
		if pe.Line != te.Line {
			return cell, fmt.Sprintf("conf error %q at line %d, want line %d", err, pe.Line, te.Line)
		}
		if !strings.Contains(pe.Msg, confWording(te)) {
			return cell, fmt.Sprintf("conf error %q, want %q", err, confWording(te))
		}
		return cell, ""
	}
	if workflow.ErrorCode(err) != workflow.CodeSchema && coord.ErrorCode(err) != coord.CodeSchema {
		return cell, fmt.Sprintf("error %v, want E0701", err)
	}
	if !strings.HasSuffix(err.Error(), "XML schema error, "+te.Error()) {
		return cell, fmt.Sprintf("error %q, want it to end %q", err, te.Error())
	}
	return cell, ""
}

// confWording is how the configuration reader words each refusal, the
// texts its users and tests know.
func confWording(te *xmltree.DocError) string {
	switch te.Kind {
	case xmltree.Empty:
		return "no <configuration> element"
	case xmltree.TextOutside:
		return "text outside <configuration>"
	case xmltree.ExtraRoot:
		return "unexpected <" + te.Name + "> after </configuration>"
	case xmltree.TooDeep:
		return fmt.Sprintf("elements nested more than %d deep", te.Limit)
	}
	return "invalid XML: " + te.Msg
}

var kindName = map[xmltree.Kind]string{
	xmltree.Syntax: "syntax", xmltree.Encoding: "encoding", xmltree.DTD: "DTD", xmltree.TooDeep: "depth",
	xmltree.TooLarge: "size", xmltree.Empty: "empty", xmltree.ExtraRoot: "2nd root", xmltree.TextOutside: "text",
}
