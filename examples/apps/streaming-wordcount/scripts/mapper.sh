#!/bin/sh
# One word per line: runs of white space become line ends.
exec tr -s '[:space:]' '\n'
