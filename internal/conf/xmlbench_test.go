package conf

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParseXML reads a job configuration of 60 properties, the size
// the engines parse a stored job's configuration at.
func BenchmarkParseXML(b *testing.B) {
	c := New()
	for i := range 60 {
		c.Set(fmt.Sprintf("oozie.some.property.%d", i), fmt.Sprintf("hdfs://namenode:8020/user/joe/app/%d/${wf:id()}", i))
	}
	var buf bytes.Buffer
	if err := c.WriteXML(&buf); err != nil {
		b.Fatal(err)
	}
	doc := buf.Bytes()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseXML(bytes.NewReader(doc), "job"); err != nil {
			b.Fatal(err)
		}
	}
}
