/**
 * Why an installation failed, as its owner is told (issue 36, item 7; migration 0051; decision 042):
 * a cause, never the engine's or the driver's own reason, which only admins read (the fleet, a
 * user's page and its events). services.failure_cause holds the code; the card, the service page,
 * its events and the e-mail say these words.
 */
export const INSTALL_FAILURE_CAUSES = ['not_started', 'key_refused'] as const;
export type InstallFailureCause = (typeof INSTALL_FAILURE_CAUSES)[number];

const WORDS: Record<InstallFailureCause, string> = {
  // Ours to fix: an image missing, an engine or a provider that would not run the node.
  not_started: 'We could not start your node. We are looking into it.',
  // Its owner's to fix: the node's network said no to the key they gave.
  key_refused: "The node's network refused your key. Change the key, then retry the installation.",
};

/** The owner's words for a cause; a cause this list does not know reads as ours to fix. */
export function installFailureText(cause: string | null | undefined): string {
  return WORDS[(INSTALL_FAILURE_CAUSES as readonly string[]).includes(cause ?? '') ? (cause as InstallFailureCause) : 'not_started'];
}
