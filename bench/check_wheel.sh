#!/usr/bin/env bash
# Packaging check (minutes, so not part of the test suite): the release wheel and the sdist
# each install into a fresh venv and pass the test suite there.
#
#   1. `maturin build --release` gives one abi3 wheel (cp311-abi3: any CPython >= 3.11)
#      holding the extension, its stub `_core.pyi`, `py.typed` and the bundled data sets.
#   2. That wheel, with the `test` extras, in a fresh venv: the tests pass, run from a copy
#      of tests/ outside the repository so `import quercus` can only find the installed
#      package (checked), never python/ in the work tree.
#   3. `maturin sdist`, then `pip install` of that sdist in another fresh venv (a source
#      build with the Rust toolchain): the tests pass there too.
#
# With --demo (what .ci/run runs, a few minutes): step 1 only, then the wheel alone
# installs into a fresh venv with no Rust toolchain on PATH and `python -m quercus demo`
# runs from it, as a user of a published wheel would.
#
# Every artefact goes to a temporary directory, removed on exit; the repository is only
# read. Usage: bash bench/check_wheel.sh [--demo] [python]   (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
demo=false
if [[ ${1:-} == --demo ]]; then
    demo=true
    shift
fi
python=${1:-python3}
work=$(mktemp -d /tmp/quercus-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT

say() { printf '\n== %s\n' "$*"; }

failed=()

# Runs the copied test suite with the venv's Python; refuses to run if the venv would
# import quercus from anywhere but its own site-packages. A failing suite is recorded, not
# fatal, so both installs are always checked.
run_tests() {
    local venv=$1
    local location
    location=$(cd "$work" && "$venv/bin/python" -c 'import quercus; print(quercus.__file__)')
    echo "quercus imported from $location"
    case $location in
        "$venv"/*) ;;
        *) echo "FAIL: quercus was not imported from the venv" >&2; exit 1 ;;
    esac
    (cd "$work" && "$venv/bin/python" -m pytest tests -q -p no:cacheprovider) ||
        failed+=("tests against the $2")
}

# The tests are copied before building, so they match the sources the builds read.
cp -r "$repo/tests" "$work/tests"

say "maturin build --release"
maturin build --release --out "$work/dist" --interpreter "$python"
wheels=("$work"/dist/*.whl)
[[ ${#wheels[@]} -eq 1 ]] || { echo "FAIL: expected one wheel, got ${wheels[*]}" >&2; exit 1; }
wheel=${wheels[0]}
echo "wheel: $(basename "$wheel")"
[[ $(basename "$wheel") == *-cp311-abi3-* ]] || { echo "FAIL: not a cp311-abi3 wheel" >&2; exit 1; }

say "wheel contents"
"$python" - "$wheel" "$repo/python/quercus/data" <<'EOF'
import pathlib
import sys
import zipfile

wheel, data = sys.argv[1], pathlib.Path(sys.argv[2])
names = set(zipfile.ZipFile(wheel).namelist())
required = {"quercus/py.typed", "quercus/_core.pyi", "quercus/__init__.py"}
required |= {f"quercus/data/{p.name}" for p in data.iterdir() if p.is_file()}
missing = sorted(required - names)
extensions = [n for n in names if n.startswith("quercus/_core") and n.endswith((".so", ".pyd"))]
print(f"{len(names)} files; extension: {extensions}; data files: {len(required) - 3}")
if missing or len(extensions) != 1:
    sys.exit(f"FAIL: the wheel lacks {missing or 'its one extension module'}")
EOF

if $demo; then
    say "fresh venv without a Rust toolchain: the wheel alone, then its demo"
    no_rust=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e cargo -e rustup | paste -sd: -)
    "$python" -m venv "$work/venv-demo"
    (
        cd "$work"
        export PATH="$no_rust"
        if command -v cargo >/dev/null || command -v rustc >/dev/null; then
            echo "FAIL: a Rust toolchain is still on PATH" >&2
            exit 1
        fi
        "$work/venv-demo/bin/pip" install -q "$wheel"
        "$work/venv-demo/bin/python" -m quercus demo >"$work/demo.txt"
    )
    grep -q "== c4.5 tree on watermelon3 ==" "$work/demo.txt" || {
        echo "FAIL: the demo did not print its trees" >&2
        exit 1
    }
    say "OK: the wheel installs without Rust and its demo runs"
    exit 0
fi

say "fresh venv: the wheel with its test extras"
"$python" -m venv "$work/venv-wheel"
"$work/venv-wheel/bin/pip" install -q --upgrade pip
"$work/venv-wheel/bin/pip" install -q "$wheel[test]"
run_tests "$work/venv-wheel" wheel

say "maturin sdist, then pip install from it in a fresh venv"
maturin sdist --out "$work/sdist"
sdist=("$work"/sdist/*.tar.gz)
"$python" -m venv "$work/venv-sdist"
"$work/venv-sdist/bin/pip" install -q --upgrade pip
"$work/venv-sdist/bin/pip" install -q "${sdist[0]}[test]"
run_tests "$work/venv-sdist" "sdist install"

if ((${#failed[@]})); then
    say "FAIL: ${failed[*]} (the wheel and the sdist built and installed)"
    exit 1
fi
say "OK: the wheel and the sdist install and pass the tests"
