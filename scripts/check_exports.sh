#!/usr/bin/env bash
# libleanattn.so exports exactly the functions leanattn.h declares (LEANATTN_API), nothing of the C++ it carries.
#   usage: check_exports.sh LIBRARY HEADER
set -euo pipefail
library=${1:?usage: check_exports.sh LIBRARY HEADER} header=${2:?usage: check_exports.sh LIBRARY HEADER}
declared=$(sed -n 's/^LEANATTN_API .*[ *]\(leanattn_[a-z0-9_]*\)(.*/\1/p' "$header" | sort)
exported=$(nm -D --defined-only "$library" | awk '{print $3}' | sort)
if [ "$declared" != "$exported" ]; then
  echo "check_exports: $library exports what $header does not declare (>), or lacks what it does (<):" >&2
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  exit 1
fi
echo "check_exports: $(echo "$exported" | wc -l) symbols, every one declared in $(basename "$header")"
