// The admin REST API (Keycloak's paths), with the console's token.
import { accessToken, config } from './auth.js';

/** Calls `{auth_url}/admin/realms/{realm}{path}`; resolves to `{ status, data, missing }`
 * (`missing`: a 404 with no JSON body, i.e. the server has no such call). */
export async function api(method, path, body) {
  const headers = { authorization: `Bearer ${accessToken() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${config.base}realms/${encodeURIComponent(config.realm)}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // The router's own 404 ("no such resource") or a 405: the server has no such call (yet),
  // and the screen says "not available" (a 404 of the admin API names the missing object).
  const missing =
    res.status === 405 ||
    (res.status === 404 && (!data || data.error_description === 'no such resource'));
  if (res.status === 401) document.dispatchEvent(new CustomEvent('console-expired'));
  return { status: res.status, ok: res.ok, data, missing, location: res.headers.get('location') };
}
