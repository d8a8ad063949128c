#!/usr/bin/env bash
# Moderation with curl: the seller submits through /api/v1, the marketplace decides through /api/admin.
#   draft -> pending -> published -> archived
#   draft -> pending -> changes_requested -> pending -> rejected
# Usage: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_TOKEN=smcp_... MARKETKIT_SERVICE_KEY=... docs/examples/moderation-flow.sh FILE
# docs/moderation.md walks through the same steps; the tests run this script against a live server.
set -euo pipefail

base="${MARKETKIT_URL:?set MARKETKIT_URL, e.g. http://127.0.0.1:8787}"
api="$base/api/v1"
adm="$base/api/admin"
seller="Authorization: Bearer ${MARKETKIT_TOKEN:?set MARKETKIT_TOKEN to a seller token}"
service="Authorization: Bearer ${MARKETKIT_SERVICE_KEY:?set MARKETKIT_SERVICE_KEY to the key the server was started with}"
file="${1:?usage: moderation-flow.sh FILE}"

# Reads one field (a.b for nested) of the JSON on stdin.
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(process.argv[1].split(".").reduce((o,k)=>o[k],JSON.parse(s))))' "$1"; }

# A draft with its file: create, signed upload URL, PUT, confirm.
draft() {
  local asset upload size id
  asset=$(curl -sS --fail-with-body -H "$seller" --json "{\"title\":\"$1\",\"slug\":\"$2-$RANDOM$RANDOM\"}" "$api/assets")
  id=$(field id <<<"$asset")
  upload=$(curl -sS --fail-with-body -H "$seller" --json "{\"filename\":\"$(basename "$file")\"}" "$api/assets/$id/upload-url")
  curl -sS --fail-with-body -X PUT -H 'content-type: application/zip' --data-binary "@$file" "$(field signed_url <<<"$upload")" >/dev/null
  size=$(wc -c <"$file" | tr -d ' ')
  curl -sS --fail-with-body -H "$seller" --json "{\"storage_path\":\"$(field storage_path <<<"$upload")\",\"file_size\":$size}" "$api/assets/$id/confirm-file" >/dev/null
  echo "$id"
}
submit() { curl -sS --fail-with-body -X POST -H "$seller" "$api/assets/$1/submit" | field status; }
decide() { curl -sS --fail-with-body -H "$service" --json "${3:-{\}}" "$adm/assets/$1/$2" | field status; }

# 1. Approved, then archived.
one=$(draft 'Castle Pack' castle-pack)
echo "one: draft -> $(submit "$one")"
echo "one: in the queue: $(curl -sS --fail-with-body -H "$service" "$adm/moderation/queue" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).items.some(a=>a.id===process.argv[1])))' "$one")"
echo "one: approve -> $(decide "$one" approve)"
echo "one: archive -> $(decide "$one" archive)"

# 2. Changes requested, resubmitted, rejected. The seller reads the reason in GET /assets/{id}.
two=$(draft 'Forest Pack' forest-pack)
echo "two: draft -> $(submit "$two")"
echo "two: request-changes -> $(decide "$two" request-changes '{"reason":"Add a preview image."}')"
echo "two: the seller reads: $(curl -sS --fail-with-body -H "$seller" "$api/assets/$two" | field review.reason)"
echo "two: resubmit -> $(submit "$two")"
echo "two: reject -> $(decide "$two" reject '{"reason":"Contains third-party assets."}')"
