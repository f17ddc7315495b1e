#!/usr/bin/env bash
# The README's "Use it" path, its commands exactly as written there, with the packed package standing
# in for the published one: it is installed in the folder the commands run in, so `npx agentscope`
# runs the tarball's bin, and the new project's agentscope dependency points at the tarball.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm run build >/dev/null
npm pack --silent --pack-destination "$work" >/dev/null
tarball=$(ls "$work"/agentscope-*.tgz)
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund "$tarball" >/dev/null

npx agentscope init my-agent && cd my-agent
test "$(basename "$PWD")" = my-agent # `set -e` does not stop at the first part of an `&&` list
npm pkg set "dependencies.agentscope=file:$tarball"
npm install && npm test
