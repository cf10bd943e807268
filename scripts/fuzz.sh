#!/usr/bin/env bash
# Runs every Go fuzz target in the module, one at a time, each for
# $FUZZTIME (default 1m). Targets are discovered with `go test -list`, so a
# new Fuzz function anywhere is picked up without editing this script.
#   FUZZTIME=10m scripts/fuzz.sh              all targets, 10 minutes each
#   FUZZ_PARALLEL=1 scripts/fuzz.sh ./rpc/... one worker, only these packages
# A failing input is written by Go to the package's testdata/fuzz/<Target>/;
# commit it as a seed once fixed. Exits non-zero if any target failed.
set -euo pipefail

fuzztime=${FUZZTIME:-1m}
parallel=()
if [[ -n ${FUZZ_PARALLEL:-} ]]; then
	parallel=(-parallel "$FUZZ_PARALLEL")
fi
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
	pkgs=(./...)
fi

# `go test -list` prints a package's matching names, then "ok <pkg> …".
targets=()
names=()
while read -r first second _; do
	case $first in
	ok)
		for n in "${names[@]}"; do targets+=("$second $n"); done
		names=()
		;;
	Fuzz*) names+=("$first") ;;
	esac
done < <(go test -run '^$' -list '^Fuzz' "${pkgs[@]}")

if [[ ${#targets[@]} -eq 0 ]]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "fuzz: ${#targets[@]} targets, $fuzztime each"
failed=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "=== $pkg $name"
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "${parallel[@]}" "$pkg"; then
		failed+=("$pkg $name")
	fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
	printf 'fuzz: FAILED %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: all ${#targets[@]} targets passed"
