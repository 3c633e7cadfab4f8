# Sourced by scripts that run the release build: `build_release_tripstream` builds it with its output piped,
# on a terminal or not. On a terminal SwiftPM adds -color-diagnostics to every compile, which changes the
# build description: switching between a terminal and a pipe then rebuilt everything (90-100 s).
build_release_tripstream() {
    swift build -c release --product tripstream 2>&1 | cat >&2
}
