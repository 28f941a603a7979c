#!/bin/sh
# The reducer gets its words sorted; each arrives as "word<TAB>" (an empty
# value), and uniq -c counts the runs of equal lines.
exec uniq -c
