import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

// GoTrue's TOTP parameters (pquerna/otp defaults, validated with skew 1).
const TOTP_OPTIONS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

export type NewTotp = { secret: string; uri: string; qrCode: string };

/** A new 160-bit secret, its otpauth:// URI and the URI as an SVG QR code. */
export async function newTotp(issuer: string, accountName: string): Promise<NewTotp> {
  const secret = new Secret({ size: 20 });
  const uri = new TOTP({ ...TOTP_OPTIONS, issuer, label: accountName, secret }).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' });
  // supabase-js puts the SVG into a data URL unescaped, where a '#' would start the fragment.
  const qrCode = svg.replaceAll('"#ffffff"', '"white"').replaceAll('"#000000"', '"black"');
  return { secret: secret.base32, uri, qrCode };
}

/**
 * The time step a code belongs to, when it is right for the step of `now` or one either side
 * (clock drift, as GoTrue allows); null when it is wrong.
 */
export function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ ...TOTP_OPTIONS, secret: Secret.fromBase32(secretBase32) });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : totp.counter({ timestamp: now }) + delta;
}
