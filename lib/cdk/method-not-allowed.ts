import {
  AuthorizationType,
  type IntegrationResponse,
  type IResource,
  type Method,
  type MethodResponse,
  MockIntegration,
  PassthroughBehavior,
} from 'aws-cdk-lib/aws-apigateway';
import { methodNotAllowed } from '../../shared/http/messages.ts';
import { header, type Preflight } from './cors.ts';
import { acknowledgePublicMethod } from './nag.ts';

/**
 * The media types of a body the mock may be sent: it never reads the body, but API Gateway picks a request
 * template by Content-Type (none counts as application/json) and refuses a type without one (415): with
 * PassthroughBehavior.NEVER, since a body passed through would be parsed for the mock's statusCode (500).
 */
const BODY_MEDIA_TYPES = [
  'application/json',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
  'application/octet-stream',
];

/**
 * The 405 of a resource with these methods, as API Gateway's integration and method response: `Allow` is
 * static (the route table's methods of the path), the message names the request's method as the local
 * gateway does, and X-Request-Id is the request id, as on every gateway-made error.
 */
export function methodNotAllowedResponse(
  path: string,
  methods: readonly string[],
): { integration: IntegrationResponse; method: MethodResponse } {
  // Route paths are literal segments and `{name}`s: nothing VTL or JSON would read as syntax.
  const body = JSON.stringify({ message: methodNotAllowed('$context.httpMethod', path, methods) });
  return {
    integration: {
      statusCode: '405',
      responseParameters: {
        [header('Allow')]: `'${methods.join(', ')}'`,
        [header('X-Request-Id')]: 'context.requestId',
      },
      responseTemplates: { 'application/json': body },
    },
    method: {
      statusCode: '405',
      responseParameters: { [header('Allow')]: true, [header('X-Request-Id')]: true },
    },
  };
}

/**
 * Every other method of a resource (HEAD and OPTIONS too) is answered 405 by API Gateway itself: an `ANY`
 * method, which the resource's own methods take precedence over, with a mock integration, so neither the
 * authorizer nor a function runs. Without it API Gateway answers a missing method as an unknown path
 * (MISSING_AUTHENTICATION_TOKEN, the stack's 404). When the deployment allows browser origins, the same
 * method answers a preflight (cors.ts): a resource has one method beside its routes', not two.
 */
export function addMethodNotAllowed(
  resource: IResource,
  methods: readonly string[],
  cors?: Preflight,
): Method {
  const response = methodNotAllowedResponse(resource.path, methods);
  const requestTemplate = cors
    ? [
        '#set($headers = $input.params().header)',
        `#if(${cors.condition})`,
        '{"statusCode": 204}',
        '#else',
        '{"statusCode": 405}',
        '#end',
      ].join('\n')
    : '{"statusCode": 405}';
  const integration = new MockIntegration({
    passthroughBehavior: PassthroughBehavior.NEVER,
    requestTemplates: Object.fromEntries(BODY_MEDIA_TYPES.map((type) => [type, requestTemplate])),
    // The 405 is the default response; the preflight's is chosen by the statusCode its template gives.
    integrationResponses: cors ? [cors.integration, response.integration] : [response.integration],
  });
  const method = resource.addMethod('ANY', integration, {
    authorizationType: AuthorizationType.NONE,
    methodResponses: cors ? [cors.method, response.method] : [response.method],
  });
  acknowledgePublicMethod(
    method,
    'Answers 405, or a CORS preflight, from API Gateway (a mock integration): no function runs and no team ' +
      'data is read, so a token would protect nothing; the stage web ACL still counts the request.',
  );
  return method;
}
