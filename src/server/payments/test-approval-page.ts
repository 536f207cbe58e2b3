import { html, htmlText, raw } from '../mail/html';
import { testApprovalPath, type TestOrder } from './test-provider';

// Ours, not the buyer's: written as it is.
const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f4f5;color:#18181b;margin:0;padding:2rem 1rem}
main{max-width:32rem;margin:0 auto;background:#fff;border:4px dashed #d97706;border-radius:12px;padding:1.5rem}
.badge{display:inline-block;background:#d97706;color:#fff;font-weight:700;letter-spacing:.08em;padding:.25rem .75rem;border-radius:999px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #18181b;cursor:pointer}
.approve{background:#15803d;color:#fff;border-color:#15803d}
.reject{background:#fff;color:#b91c1c;border-color:#b91c1c}
code{word-break:break-all}`;

/**
 * The test provider's approval page: plain HTML and a form POST (our CSP allows no inline
 * script), every value escaped, and unmistakably a test.
 */
export function testApprovalPage(order: TestOrder): string {
  const amount = `$${(order.amount_cents / 100).toFixed(2)}`;
  const body =
    order.status === 'CREATED'
      ? html`<h1>Approve a TEST payment of ${amount}?</h1>
<p>This is NodeHarbor's built-in <strong>test payment provider</strong>. No money moves: approving adds ${amount} of credit to your balance as if it had been paid. Real payments go through PayPal once it is configured.</p>
<form method="post" action="${testApprovalPath(order.id)}">
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve test payment</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
</form>`
      : html`<h1>This TEST payment of ${amount} is already ${order.status === 'VOIDED' ? 'rejected' : 'approved'}</h1>
<p><a href="/dashboard/billing">Back to Billing</a></p>`;
  return htmlText`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>TEST payment - NodeHarbor</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<main>
<p class="badge">TEST PAYMENT</p>
${body}
<p>Order <code>${order.id}</code></p>
</main>
</body>
</html>
`;
}
