import { describe, expect, it } from 'vitest';
import { redactUrl, UNREADABLE_URL } from './redact-url';

// Issue 42, item 4: migrate-to printed part of a password that held an `@`, and a ?password= whole.
describe('redactUrl', () => {
  it('hides the password of user:password@, whatever characters it holds', () => {
    expect(redactUrl('postgres://nodeharbor:s3cret@db.example:5432/nodeharbor')).toBe('postgres://nodeharbor:***@db.example:5432/nodeharbor');
    expect(redactUrl('postgres://nodeharbor:p@ss@word@db.example/nh')).toBe('postgres://nodeharbor:***@db.example/nh');
    expect(redactUrl('postgresql://nodeharbor:pa:ss:wd@db.example/nh')).toBe('postgresql://nodeharbor:***@db.example/nh');
    expect(redactUrl('postgres://nodeharbor:p%40ss%3Aw%2Fd@db.example/nh')).toBe('postgres://nodeharbor:***@db.example/nh');
    expect(redactUrl('smtps://mailer:hunter2@smtp.example:465')).toBe('smtps://mailer:***@smtp.example:465');
  });

  it('hides the values of query parameters that may be credentials, and the fragment', () => {
    expect(redactUrl('postgres://nodeharbor@db.example/nh?password=s3cret&sslmode=require')).toBe(
      'postgres://nodeharbor@db.example/nh?password=***&sslmode=require',
    );
    expect(redactUrl('postgres://db.example/nh?sslpassword=k3y-pass&sslkey=%2Fkeys%2Fclient.key&PASSWORD=x&application_name=nh')).toBe(
      'postgres://db.example/nh?sslpassword=***&sslkey=***&PASSWORD=***&application_name=nh',
    );
    expect(redactUrl('postgres://db.example/nh#s3cret')).toBe('postgres://db.example/nh#***');
  });

  it('prints nothing of a URL that does not parse, or whose password the parser would split elsewhere', () => {
    for (const raw of [
      'not a url',
      'host=db.example password=s3cret',
      'postgres://nodeharbor:s3cret/part@db.example/nh',
      'postgres://nodeharbor:12?s3cret@db.example/nh',
      'postgres://nodeharbor:12#s3cret@db.example/nh',
      'postgres:nodeharbor:s3cret@db.example',
      'postgres://nodeharbor:s3c\tret@db.example/nh',
      'postgres://nodeharbor:s3cret@db.example/nh\n',
    ]) {
      expect(redactUrl(raw), raw).toBe(UNREADABLE_URL);
    }
  });

  it('leaves a URL without credentials as it reads', () => {
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/test')).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(redactUrl('https://nodeharbor.example')).toBe('https://nodeharbor.example');
    expect(redactUrl('postgres://nh@db.example/nh?sslmode=verify-full&application_name=nh')).toBe(
      'postgres://nh@db.example/nh?sslmode=verify-full&application_name=nh',
    );
  });
});
