#!/usr/bin/env bash
# Testing a client written in any language against `marketkit serve --memory --test-controls`:
# the test controls under /__marketkit/ with curl. Each step is what a Python, Go or shell test does.
# Usage: MARKETKIT_URL=http://127.0.0.1:8787 docs/examples/testing/curl-controls.sh
# docs/testing.md walks through the same steps; the tests run this script against a live server.
set -euo pipefail

base="${MARKETKIT_URL:?set MARKETKIT_URL to the address of marketkit serve --memory --test-controls}"
api="$base/api/v1"
ctl="$base/__marketkit"

# Reads one field (a.b for nested) of the JSON on stdin.
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(process.argv[1].split(".").reduce((o,k)=>o[k],JSON.parse(s))))' "$1"; }
# The status of a call, and its Retry-After header when there is one.
status() { curl -sS -o /dev/null -D - "$@" | tr -d '\r' | awk 'NR==1{s=$2} tolower($1)=="retry-after:"{r=" retry-after="$2} END{print s r}'; }

# 1. A known starting state: one account (with a token) and a published listing. reset comes back here.
seed=$(curl -sS --fail-with-body --json '{"accounts":[{"username":"py-dev"}],"assets":[{"owner":"py-dev","title":"Seeded Pack","slug":"seeded-pack","status":"published","file":true}]}' "$ctl/seed")
auth="Authorization: Bearer $(field accounts.py-dev.token <<<"$seed")"
echo "seeded at $(field now <<<"$seed"): $(curl -sS --fail-with-body -H "$auth" "$api/assets" | field pagination.total) listing"

# 2. A fault: the next create gets 429 with Retry-After; the retry goes through.
curl -sS --fail-with-body --json '{"target":"POST /assets","kind":"rateLimit","retryAfter":2}' "$ctl/faults" >/dev/null
echo "create: $(status -H "$auth" --json '{"title":"Castle Pack","slug":"castle-pack"}' "$api/assets")"
created=$(curl -sS --fail-with-body -H "$auth" --json '{"title":"Castle Pack","slug":"castle-pack"}' "$api/assets")
id=$(field id <<<"$created")
echo "retry: created $(field status <<<"$created")"

# 3. The request log: what the client sent and what it got.
curl -sS --fail-with-body "$ctl/requests?operation=createAsset" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log("log: "+JSON.parse(s).data.map(r=>`${r.method} ${r.path} ${r.status}`).join(", ")))'

# 4. Time: an upload URL expires when the clock passes it (2 hours), and the PUT is refused.
upload=$(curl -sS --fail-with-body -H "$auth" --json '{"filename":"castle.zip"}' "$api/assets/$id/upload-url")
curl -sS --fail-with-body --json '{"advance_ms":7201000}' "$ctl/clock" >/dev/null
echo "PUT after 2 h: $(status -X PUT -H 'content-type: application/zip' --data-binary 'PK castle' "$(field signed_url <<<"$upload")")"

# 5. A fresh URL, the file confirmed, the listing submitted; then the marketplace approves it.
upload=$(curl -sS --fail-with-body -H "$auth" --json '{"filename":"castle.zip"}' "$api/assets/$id/upload-url")
curl -sS --fail-with-body -X PUT -H 'content-type: application/zip' --data-binary 'PK castle' "$(field signed_url <<<"$upload")" >/dev/null
curl -sS --fail-with-body -H "$auth" --json "{\"storage_path\":\"$(field storage_path <<<"$upload")\",\"file_size\":9}" "$api/assets/$id/confirm-file" >/dev/null
echo "submit: $(curl -sS --fail-with-body -X POST -H "$auth" "$api/assets/$id/submit" | field status)"
echo "approve: $(curl -sS --fail-with-body --json "{\"action\":\"approve\",\"asset_id\":\"$id\"}" "$ctl/moderate" | field status)"

# 6. reset: back to the seed (clock, listings, faults, log); the seed's token still works.
curl -sS --fail-with-body -X POST "$ctl/reset" >/dev/null
echo "after reset: $(curl -sS --fail-with-body -H "$auth" "$api/assets" | field pagination.total) listing, $(curl -sS --fail-with-body "$ctl/requests" | field data.length) logged call"
