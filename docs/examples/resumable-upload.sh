#!/usr/bin/env bash
# A resumable upload (tus 1.0.0) with curl, as docs/uploads.md walks through it: the file goes in
# chunks of 1 MiB, each with its SHA-256 (Upload-Checksum), the offset asked of the server before
# each one, so the script can be stopped and run again with UPLOAD_URL and continue; then
# confirm-file with the file's SHA-256.
# Usage: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_TOKEN=smcp_... docs/examples/resumable-upload.sh FILE
# The tests run this script against a live server.
set -euo pipefail

api="${MARKETKIT_URL:?set MARKETKIT_URL, e.g. http://127.0.0.1:8787}/api/v1"
auth="Authorization: Bearer ${MARKETKIT_TOKEN:?set MARKETKIT_TOKEN to the token the server printed}"
file="${1:?usage: resumable-upload.sh FILE}"
size=$(wc -c <"$file" | tr -d ' ')
chunk=$((1024 * 1024))

field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

# 1. A listing, and an upload whose size is declared: upload_url is then ready for HEAD and PATCH.
#    (Without file_size, create it first: curl -X POST -H 'Tus-Resumable: 1.0.0' -H "Upload-Length: $size" "$url")
id=$(curl -sS --fail-with-body -H "$auth" --json "{\"title\":\"Castle Pack\",\"slug\":\"castle-$RANDOM$RANDOM\"}" "$api/assets" | field id)
upload=$(curl -sS --fail-with-body -H "$auth" --json "{\"filename\":\"$(basename "$file")\",\"file_size\":$size}" "$api/assets/$id/upload-url")
url=$(field upload_url <<<"$upload")
echo "upload_url issued for $size bytes"

# 2. Ask the offset (HEAD), send the next chunk from there with its checksum; again until the end.
# The chunk at an offset (tail stops early once head has its bytes: not an error).
piece() { tail -c +$(($1 + 1)) "$file" | head -c "$chunk" || true; }
offset() { curl -sS --fail-with-body -I -H 'Tus-Resumable: 1.0.0' "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="upload-offset"{print $2}'; }
while [ "$(offset)" -lt "$size" ]; do
  at=$(offset)
  digest=$(piece "$at" | openssl dgst -sha256 -binary | base64)
  piece "$at" | curl -sS --fail-with-body -X PATCH \
    -H 'Tus-Resumable: 1.0.0' -H 'Content-Type: application/offset+octet-stream' \
    -H "Upload-Offset: $at" -H "Upload-Checksum: sha256 $digest" --data-binary @- "$url"
done
echo "uploaded: offset $(offset) of $size"

# 3. Confirm with the SHA-256: a mismatch is 422 CHECKSUM_MISMATCH and confirms nothing.
sha=$(sha256sum "$file" | cut -d' ' -f1)
confirmed=$(curl -sS --fail-with-body -H "$auth" --json "{\"storage_path\":\"$(field storage_path <<<"$upload")\",\"file_size\":$size,\"sha256\":\"$sha\"}" "$api/assets/$id/confirm-file")
echo "confirmed with sha256 $(node -e 'console.log(JSON.parse(process.argv[1]).file.sha256)' "$confirmed")"

# 4. Termination: an upload not wanted any more is deleted; its URL then answers 404.
spare=$(curl -sS --fail-with-body -H "$auth" --json '{"filename":"spare.zip","file_size":10}' "$api/assets/$id/upload-url" | field upload_url)
curl -sS --fail-with-body -X DELETE -H 'Tus-Resumable: 1.0.0' "$spare"
echo "terminated: HEAD answers $(curl -sS -o /dev/null -w '%{http_code}' -I -H 'Tus-Resumable: 1.0.0' "$spare")"
