#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds an outside project
# against it with find_package(propimpact), runs it (examples, and the
# multibody tests of issue 13 through the installed package), runs the project's
# propimpact_add_energy_check() tests on a world exported by the installed
# propimpact-compare (the propagative check passes, the stock one fails), and
# checks that a project asking for the other Bullet precision is refused at
# configure time.
set -euo pipefail
build_dir=$1 source_dir=$2 precision=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
compare="$work/prefix/bin/propimpact-compare"
energy=()
if "$compare" world --help >/dev/null 2>&1 && "$compare" export gas --count 8 -o "$work/elastic.bullet" 2>/dev/null &&
   "$compare" world "$work/elastic.bullet" --seconds 0 -q -o /dev/null 2>/dev/null; then
  energy=(-DENERGY_WORLD="$work/elastic.bullet")
else
  echo "note: this build's propimpact-compare cannot replay .bullet files (no importer): energy checks skipped" >&2
fi
cmake -S "$source_dir/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DHELLO_SOURCE="$source_dir/bullet_examples/hello_drop_in.cpp" \
  -DMULTIBODY_SOURCE="$source_dir/bullet_examples/multibody_cradle.cpp" \
  -DMULTIBODY_TESTS="$source_dir/tests/multibody" "${energy[@]}" >/dev/null
cmake --build "$work/consumer" -j 2 >/dev/null
"$work/consumer/hello_drop_in" | tail -1
"$work/consumer/multibody_cradle" | tail -1
"$work/consumer/multibody_tests" >"$work/multibody_tests.log" 2>&1 ||
  { cat "$work/multibody_tests.log" >&2; echo "FAIL: the multibody tests against the installed package" >&2; exit 1; }
echo "multibody tests against the installed package: $(tail -1 "$work/multibody_tests.log")"
if ((${#energy[@]})); then
  grep -q "$work/prefix/bin/propimpact-compare" "$work/consumer/CTestTestfile.cmake" ||
    { echo "FAIL: the energy check does not run the installed propimpact-compare" >&2; exit 1; }
  ctest --test-dir "$work/consumer" -E '^elastic_world_stock$' --output-on-failure >"$work/ctest.log" 2>&1 ||
    { cat "$work/ctest.log" >&2; echo "FAIL: the consumer's energy checks did not pass" >&2; exit 1; }
  if ctest --test-dir "$work/consumer" -R '^elastic_world_stock$' --output-on-failure >"$work/stock.log" 2>&1; then
    echo "FAIL: the energy check passed stock Bullet on an elastic world" >&2; exit 1
  fi
  grep -q "solver=bullet-si: worst relative energy drift" "$work/stock.log" || { cat "$work/stock.log" >&2; exit 1; }
  echo "PASS: propimpact_add_energy_check passes the propagative solver and fails stock Bullet ($(grep -o 'energy drift [0-9.e+-]*' "$work/stock.log" | head -1))"
fi
other=single; [[ $precision == single ]] && other=double
if cmake -S "$source_dir/tests/package/mismatch" -B "$work/mismatch" -DCMAKE_PREFIX_PATH="$work/prefix" \
     -Dpropimpact_REQUIRED_PRECISION=$other >"$work/mismatch.log" 2>&1; then
  echo "FAIL: a $other-precision consumer was accepted by a $precision package" >&2
  exit 1
fi
grep -q "precision" "$work/mismatch.log" || { cat "$work/mismatch.log" >&2; exit 1; }
echo "PASS: package builds an outside project and refuses a $other-precision consumer"
