import type { PasswordOwner } from '@shared/password-strength';

// zxcvbn and its dictionaries are most of a megabyte: only the forms that set a password load
// them, from the moment their password field is focused, so no page's first load carries them.
const load = () => import('@shared/password-strength');

/** Starts loading the rule: for the onFocus of a new-password field. */
export const preloadPasswordRule = () => void load().catch(() => undefined);

/**
 * The shared rule's words for a password the server would refuse as weak, or undefined when it
 * passes. When the rule cannot be loaded the server, which applies the same rule, still answers.
 */
export async function weakPasswordMessage(password: string, owner: PasswordOwner): Promise<string | undefined> {
  try {
    return (await load()).passwordWeakness(password, owner)?.message;
  } catch {
    return undefined;
  }
}
