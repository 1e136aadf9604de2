import type { IntegrationResponse, MethodResponse } from 'aws-cdk-lib/aws-apigateway';
import { CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../shared/cors.ts';

/** A method response header's name in API Gateway's mapping expressions. */
export const header = (name: string) => `method.response.header.${name}`;

/** What the resource's ANY method (method-not-allowed.ts) needs to answer a browser's preflight itself. */
export interface Preflight {
  /** VTL: true for an OPTIONS with Origin and Access-Control-Request-Method (a preflight). */
  condition: string;
  integration: IntegrationResponse;
  method: MethodResponse;
}

/**
 * A browser's preflight (OPTIONS) on a resource, answered by API Gateway itself (a mock integration, no
 * function) when the deployment allows browser origins (shared/cors.ts), in the resource's ANY method: one
 * method a resource, not two. CDK's own `addCorsPreflight` names the first allowed origin to every caller;
 * this names the caller's origin only when it is allowed, and no origin otherwise, as the handlers and the
 * local gateway do. An OPTIONS that is not a preflight (no Origin or no Access-Control-Request-Method) is a
 * method the resource lacks: 405.
 */
export function preflight(methods: readonly string[], origins: readonly string[]): Preflight {
  const matchesAllowed = origins.map((origin) => `$origin == "${origin}"`).join(' || ');
  const staticHeaders: Record<string, string> = {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    Vary: 'Origin',
  };
  // Header names as sent: HTTP/2 clients send them in lower case.
  const present = (name: string) => `"$!headers.get('${name}')$!headers.get('${name.toLowerCase()}')" != ""`;
  return {
    condition: `$context.httpMethod == "OPTIONS" && ${present('Origin')} && ${present('Access-Control-Request-Method')}`,
    integration: {
      statusCode: '204',
      selectionPattern: '204',
      responseParameters: Object.fromEntries(
        Object.entries(staticHeaders).map(([name, value]) => [header(name), `'${value}'`]),
      ),
      // Origins are checked to be a scheme and a host (lib/cdk/settings.ts): safe inside the template.
      responseTemplates: {
        'application/json': [
          // HTTP/2 clients send the name in lower case.
          "#set($origin = $input.params().header.get('Origin'))",
          `#if("$!origin" == "")#set($origin = $input.params().header.get('origin'))#end`,
          `#if(${matchesAllowed})`,
          '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
          '#end',
        ].join('\n'),
      },
    },
    method: {
      statusCode: '204',
      responseParameters: Object.fromEntries(
        [...Object.keys(staticHeaders), 'Access-Control-Allow-Origin'].map((name) => [header(name), true]),
      ),
    },
  };
}
