#!/bin/sh
# Writes the two env files kustomization.yaml makes the Secrets from, every password, key and
# token random:
#   secrets.env         vexil-secrets: what the Vexil services read (engine URLs with their
#                       credentials, the first tokens and admin user, SECRETS_ENCRYPTION_KEY)
#   engine-secrets.env  vexil-engine-secrets: MongoDB's root user and replica-set key file, the
#                       NATS user, the Redis password
# Usage: deploy/k8s/generate-secrets.sh [directory]   (default: next to this script)
# It never overwrites: the passwords are those the engines were first started with.
set -eu
dir=${1:-$(dirname "$0")}
for file in secrets.env engine-secrets.env; do
  if [ -e "$dir/$file" ]; then echo "$dir/$file exists; not overwritten" >&2; exit 1; fi
done
# Letters and digits only: these go into connection URLs as they are.
random() { head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c "$1"; }

mongo_password=$(random 32)
redis_password=$(random 32)
nats_password=$(random 32)
umask 077
cat > "$dir/engine-secrets.env" <<END
MONGO_ROOT_USERNAME=vexil
MONGO_ROOT_PASSWORD=$mongo_password
REDIS_PASSWORD=$redis_password
NATS_USER=vexil
NATS_PASSWORD=$nats_password
MONGO_KEYFILE=$(head -c 756 /dev/urandom | base64 | tr -d '\n')
END
cat > "$dir/secrets.env" <<END
MONGODB_URL=mongodb://vexil:$mongo_password@mongo-0.mongo:27017,mongo-1.mongo:27017,mongo-2.mongo:27017/?replicaSet=rs0&authSource=admin
REDIS_URL=redis://:$redis_password@redis:6379
NATS_URL=nats://vexil:$nats_password@nats:4222
INIT_ADMIN_API_TOKENS=*:*.$(random 40)
INIT_CLIENT_API_TOKENS=default:development.$(random 40)
INIT_FRONTEND_API_TOKENS=default:development.$(random 40)
INIT_ADMIN_USERNAME=admin
INIT_ADMIN_PASSWORD=Vx-$(random 20)-1a
SECRETS_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64)
END
echo "wrote $dir/secrets.env and $dir/engine-secrets.env (keep copies apart from the cluster: SECRETS_ENCRYPTION_KEY unseals stored secrets)"
