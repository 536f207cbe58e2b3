import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Credentials as the Engine API takes them with a service (X-Registry-Auth), as `docker service create --with-registry-auth` sends them. */
export type RegistryAuth = { serveraddress: string; username?: string; password?: string; identitytoken?: string };

/** Docker Hub's key in config.json, as `docker login` writes it. */
const DOCKER_HUB = 'https://index.docker.io/v1/';

/** The registry an image is pulled from, named as `docker login` names it. */
export function registryOf(image: string): string {
  const first = image.split('/')[0]!;
  const isHost = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!isHost || first === 'docker.io' || first === 'index.docker.io') return DOCKER_HUB;
  return first;
}

type ConfigFile = { auths?: Record<string, { auth?: string; identitytoken?: string }> };

/**
 * The credentials `docker login` stored in DOCKER_CONFIG/config.json for the image's registry, read
 * at each call so that a login made while NodeHarbor runs counts. Credentials kept by a credential
 * helper (credsStore) are not in the file: such registries are pulled from without credentials.
 */
export function registryAuthFor(configDir: string, image: string): RegistryAuth | undefined {
  let config: ConfigFile;
  try {
    config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as ConfigFile;
  } catch {
    return undefined;
  }
  const registry = registryOf(image);
  const entry = Object.entries(config.auths ?? {}).find(([key]) => key === registry || key.replace(/^https?:\/\//, '').replace(/\/.*$/, '') === registry)?.[1];
  if (entry?.identitytoken) return { serveraddress: registry, identitytoken: entry.identitytoken };
  if (!entry?.auth) return undefined;
  const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { serveraddress: registry, username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
