/**
 * STAND-IN (the lead drops this commit): the real check, from the guarded client's branch, refuses a URL
 * that is not on a public address (https in AWS; loopback only under AUTOCONFIGURE_ALLOW_LOOPBACK=1) with a
 * 422 naming `url`. This one only normalises the URL.
 */
export async function checkWebhookUrl(url: string): Promise<string> {
  return new URL(url).href;
}
