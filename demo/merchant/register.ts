/** What a merchant server does once: tell the service where to send webhooks (secret key). */
export async function registerWebhook(apiUrl: string, secretKey: string, url: string): Promise<void> {
  const response = await fetch(apiUrl + '/api/v1/webhook', {
    method: 'PUT',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  if (!response.ok) throw new Error(`registering the webhook answered ${response.status}: ${await response.text()}`);
}
