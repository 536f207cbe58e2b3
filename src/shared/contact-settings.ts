/** The contact-settings function's answer (admins only): which settings are set, never a secret. */
export type ContactSettings = { contact_to: string | null; mail_from: string; smtp_host: string | null };
