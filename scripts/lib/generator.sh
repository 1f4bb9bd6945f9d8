# Sourced by the build scripts. A new build tree gets Ninja (scripts/install-deps
# installs it); an existing tree keeps the generator it was made with, since CMake
# cannot switch one. Make starts a target's objects only once every library the
# target links is built, so on CI's two cores one sat idle at each library's
# slowest object; Ninja compiles a test program's objects beside them.
if [[ -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null 2>&1; then
  export CMAKE_GENERATOR=Ninja
fi
