#!/usr/bin/env bash
# make run-sso: `make run` behind a local OpenID Connect provider (the one the tests use,
# django-oauth-toolkit on 127.0.0.1:9000). Sign in with "Sign in with Test IdP" as
# erin / erin-sso (groups staff, hr) or frank / frank-sso (group staff).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
PORT="${PORT:-8000}"
OP_PORT="${OP_PORT:-9000}"
mkdir -p var/log
rm -f var/oidc-provider.sqlite3
SECRET="local-sso-demo-secret"
$BIN/python -m tests.oidc_provider.run serve --db var/oidc-provider.sqlite3 --port "$OP_PORT" \
  --client-id handbook-local --client-secret "$SECRET" \
  --redirect-uri "http://127.0.0.1:${PORT}/oidc/callback/" \
  --user erin:erin-sso:staff,hr --user frank:frank-sso:staff >var/log/oidc-provider.log 2>&1 &
OP=$!
trap 'kill $OP 2>/dev/null; wait $OP 2>/dev/null' EXIT INT TERM
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:${OP_PORT}/o/.well-known/openid-configuration" >/dev/null && break
  sleep 0.3
done
ISSUER="http://127.0.0.1:${OP_PORT}/o"
export OIDC_PROVIDER_NAME="Test IdP" OIDC_CLIENT_ID=handbook-local OIDC_CLIENT_SECRET="$SECRET" \
  OIDC_ISSUER="$ISSUER" OIDC_AUTHORIZATION_ENDPOINT="$ISSUER/authorize/" OIDC_TOKEN_ENDPOINT="$ISSUER/token/" \
  OIDC_USERINFO_ENDPOINT="$ISSUER/userinfo/" OIDC_JWKS_ENDPOINT="$ISSUER/.well-known/jwks.json" \
  OIDC_SCOPES="openid email profile groups" OIDC_GROUP_MAP="staff=staff,hr=hr"
echo "OpenID Connect provider: $ISSUER (log: var/log/oidc-provider.log)"
bash scripts/run.sh
