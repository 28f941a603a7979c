package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
)

// profileEnv names a file for a CPU profile of any gozie command, for
// benchmarks of commands without a -cpuprofile flag (gozie run). Hidden:
// documented in docs/benchmarks.md only. A child gozie (the launch
// supervisor inherits the variable) writes FILE.<verb>.<pid> instead, so
// that it does not overwrite its parent's profile.
const profileEnv = "GOZIE_CPUPROFILE"

// startEnvProfile starts the CPU profile GOZIE_CPUPROFILE asks for and
// returns the function that stops it; a no-op when the variable is unset.
func startEnvProfile(verb string, stderr io.Writer) func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	if verb != "run" && verb != "server" {
		path += "." + verb + "." + strconv.Itoa(os.Getpid())
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s: %v\n", profileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "Error: %s: %v\n", profileEnv, err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
