// Command inodes measures what creating a file costs in a directory: the
// part of a short step that depends on the file system's recent history
// (on ext4 without a journal, inodes freed in the last minutes make every
// new one dearer; see docs/benchmarks.md). It creates -n empty files in a
// new directory under -dir, removes them, and prints microseconds per
// file for -rounds rounds.
//
//	go run ./bench/inodes -dir /tmp -n 1000 -rounds 3
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	dir := flag.String("dir", os.TempDir(), "parent of the directory the files are made in")
	n := flag.Int("n", 1000, "files per round")
	rounds := flag.Int("rounds", 3, "rounds")
	keep := flag.Bool("keep", false, "keep the files (removing them frees inodes, which slows the next creations for a minute or two)")
	flag.Parse()
	if *n < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "inodes: -n and -rounds must be positive")
		os.Exit(2)
	}
	for r := 1; r <= *rounds; r++ {
		d, err := os.MkdirTemp(*dir, "gozie-inodes-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "inodes:", err)
			os.Exit(1)
		}
		t0 := time.Now()
		for i := 0; i < *n; i++ {
			f, err := os.OpenFile(filepath.Join(d, strconv.Itoa(i)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				fmt.Fprintln(os.Stderr, "inodes:", err)
				os.Exit(1)
			}
			f.Close()
		}
		per := time.Since(t0) / time.Duration(*n)
		fmt.Printf("round %d: %d files in %s: %.1f µs per file\n", r, *n, d, float64(per.Nanoseconds())/1e3)
		if !*keep {
			os.RemoveAll(d)
		}
	}
}
