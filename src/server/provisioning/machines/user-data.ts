import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../paths';

/** Hetzner Cloud's limit on a server's user data (docs/decisions/036). */
export const USER_DATA_LIMIT_BYTES = 32 * 1024;

export type UserDataOptions = {
  /** NodeHarbor's public URL, which the agent calls (https; http on a loopback address only for tests). */
  url: string;
  /** The publishable key (the `apikey` header of every function call): not a secret. */
  apikey: string;
  /** The machine's one-time bootstrap token: 43 characters of base64url. */
  bootstrapToken: string;
  /** Where the machine downloads Gala's node software (GALA_NODE_DOWNLOAD_URL). */
  downloadUrl: string;
  /** Its SHA-256 in hex, or '' for no check (GALA_NODE_SHA256). */
  sha256: string;
  /** The operator accepted Gala's EULA (GALA_EULA_ACCEPTED): without it the machine stops before installing. */
  eulaAccepted: boolean;
};

// Only what a URL needs, and nothing a shell or systemd reads specially inside single quotes or an
// environment file: no quote, backslash, dollar, backtick, blank or control character.
const URL_CHARS = '[A-Za-z0-9._~:/?#\\[\\]@!&()*+,;=%-]';
// https, or http on a loopback address (localhost, 127.x.y.z), which only tests reach.
const URL_START = '(https://|http://(localhost|127\\.[0-9.]+)([:/]|$))';
const BASE_URL = new RegExp(`^${URL_START}[A-Za-z0-9._~:/%-]*$`);
const DOWNLOAD_URL = new RegExp(`^${URL_START}${URL_CHARS}*$`);
const APIKEY = /^[A-Za-z0-9._-]{1,2048}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SHA256 = /^([0-9a-f]{64})?$/;

const TEMPLATE = join(ROOT, 'nodes/townstar-machine/user-data.sh');
const AGENT_SCRIPT = join(ROOT, 'nodes/agent/nodeharbor-agent');
const AGENT_UNIT = join(ROOT, 'nodes/agent/nodeharbor-agent.service');
/** The here-document delimiters of the template, which an embedded file must not contain as a line. */
const DELIMITERS = ['NODEHARBOR_AGENT_EOF', 'NODEHARBOR_UNIT_EOF'];

function checked(name: string, value: string, pattern: RegExp, what: string): string {
  // The message names the field, never the value: a bootstrap token is a secret until claimed.
  if (!pattern.test(value)) throw new Error(`renderUserData: ${name} must be ${what}`);
  return value;
}

function embedded(path: string): string {
  const text = readFileSync(path, 'utf8').replace(/\n+$/, '');
  const lines = text.split('\n');
  const clash = DELIMITERS.find((d) => lines.includes(d));
  if (clash) throw new Error(`renderUserData: ${path} has a line ${clash}, which ends its here-document`);
  return text;
}

/**
 * The boot script of a Town Star machine (nodes/townstar-machine/user-data.sh) with its
 * placeholders filled in and the agent's files (nodes/agent/) embedded. Every value is checked
 * against an allow-list that leaves the script's meaning intact (an error names the field, not
 * the value), every placeholder is filled, and the result is within Hetzner's 32 KiB.
 */
export function renderUserData(o: UserDataOptions): string {
  const values: Record<string, string> = {
    NODEHARBOR_URL: checked('url', o.url.replace(/\/+$/, ''), BASE_URL, 'an https URL (http only on a loopback address) without query or fragment'),
    NODEHARBOR_APIKEY: checked('apikey', o.apikey, APIKEY, 'the publishable key (letters, digits, ".", "_" and "-")'),
    BOOTSTRAP_TOKEN: checked('bootstrapToken', o.bootstrapToken, TOKEN, '43 characters of base64url'),
    GALA_NODE_DOWNLOAD_URL: checked('downloadUrl', o.downloadUrl, DOWNLOAD_URL, 'an https URL (http only on a loopback address)'),
    GALA_NODE_SHA256: checked('sha256', o.sha256.toLowerCase(), SHA256, '64 hexadecimal digits, or empty for no check'),
    GALA_EULA: o.eulaAccepted ? 'accept' : 'not-accepted',
    AGENT_SCRIPT: embedded(AGENT_SCRIPT),
    AGENT_UNIT: embedded(AGENT_UNIT),
  };
  const used = new Set<string>();
  // One pass: text put in (the agent's files) is not searched for placeholders again.
  const script = readFileSync(TEMPLATE, 'utf8').replace(/@@([A-Z0-9_]+)@@/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`renderUserData: the template has an unknown placeholder ${name}`);
    used.add(name);
    return value;
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`renderUserData: the template lacks the placeholders ${unused.join(', ')}`);
  const bytes = Buffer.byteLength(script);
  if (bytes > USER_DATA_LIMIT_BYTES) throw new Error(`renderUserData: the user data is ${bytes} bytes, more than Hetzner's 32 KiB`);
  return script;
}
