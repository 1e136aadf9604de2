/**
 * STAND-IN (the lead drops this commit): the real sender, from the guarded client's branch, POSTs a signed
 * delivery. This one sends nothing and reports every try as unreachable.
 */
export interface DeliveryOutcome {
  ok: boolean;
  status?: number;
  retryAfterMs?: number;
  error?: { code: string; message: string };
  durationMs: number;
  response: string;
}

export async function sendWebhook(
  _target: { url: string; secrets: readonly string[] },
  _delivery: { id: string; body: string },
): Promise<DeliveryOutcome> {
  return { ok: false, error: { code: 'unreachable', message: 'stand-in' }, durationMs: 0, response: '' };
}
