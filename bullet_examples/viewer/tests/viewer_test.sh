#!/usr/bin/env bash
# The viewer's tests (ctest label viewer).
#   viewer_test.sh help       VIEWER CHECK OUT         --help works without a display
#   viewer_test.sh no-display VIEWER CHECK OUT         no display: one clear line, exit 3, no crash
#   viewer_test.sh impact     VIEWER CHECK OUT NAME    renders scene NAME paused at its first impact under
#                                                      xvfb-run, checks the picture and that an impact is shown
#   viewer_test.sh world      VIEWER CHECK OUT FILE    the same for a .bullet world
# Exit 77 (ctest: skipped) when xvfb-run is missing (scripts/install-deps installs it).
set -euo pipefail
mode=$1 viewer=$2 check=$3 out=$4
mkdir -p "$out"
headless() {
  command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run not installed (scripts/install-deps)"; exit 77; }
  # Small window, few frames: seconds on Mesa's software renderer.
  xvfb-run -a -s "-screen 0 800x600x24" "$viewer" --width 640 --height 360 "$@"
}
case "$mode" in
  help)
    text=$(env -u DISPLAY -u WAYLAND_DISPLAY "$viewer" --help)
    grep -q -- "--scene" <<<"$text" && grep -q -- "--screenshot" <<<"$text" || { echo "FAIL: --help lacks options"; exit 1; }
    env -u DISPLAY -u WAYLAND_DISPLAY "$viewer" --list-scenes | grep -q "^hanging-cradle" || { echo "FAIL: --list-scenes"; exit 1; }
    echo "PASS: --help and --list-scenes without a display" ;;
  no-display)
    set +e
    message=$(env -u DISPLAY -u WAYLAND_DISPLAY "$viewer" --scene cradle --frames 1 2>&1)
    code=$?
    set -e
    echo "$message"
    [[ $code -eq 3 ]] || { echo "FAIL: exit code $code, expected 3 (a signal is 128 + n)"; exit 1; }
    grep -qi "display" <<<"$message" && grep -q "xvfb-run" <<<"$message" || { echo "FAIL: the message does not say what is missing"; exit 1; }
    echo "PASS: a missing display is one clear line" ;;
  impact)
    rm -f "$out/$5.png" "$out/$5.probe"
    # The hanging cradle's first impact is at t = 1.03 s, frame 62 at 60 frames a second.
    headless --scene "$5" --pause-on-impact --frames 70 --screenshot "$out/$5.png" --probe "$out/$5.probe"
    "$check" "$out/$5.png" "$out/$5.probe"
    grep -q "^clusters [1-9]" "$out/$5.probe" || { echo "FAIL: no impact shown after 70 frames"; exit 1; } ;;
  world)
    rm -f "$out/world.png" "$out/world.probe"
    headless --world "$5" --frames 10 --screenshot "$out/world.png" --probe "$out/world.probe"
    "$check" "$out/world.png" "$out/world.probe" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
