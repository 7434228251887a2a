#!/bin/sh
# Builds the runnable distribution bayeux-server-VERSION.tar.gz (bin/, lib/, conf/, apps/) from this module's jar and
# its runtime class path (target/runtime-classpath.txt, written at package). Run by Maven (exec-maven-plugin, phase
# pre-integration-test) so that "bin/bayeux dist" and the distribution's test build it the same way.
#   build-dist.sh TARGET_DIR VERSION
set -eu
target="$1"
version="$2"
src="$(cd "$(dirname "$0")" && pwd -P)"
name="bayeux-server-$version"
stage="$target/dist/$name"
jar="$target/bayeux-standalone-$version.jar"

[ -f "$jar" ] || { echo "build-dist: $jar missing (run the package phase)" >&2; exit 1; }
[ -f "$target/runtime-classpath.txt" ] || { echo "build-dist: $target/runtime-classpath.txt missing" >&2; exit 1; }

rm -rf "$target/dist" "$target/$name.tar.gz"
mkdir -p "$stage/bin" "$stage/lib" "$stage/conf" "$stage/apps"
cp "$jar" "$stage/lib/"
# The runtime class path, one entry per line; a folder instead of a jar means a module was not packaged.
tr ':' '\n' < "$target/runtime-classpath.txt" | while IFS= read -r entry; do
  [ -n "$entry" ] || continue
  if [ ! -f "$entry" ]; then
    echo "build-dist: class path entry $entry is not a jar (build the modules with package)" >&2
    exit 1
  fi
  cp "$entry" "$stage/lib/"
done
cp "$src/bin/bayeux-server" "$stage/bin/"
chmod 755 "$stage/bin/bayeux-server"
cp "$src/conf/logback.xml" "$src/conf/bayeux.properties.example" "$stage/conf/"
cp "$src/apps/README.txt" "$stage/apps/"
cp "$src/../../../../LICENSE" "$stage/" 2>/dev/null || true
tar -C "$target/dist" --owner=0 --group=0 --numeric-owner -czf "$target/$name.tar.gz" "$name"
echo "build-dist: $target/$name.tar.gz ($(ls "$stage/lib" | wc -l) jars)"
