# bench/common.sh - sourced first by the benches that compare hwtap with SystemTap and
# bpftrace in the guest: strict mode, the checkout as the working folder, hwtap as the
# translator (the bench's first argument, default translator/hwtap), a scratch folder $tmp
# removed at exit (kept with KEEP_TMP=1), and bench/stap-guest.sh's helpers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
hwtap=${1:-translator/hwtap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT; [ -z "${KEEP_TMP:-}" ] || trap - EXIT
. bench/stap-guest.sh
