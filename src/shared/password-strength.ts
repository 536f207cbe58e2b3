import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonDictionary } from '@zxcvbn-ts/language-common';
import { dictionary as englishDictionary } from '@zxcvbn-ts/language-en';
import { PASSWORD_MIN, PASSWORD_MIN_SCORE, PROFILE_FULL_NAME_MAX, SITE_NAME } from './constants';
import { messages } from './validation';

/*
 * The password rule, once, for the server (every path that sets a password) and for the forms
 * that set one. It holds zxcvbn and its dictionaries (about 850 KB gzip), so the web app imports
 * it only from those forms, when they are used (`import()`), never in a page's first load.
 */

/** bcrypt reads 72 bytes (MAX_PASSWORD_BYTES): zxcvbn need look no further. */
const CHECKED_CHARACTERS = 72;
/**
 * How many l33t spellings of a password zxcvbn reads back into words (its default is 100). Each
 * costs a pass over every dictionary, and a password made of l33t characters has thousands: a
 * crafted 72-character one held the thread about 20 times as long at 100 as at 4, where it costs
 * little more than with no l33t at all. The usual substitutions (p4$$w0rd) are still found.
 */
const L33T_SPELLINGS = 4;

// Built on first use, once: ranking the dictionaries takes a moment (about 0.2 s) that no page or
// process should pay before a password is set.
let factory: ZxcvbnFactory | undefined;
const zxcvbn = () =>
  (factory ??= new ZxcvbnFactory({
    dictionary: { ...commonDictionary, ...englishDictionary },
    graphs: adjacencyGraphs,
    maxLength: CHECKED_CHARACTERS,
    l33tMaxSubstitutions: L33T_SPELLINGS,
  }));

/** Whose password it is: what a guesser would try first. */
export type PasswordOwner = { email?: string | null | undefined; fullName?: string | null | undefined };

/** GoTrue's `weak_password`: its message and reasons ("length", "characters", "pwned"). */
export type WeakPassword = { message: string; reasons: ('length' | 'pwned')[] };

/**
 * The owner's own words, as zxcvbn's user inputs: the address whole, its local part and domain,
 * and the pieces of each and of the name, with the site's name.
 */
export function ownWords(owner: PasswordOwner): string[] {
  const email = (owner.email ?? '').trim().toLowerCase();
  const [local = '', domain = ''] = email.split('@');
  // A name longer than any profile keeps is refused elsewhere; here it would only cost time.
  const name = (owner.fullName ?? '').trim().toLowerCase().slice(0, PROFILE_FULL_NAME_MAX);
  const words = [SITE_NAME, email, local, domain, name, ...`${local} ${domain} ${name}`.split(/[^\p{L}\p{N}]+/u)];
  return [...new Set(words.filter((w) => w.length >= 3))];
}

/**
 * The policy problems of a password as GoTrue words them, or null when it passes: at least
 * PASSWORD_MIN characters ("length"), and a zxcvbn score of at least PASSWORD_MIN_SCORE counting
 * the owner's own words and the site's name as the first guesses ("pwned": easy to guess, which
 * covers zxcvbn's list of common passwords).
 */
export function passwordWeakness(password: string, owner: PasswordOwner): WeakPassword | null {
  const problems: { message: string; reason: WeakPassword['reasons'][number] }[] = [];
  if (password.length < PASSWORD_MIN) problems.push({ message: messages.passwordLength, reason: 'length' });
  if (zxcvbn().check(password, ownWords(owner)).score < PASSWORD_MIN_SCORE) problems.push({ message: messages.passwordCommon, reason: 'pwned' });
  if (problems.length === 0) return null;
  return { message: problems.map((p) => p.message).join(' '), reasons: problems.map((p) => p.reason) };
}
