#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds an outside project
# against it with find_package(propimpact), runs it, and checks that a
# project asking for the other Bullet precision is refused at configure time.
set -euo pipefail
build_dir=$1 source_dir=$2 precision=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DHELLO_SOURCE="$source_dir/bullet_examples/hello_drop_in.cpp" >/dev/null
cmake --build "$work/consumer" -j 2 >/dev/null
"$work/consumer/hello_drop_in" | tail -1
other=single; [[ $precision == single ]] && other=double
if cmake -S "$source_dir/tests/package/mismatch" -B "$work/mismatch" -DCMAKE_PREFIX_PATH="$work/prefix" \
     -Dpropimpact_REQUIRED_PRECISION=$other >"$work/mismatch.log" 2>&1; then
  echo "FAIL: a $other-precision consumer was accepted by a $precision package" >&2
  exit 1
fi
grep -q "precision" "$work/mismatch.log" || { cat "$work/mismatch.log" >&2; exit 1; }
echo "PASS: package builds an outside project and refuses a $other-precision consumer"
