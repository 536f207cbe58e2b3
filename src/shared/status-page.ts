/**
 * The public status page (issue 37, item 3; migration 0054; decision 045): its incidents' rules and
 * the words the admin's form, the SQL functions (word for word) and the page use, once.
 */

export const INCIDENT_IMPACTS = ['minor', 'major', 'maintenance'] as const;
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];
export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** An incident as private.status_summary returns it (migration 0054): the page, /status.json and the admin's tab read the same shape. */
export type Incident = {
  id: number;
  title: string;
  impact: IncidentImpact;
  product_code: string | null;
  opened_at: string;
  resolved_at: string | null;
  updates: { status: IncidentStatus; body: string; posted_at: string }[];
};

export const INCIDENT_TITLE_MAX = 120;
export const INCIDENT_BODY_MAX = 2000;
/** Days the page shows, and keeps: the monitor's own uptime is kept as long (UPTIME_KEPT_DAYS). */
export const STATUS_DAYS = 90;

export const IMPACT_LABELS: Record<IncidentImpact, string> = { minor: 'Minor', major: 'Major', maintenance: 'Maintenance' };
export const STATUS_LABELS: Record<IncidentStatus, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

export const statusPageMessages = {
  onlyAdmins: 'Only admins can post to the status page',
  titleRequired: 'Give the incident a title',
  titleTooLong: `The title may be at most ${INCIDENT_TITLE_MAX} characters`,
  impactUnknown: 'Choose the impact: minor, major or maintenance',
  statusUnknown: 'Choose a status: investigating, identified, monitoring or resolved',
  bodyRequired: 'Say what is happening',
  bodyTooLong: `An update may be at most ${INCIDENT_BODY_MAX} characters`,
  productUnknown: 'No such product',
  incidentNotFound: 'No such incident',
  incidentResolved: 'This incident is resolved: open a new one',
  updatesAppendOnly: 'A posted update is never changed: post another',
};

/** The first rule `title` breaks, or null. */
export function incidentTitleError(title: string): string | null {
  if (title.trim() === '') return statusPageMessages.titleRequired;
  return Array.from(title).length > INCIDENT_TITLE_MAX ? statusPageMessages.titleTooLong : null;
}

/** The first rule an update's `body` breaks, or null. */
export function incidentBodyError(body: string): string | null {
  if (body.trim() === '') return statusPageMessages.bodyRequired;
  return Array.from(body).length > INCIDENT_BODY_MAX ? statusPageMessages.bodyTooLong : null;
}
