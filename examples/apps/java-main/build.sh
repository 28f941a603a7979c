#!/bin/sh
# Builds lib/java-main.jar from src/ (needs a JDK: javac and jar on PATH,
# or JAVA_HOME set). gozie puts every jar of an application's lib/ on the
# java action's class path, as Oozie does.
set -e
cd "$(dirname "$0")"
bin=${JAVA_HOME:+$JAVA_HOME/bin/}
rm -rf build
mkdir -p build lib
"${bin}javac" -d build $(find src -name '*.java')
"${bin}jar" cf lib/java-main.jar -C build .
rm -rf build
echo "built $(pwd)/lib/java-main.jar"
