import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyError, messages, parseProperties, serviceNameError } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';

// One table of cases, run through the shared zod module (the forms) and the SQL (the database).
const names: [string, string | null][] = [
  ['ab', messages.serviceNameShort],
  ['', messages.serviceNameShort],
  ['a'.repeat(17), messages.serviceNameLong],
  ['my node', messages.serviceNameSpaces],
  ['my\tnode', messages.serviceNameSpaces],
  ['node!', messages.serviceNameChars],
  ['nöde', messages.serviceNameChars],
  ['-node', messages.serviceNameEdges],
  ['node_', messages.serviceNameEdges],
  ['abc', null],
  ['a'.repeat(16), null],
  ['Town-Star_01', null],
];

const masterNode = JSON.stringify({
  data_name: 'Master Node License Key',
  data_description: 'The licence key contains only letters, digits and hyphens',
  data_validation: { minimum_length: 20, maximum_length: 64, valid_chars: 'A-Za-z0-9-' },
});
const withEnding = JSON.stringify({ data_validation: { minimum_length: 4, ends_with: '==' } });
const noDescription = JSON.stringify({ data_validation: { valid_chars: 'a-z' } });

const keys: [string, string | null, string | null][] = [
  ['A'.repeat(43), null, messages.apiKeyDefaultLength],
  ['A'.repeat(47), null, messages.apiKeyDefaultLength],
  [`${'A'.repeat(20)} ${'A'.repeat(22)}=`, null, messages.apiKeySpaces],
  ['A'.repeat(44), null, messages.apiKeyDefaultEnding],
  [`${'A'.repeat(42)}-=`, null, messages.apiKeyChars],
  [`${'A'.repeat(43)}=`, null, null],
  [`${'a+/9'.repeat(11)}==`, null, null],
  [`${'A'.repeat(43)}=`, '{not json', null],
  ['A'.repeat(44), '["an array"]', messages.apiKeyDefaultEnding],
  ['MN-1234', masterNode, messages.apiKeyMin(20)],
  ['M'.repeat(65), masterNode, messages.apiKeyMax(64)],
  ['MN_1234_5678_ABCD_EFGH', masterNode, 'The licence key contains only letters, digits and hyphens'],
  ['MN-1234-5678-ABCD-EFGH', masterNode, null],
  ['abc', withEnding, messages.apiKeyMin(4)],
  ['abcd=', withEnding, messages.apiKeyEnding('==')],
  ['abc==', withEnding, null],
  ['ABC', noDescription, messages.apiKeyChars],
];

describe('validation agrees between the forms and the database', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  it.each(names)('service name %j', async (name, expected) => {
    expect(serviceNameError(name)).toBe(expected);
    const { rows } = await s.deps.db.query<{ e: string | null }>('select private.service_name_error($1) as e', [name]);
    expect(rows[0]!.e).toBe(expected);
  });

  it.each(keys)('API key %j with properties %j', async (key, properties, expected) => {
    expect(apiKeyError(key, parseProperties(properties))).toBe(expected);
    const { rows } = await s.deps.db.query<{ e: string | null }>('select private.api_key_error($1, $2) as e', [key, properties]);
    expect(rows[0]!.e).toBe(expected);
  });
});
