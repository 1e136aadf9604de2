import {
  AuthorizationType,
  type IResource,
  type Method,
  MockIntegration,
  PassthroughBehavior,
} from 'aws-cdk-lib/aws-apigateway';
import { CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../shared/cors.ts';
import { methodNotAllowedResponse } from './method-not-allowed.ts';
import { acknowledgePublicMethod } from './nag.ts';

/**
 * A browser's preflight (OPTIONS) on a resource, answered by API Gateway itself (a mock integration, no
 * function) when the deployment allows browser origins (shared/cors.ts). CDK's own `addCorsPreflight` names
 * the first allowed origin to every caller; this names the caller's origin only when it is allowed, and no
 * origin otherwise, as the handlers and the local gateway do. An OPTIONS that is not a preflight (no Origin or
 * no Access-Control-Request-Method) is a method the resource lacks: the 405 of lib/cdk/method-not-allowed.ts.
 */
export function addCorsPreflight(
  resource: IResource,
  methods: readonly string[],
  origins: readonly string[],
): Method {
  const matchesAllowed = origins.map((origin) => `$origin == "${origin}"`).join(' || ');
  const staticHeaders: Record<string, string> = {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    Vary: 'Origin',
  };
  const header = (name: string) => `method.response.header.${name}`;
  const notAllowed = methodNotAllowedResponse(resource.path, methods);
  // Header names as sent: HTTP/2 clients send them in lower case.
  const present = (name: string) => `"$!headers.get('${name}')$!headers.get('${name.toLowerCase()}')" != ""`;
  const integration = new MockIntegration({
    passthroughBehavior: PassthroughBehavior.NEVER,
    requestTemplates: {
      'application/json': [
        '#set($headers = $input.params().header)',
        `#if(${present('Origin')} && ${present('Access-Control-Request-Method')})`,
        '{"statusCode": 204}',
        '#else',
        '{"statusCode": 405}',
        '#end',
      ].join('\n'),
    },
    integrationResponses: [
      {
        statusCode: '204',
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
      // A mock's integration response is chosen by the statusCode its request template gives.
      { ...notAllowed.integration, selectionPattern: '405' },
    ],
  });
  const method = resource.addMethod('OPTIONS', integration, {
    authorizationType: AuthorizationType.NONE,
    methodResponses: [
      {
        statusCode: '204',
        responseParameters: Object.fromEntries(
          [...Object.keys(staticHeaders), 'Access-Control-Allow-Origin'].map((name) => [header(name), true]),
        ),
      },
      notAllowed.method,
    ],
  });
  acknowledgePublicMethod(
    method,
    'A CORS preflight carries no credentials by design; it answers headers only.',
  );
  return method;
}
