// Command gozie runs Oozie workflow applications: an engine and REST server,
// an Oozie-compatible command line, and offline tools, in one binary.
//
// All behaviour lives in internal/cli; this file only hands over the
// arguments and the process streams.
package main

import (
	"os"

	"github.com/gozie/gozie/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
