import { isoMicros } from '../../shared/data/dynamo.ts';
import { reviseWebhookEndpoint, withRotatedSecret } from '../../shared/data/webhook-endpoints.ts';
import { newSigningSecret } from '../../shared/domain/webhook-signing.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** A new secret, shown in this answer only; the one it replaces signs too for another 24 hours. */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  const secret = newSigningSecret();
  const { endpoint, version } = await reviseWebhookEndpoint(req.teamId, id, (current) =>
    withRotatedSecret(current, secret, Date.now()),
  );
  const previous = endpoint.secrets[1];
  return tagged(ok({ secret, previous_secret_expires_at: expiry(previous?.expires_at) }), 'webhook', {
    version,
  });
});

/** As the API prints every timestamp: with microseconds. */
const expiry = (ms: number | null | undefined) => (ms ? isoMicros(new Date(ms)) : null);
