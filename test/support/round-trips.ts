import { dynamo } from '../../shared/data/dynamo.ts';

/**
 * Records the DynamoDB calls this process makes (the local gateway runs handlers in-process, so they share
 * the one client). A wrapper around the real client: nothing is mocked.
 */
interface Call {
  command: string;
  input: Record<string, unknown>;
}

const calls: Call[] = [];
dynamo().middlewareStack.add(
  (next, context) => async (args) => {
    calls.push({ command: context.commandName ?? '?', input: args.input as Record<string, unknown> });
    return next(args);
  },
  { step: 'initialize', name: 'recordRoundTrips' },
);

/**
 * Plumbing that is not the endpoint's own work: the authorizer's token read, id block reservations, the
 * local gateway's read of the team's rate limit plan (API Gateway knows it without a read).
 */
function isPlumbing(call: Call): boolean {
  const key = JSON.stringify(call.input.Key ?? {});
  return (
    key.includes('TOKEN#') || key.includes('SEQ#') || call.input.ProjectionExpression === 'rate_limit_plan'
  );
}

/** The endpoint's own DynamoDB calls made while `action` runs, by command name (e.g. `GetItemCommand`). */
export async function roundTrips<T>(action: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const start = calls.length;
  const result = await action();
  return {
    result,
    calls: calls
      .slice(start)
      .filter((call) => !isPlumbing(call))
      .map((call) => call.command),
  };
}
