#!/usr/bin/env bash
# Print (default) or send (--send) a Standard Webhooks-signed sample delivery.
#
#   scripts/sample-delivery.sh [--send] [BASE_URL] [SOURCE]
#
# BASE_URL defaults to http://127.0.0.1:8787, SOURCE to cockpit. The secret is
# ${SOURCE^^}_SECRET from .dev.vars (else .dev.vars.example). The path is
# ${HOOKONCE_INGEST_PATH:-/webhooks/SOURCE}. EVENT_TYPE (default cardholder.created),
# EVENT_ID, EVENT_TS and EVENT_BODY override the event.
#
# Signature (https://www.standardwebhooks.com): key = base64-decode(secret minus "whsec_"),
# webhook-signature = "v1," + base64(HMAC-SHA256(key, "{id}.{ts}.{body}")).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

send=false
if [[ "${1:-}" == "--send" ]]; then send=true; shift; fi
base=${1:-http://127.0.0.1:8787}
source=${2:-cockpit}
var="$(tr '[:lower:]-' '[:upper:]_' <<<"$source")_SECRET"

secret=""
for f in .dev.vars .dev.vars.example; do
    [[ -f "$f" ]] || continue
    secret=$(sed -n "s/^${var}=//p" "$f" | head -n1 | tr -d '"'"'"'\r')
    [[ -n "$secret" ]] && break
done
[[ -n "$secret" ]] || { echo "sample-delivery: no $var in .dev.vars or .dev.vars.example" >&2; exit 1; }

type=${EVENT_TYPE:-cardholder.created}
id=${EVENT_ID:-evt_$(openssl rand -hex 12)}
ts=${EVENT_TS:-$(date +%s)}
# The seeds' event shape: the id in the body is the dedupe key (webhook-id carries the same).
body=${EVENT_BODY:-"{\"id\":\"$id\",\"type\":\"$type\",\"created_at\":\"$(date -u -d "@$ts" +%Y-%m-%dT%H:%M:%SZ)\",\"data\":{\"object\":{\"id\":\"ch_sample_1\",\"name\":\"Ada Lovelace\",\"status\":\"active\"}}}"}

hexkey=$(printf '%s' "${secret#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
sig=$(printf '%s' "$id.$ts.$body" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | base64)

url="$base${HOOKONCE_INGEST_PATH:-/webhooks/$source}"
if $send; then
    exec curl -sS -i "$url" -H 'content-type: application/json' \
        -H "webhook-id: $id" -H "webhook-timestamp: $ts" -H "webhook-signature: v1,$sig" \
        --data-binary "$body"
fi
cat <<CMD
curl -i '$url' \\
  -H 'content-type: application/json' \\
  -H 'webhook-id: $id' \\
  -H 'webhook-timestamp: $ts' \\
  -H 'webhook-signature: v1,$sig' \\
  --data-binary '$body'
CMD
