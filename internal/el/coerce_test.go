package el

import (
	"math"
	"testing"
)

// variables, so the sums are computed in float64 and not as exact constants
var tenth, three = 0.1, 3.0

func TestFormatDouble(t *testing.T) {
	// Expected values are what java.lang.Double.toString prints.
	tests := []struct {
		f    float64
		want string
	}{
		{5, "5.0"},
		{2.5, "2.5"},
		{-1.5, "-1.5"},
		{100, "100.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.001, "0.001"},
		{0.002, "0.002"},
		{0.0001, "1.0E-4"},
		{1.0e-5, "1.0E-5"},
		{1.5e-7, "1.5E-7"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{1e10, "1.0E10"},
		{123456789, "1.23456789E8"},
		{12345.678, "12345.678"},
		{tenth + 2*tenth, "0.30000000000000004"},
		{1 / three, "0.3333333333333333"},
		{1e23, "1.0E23"},
		{1e21, "1.0E21"},
		{-2.5e-10, "-2.5E-10"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{4.9e-324, "4.9E-324"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := FormatDouble(tt.f); got != tt.want {
			t.Errorf("FormatDouble(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestToString(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, ""},
		{"s", "s"},
		{true, "true"},
		{int64(-3), "-3"},
		{7, "7"},
		{uint8(200), "200"},
		{float32(0.5), "0.5"},
		{2.0, "2.0"},
		{map[string]string{"b": "2", "a": "1"}, "{a=1, b=2}"},
		{map[string]any{"x": nil, "y": 1.0}, "{x=, y=1.0}"},
		{[]any{"a", int64(1)}, "[a, 1]"},
	}
	for _, tt := range tests {
		if got := ToString(tt.v); got != tt.want {
			t.Errorf("ToString(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestNumericCoercion(t *testing.T) {
	longs := []struct {
		v    any
		want int64
		ok   bool
	}{
		{nil, 0, true},
		{"", 0, true},
		{"42", 42, true},
		{"+42", 42, true},
		{"-42", -42, true},
		{"01", 1, true},
		{" 1", 0, false}, // Long.valueOf does not trim
		{"1.0", 0, false},
		{"0x10", 0, false},
		{2.9, 2, true},
		{-2.9, -2, true},
		{math.NaN(), 0, true},
		{1e300, math.MaxInt64, true},
		{true, 0, false},
		{map[string]any{}, 0, false},
	}
	for _, tt := range longs {
		got, err := toLong(tt.v)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("toLong(%#v) = %d, %v; want %d ok=%v", tt.v, got, err, tt.want, tt.ok)
		}
	}
	doubles := []struct {
		v    any
		want float64
		ok   bool
	}{
		{nil, 0, true},
		{"", 0, true},
		{"1.5", 1.5, true},
		{" 1.5 ", 1.5, true}, // Double.valueOf trims
		{"1e3", 1000, true},
		{"2d", 2, true},
		{"2.5F", 2.5, true},
		{".5", 0.5, true},
		{"-Infinity", math.Inf(-1), true},
		{"1e999", math.Inf(1), true},
		{"inf", 0, false},
		{"0x1p3", 0, false},
		{"1_000", 0, false},
		{"--1", 0, false},
		{"abc", 0, false},
		{int64(3), 3, true},
		{false, 0, false},
	}
	for _, tt := range doubles {
		got, err := toDouble(tt.v)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("toDouble(%#v) = %v, %v; want %v ok=%v", tt.v, got, err, tt.want, tt.ok)
		}
	}
	if f, err := toDouble("NaN"); err != nil || !math.IsNaN(f) {
		t.Errorf("toDouble(NaN) = %v, %v", f, err)
	}
}

func TestBoolCoercion(t *testing.T) {
	tests := []struct {
		v    any
		want bool
		ok   bool
	}{
		{nil, false, true},
		{"", false, true},
		{"true", true, true},
		{"TRUE", true, true},
		{"yes", false, true},
		{true, true, true},
		{int64(1), false, false},
		{1.0, false, false},
		{map[string]any{}, false, false},
	}
	for _, tt := range tests {
		got, err := toBool(tt.v)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("toBool(%#v) = %v, %v; want %v ok=%v", tt.v, got, err, tt.want, tt.ok)
		}
	}
}

func TestCompareJavaStrings(t *testing.T) {
	// U+FFFD sorts after U+10000 in UTF-8 order but before it in UTF-16
	// order, where the supplementary character starts with a surrogate.
	if c := compareJavaStrings("\uFFFD", "\U00010000"); c <= 0 {
		t.Errorf("compare = %d, want > 0 (UTF-16 order)", c)
	}
	if c := compareJavaStrings("a", "b"); c >= 0 {
		t.Errorf("compare = %d", c)
	}
	if c := compareJavaStrings("ab", "a"); c <= 0 {
		t.Errorf("compare = %d", c)
	}
}
