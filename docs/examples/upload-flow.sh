#!/usr/bin/env bash
# The whole seller flow with curl: create a listing, upload its file and a gallery image, submit it.
# Usage: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_TOKEN=smcp_... docs/examples/upload-flow.sh FILE IMAGE
# The README walks through the same steps; the tests run this script against a live server.
set -euo pipefail

api="${MARKETKIT_URL:?set MARKETKIT_URL, e.g. http://127.0.0.1:8787}/api/v1"
auth="Authorization: Bearer ${MARKETKIT_TOKEN:?set MARKETKIT_TOKEN to the token the server printed}"
file="${1:?usage: upload-flow.sh FILE IMAGE}"
image="${2:?usage: upload-flow.sh FILE IMAGE}"
slug="${SLUG:-castle-pack-$RANDOM$RANDOM}"

# Reads one field of the JSON on stdin (node is there wherever MarketKit runs).
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

# 1. Create the listing: a draft.
asset=$(curl -sS --fail-with-body -H "$auth" --json "{\"title\":\"Castle Pack\",\"slug\":\"$slug\",\"tags\":[\"castle\"]}" "$api/assets")
id=$(field id <<<"$asset")
echo "created $id ($(field status <<<"$asset"))"

# 2. Ask for a signed URL, PUT the bytes there (no Authorization header), confirm with the size.
upload=$(curl -sS --fail-with-body -H "$auth" --json "{\"filename\":\"$(basename "$file")\"}" "$api/assets/$id/upload-url")
curl -sS --fail-with-body -X PUT -H 'content-type: application/zip' --data-binary "@$file" "$(field signed_url <<<"$upload")" >/dev/null
size=$(wc -c <"$file" | tr -d ' ')
curl -sS --fail-with-body -H "$auth" --json "{\"storage_path\":\"$(field storage_path <<<"$upload")\",\"file_size\":$size}" "$api/assets/$id/confirm-file" >/dev/null
echo "file confirmed ($size bytes)"

# 3. The same for a gallery image, confirmed by its public URL. The first image is the thumbnail.
shot=$(curl -sS --fail-with-body -H "$auth" --json "{\"filename\":\"$(basename "$image")\"}" "$api/assets/$id/images/upload-url")
curl -sS --fail-with-body -X PUT -H 'content-type: image/webp' --data-binary "@$image" "$(field signed_url <<<"$shot")" >/dev/null
confirmed=$(curl -sS --fail-with-body -H "$auth" --json "{\"public_url\":\"$(field public_url <<<"$shot")\"}" "$api/assets/$id/confirm-image")
echo "image confirmed (primary: $(field is_primary <<<"$confirmed"))"

# 4. Submit for review.
submitted=$(curl -sS --fail-with-body -X POST -H "$auth" "$api/assets/$id/submit")
echo "submitted: $(field status <<<"$submitted")"
