#!/bin/sh
# Runs once, when the db service initialises its data directory (docker-entrypoint-initdb.d):
# lets the db-replica service stream WAL with the handbook user's password. An existing data
# directory: add the same line to its pg_hba.conf and reload (README, Scaling out).
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
