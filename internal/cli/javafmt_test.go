package cli

import (
	"math"
	"testing"
)

// TestJavaFormatting: the text the oozie CLI's Java libraries make of
// server values, which gozie's CLI reproduces.
func TestJavaFormatting(t *testing.T) {
	doubles := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1.5, "1.5"}, {100, "100.0"}, {-2.5, "-2.5"},
		{0.001, "0.001"}, {1.234e-4, "1.234E-4"}, {1e7, "1.0E7"}, {12345678.9, "1.23456789E7"},
		{9999999, "9999999.0"}, {math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
	}
	for _, c := range doubles {
		if got := javaDouble(c.in); got != c.want {
			t.Errorf("javaDouble(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	hashes := []struct {
		in   string
		want int32
	}{{"", 0}, {"hello", 99162322}, {"polygenelubricants", math.MinInt32}, {"Aa", 2112}, {"BB", 2112}}
	for _, c := range hashes {
		if got := javaStringHash(c.in); got != c.want {
			t.Errorf("javaStringHash(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	texts := []struct{ in, want string }{
		// Buckets 15, 11 and 0 of a 16-slot HashMap: printed 0, 11, 15.
		{`{"build.user":"ci","vc.url":"https://x/y","build.version":"5.3.0"}`,
			`{"build.version":"5.3.0","vc.url":"https:\/\/x\/y","build.user":"ci"}`},
		// Same bucket: insertion order.
		{`{"BB":1,"Aa":2}`, `{"BB":1,"Aa":2}`},
		{`{"Aa":2,"BB":1}`, `{"Aa":2,"BB":1}`},
		{`{"a":[1,2.0,true,null,"q\"\n"],"b":{"c":1e3}}`, `{"a":[1,2.0,true,null,"q\"\n"],"b":{"c":1000.0}}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`"x\u0001"`, `"x\u0001"`},
	}
	for _, c := range texts {
		got, err := javaJSONText([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("javaJSONText(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	// More keys than a 16-slot table holds at 0.75 load: the table grows
	// to 32 before iteration.
	keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12"}
	order := javaHashMapOrder(keys)
	if len(order) != len(keys) {
		t.Fatalf("order %v", order)
	}
	prev := -1
	for _, k := range order {
		h := javaStringHash(k)
		b := int(uint32(h^int32(uint32(h)>>16)) & 31)
		if b < prev {
			t.Errorf("order %v is not by bucket of a 32-slot table", order)
			break
		}
		prev = b
	}
}
