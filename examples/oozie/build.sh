#!/bin/sh
# Builds apps/java-main/lib/oozie-examples.jar from src/, the jar Oozie's
# examples ship prebuilt (needs a JDK: javac and jar on PATH, or JAVA_HOME
# set). Run it once in the copy you mount, before running java-main.
set -e
cd "$(dirname "$0")"
bin=${JAVA_HOME:+$JAVA_HOME/bin/}
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"${bin}javac" -d "$classes" $(find src -name '*.java')
mkdir -p apps/java-main/lib
"${bin}jar" cf apps/java-main/lib/oozie-examples.jar -C "$classes" .
echo "built $(pwd)/apps/java-main/lib/oozie-examples.jar"
