#!/usr/bin/env bash
# mdream's native binding for the markdown engines test on Node 20. npm installs mdream's
# platform package (@mdream/rust-<platform>) only on Node 22 and later (its `engines`), yet the
# binding itself loads on Node 20. This fetches it once into
# ${XDG_CACHE_HOME:-~/.cache}/webdata-temporal/mdream-native-<version>/, keyed by mdream's
# installed version, so that packages/service/test/markdown-engines.test.ts compares the native
# engine too (through mdream's NAPI_RS_NATIVE_LIBRARY_PATH). Prints the binding's path. Nothing
# to do where npm installed the platform package. The service never reads this folder.
set -euo pipefail
cd "$(dirname "$0")/.."
if node -e "import('mdream').then(() => process.exit(0), () => process.exit(1))" 2>/dev/null; then
  echo "native mdream: installed by npm"
  exit 0
fi
version=$(node -p "require('./node_modules/mdream/package.json').version")
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64-gnu ;;
  Linux-aarch64) platform=linux-arm64-gnu ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  *) echo "native mdream: no platform package for $(uname -s)-$(uname -m)"; exit 0 ;;
esac
dir="${XDG_CACHE_HOME:-$HOME/.cache}/webdata-temporal/mdream-native-$version"
binding="$dir/rust.$platform.node"
if [ ! -f "$binding" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "@mdream/rust-$platform@$version" >/dev/null && tar xzf ./*.tgz)
  mkdir -p "$dir"
  cp "$tmp/package/rust.$platform.node" "$binding.part" && mv "$binding.part" "$binding"
fi
echo "$binding"
