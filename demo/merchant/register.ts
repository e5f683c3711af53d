/** What a merchant server does once: tell the service where to send webhooks (secret key). */
export async function registerWebhook(apiUrl: string, secretKey: string, url: string): Promise<{ url: string; secret: string }> {
  const response = await fetch(apiUrl + '/api/v1/webhook', {
    method: 'PUT',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  if (!response.ok) throw new Error(`registering the webhook answered ${response.status}: ${await response.text()}`);
  return (await response.json()).data;
}

/** The merchant's webhook endpoint as the service has it: the URL (or null) and the signing secret. */
export async function readWebhook(apiUrl: string, secretKey: string): Promise<{ url: string | null; secret: string }> {
  const response = await fetch(apiUrl + '/api/v1/webhook', { headers: { authorization: `Bearer ${secretKey}` } });
  if (!response.ok) throw new Error(`reading the webhook answered ${response.status}: ${await response.text()}`);
  return (await response.json()).data;
}
