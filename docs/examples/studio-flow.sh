#!/usr/bin/env bash
# Creator Studio with curl: a project with a board of tasks, a card moved to Doing, a wiki page,
# then the project exported and imported as a copy.
# Usage: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_TOKEN=smcp_... docs/examples/studio-flow.sh
# The token needs studio:read and studio:write. docs/studio.md describes the endpoints; the tests
# run this script against a live server.
set -euo pipefail

api="${MARKETKIT_URL:?set MARKETKIT_URL, e.g. http://127.0.0.1:8787}/api/v1/studio"
auth="Authorization: Bearer ${MARKETKIT_TOKEN:?set MARKETKIT_TOKEN to a token with studio:read and studio:write}"

# Reads one field (a.b for nested) of the JSON on stdin.
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(process.argv[1].split(".").reduce((o,k)=>o[k],JSON.parse(s))))' "$1"; }
post() { curl -sS --fail-with-body -H "$auth" --json "$2" "$api$1"; }
get() { curl -sS --fail-with-body -H "$auth" "$api$1"; }
titles() { get "/columns/$1/cards" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.map(c=>c.title).join(", ")))'; }

project=$(post /projects '{"name":"Castle Island"}' | field id)
board=$(post "/projects/$project/boards" '{"name":"Build"}' | field id)
todo=$(post "/boards/$board/columns" '{"name":"To do"}' | field id)
doing=$(post "/boards/$board/columns" '{"name":"Doing"}' | field id)
bug=$(post "/projects/$project/labels" '{"name":"bug","colour":"#d73a4a"}' | field id)
for task in 'Raise the walls' 'Hang the gate' 'Fill the moat'; do
  post "/columns/$todo/cards" "{\"title\":\"$task\"}" >/dev/null
done
gate=$(post "/columns/$todo/cards" "{\"title\":\"Fix the drawbridge\",\"labels\":[\"$bug\"],\"position\":0}" | field id)
echo "to do: $(titles "$todo")"
post "/cards/$gate/move" "{\"column_id\":\"$doing\",\"position\":0}" >/dev/null
echo "to do: $(titles "$todo")"
echo "doing: $(titles "$doing")"
post "/projects/$project/wiki-pages" '{"title":"Lore","slug":"lore","body":"# The castle\n\nBuilt on a rock."}' | field slug

exported=$(mktemp)
trap 'rm -f "$exported"' EXIT
get "/projects/$project/export" >"$exported"
copy=$(post /import "{\"document\":$(cat "$exported"),\"name\":\"Castle Island (copy)\"}")
echo "imported: $(field project.name <<<"$copy"), $(field records <<<"$copy") records"
copy_board=$(get "/projects/$(field project.id <<<"$copy")/boards" | field data.0.id)
get "/boards/$copy_board/columns" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log("copy columns: "+JSON.parse(s).data.map(c=>c.name).join(", ")))'
