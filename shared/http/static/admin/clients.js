// Clients: list, create, edit, regenerate the secret, disable, delete, import a Keycloak
// export (POST .../partialImport).
import { api } from './api.js';
import { h, screen, say, field, check, table, failure } from './ui.js';

// The console's own client: built in, out of every admin's reach (the API refuses changes).
const CONSOLE = 'scanid-admin-console';

const lines = (s) =>
  s
    .split(/\s+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The clients screen: the list, and the buttons to create or import. */
export async function clients() {
  const res = await api('GET', '/clients?max=500');
  const list = res.ok ? res.data : [];
  const rows = list.map((c) => [
    h('code', {}, c.clientId),
    c.name ?? '',
    c.enabled === false ? 'disabled' : 'enabled',
    c.publicClient ? 'public' : 'confidential',
    c.clientId === CONSOLE
      ? 'built in'
      : h(
          'button',
          { type: 'button', onclick: () => edit(c.clientId), dataset: { edit: c.clientId } },
          `Edit ${c.clientId}`,
        ),
  ]);
  screen(
    'Clients',
    h(
      'div',
      { class: 'buttons' },
      h(
        'button',
        { type: 'button', class: 'primary', id: 'new-client', onclick: create },
        'New client',
      ),
      h(
        'button',
        { type: 'button', id: 'import', onclick: importFile },
        'Import a Keycloak export',
      ),
    ),
    res.ok
      ? table(`${list.length} clients`, ['Client ID', 'Name', 'State', 'Type', ''], rows)
      : failure(res, 'Clients'),
  );
}

function form(id, c, submitLabel, onsubmit) {
  const f = h(
    'form',
    { id },
    c ? null : field('client-id', 'Client ID', { required: true, autocomplete: 'off' }),
    field('client-name', 'Name', { value: c?.name ?? '' }),
    field('redirect-uris', 'Redirect URIs (one a line)', {}, 'textarea'),
    c
      ? null
      : check('public-client', 'Public client (a browser or phone app: no secret, PKCE)', false),
    c ? null : check('service-account', 'Service account (client credentials)', false),
    c ? check('enabled', 'Enabled', c.enabled !== false) : null,
    h('button', { type: 'submit', class: 'primary' }, submitLabel),
  );
  f.querySelector('#redirect-uris').value = (c?.redirectUris ?? []).join('\n');
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    onsubmit(f);
  });
  return f;
}

function create() {
  screen(
    'New client',
    form('client-form', null, 'Create', async (f) => {
      const clientId = f.querySelector('#client-id').value.trim();
      const publicClient = f.querySelector('#public-client').checked;
      const body = {
        clientId,
        name: f.querySelector('#client-name').value.trim() || clientId,
        publicClient,
        redirectUris: lines(f.querySelector('#redirect-uris').value),
        serviceAccountsEnabled: f.querySelector('#service-account').checked,
      };
      body.standardFlowEnabled = body.redirectUris.length > 0;
      const res = await api('POST', '/clients', body);
      if (res.status !== 201) return f.append(failure(res, 'Create'));
      await edit(clientId, publicClient ? null : await newSecret(clientId));
      say(`Client ${clientId} created.`);
    }),
    h('button', { type: 'button', onclick: clients }, 'Back to clients'),
  );
}

async function newSecret(clientId) {
  const res = await api('POST', `/clients/${encodeURIComponent(clientId)}/client-secret`);
  return res.ok ? res.data?.value : null;
}

/** One client: its fields, and what can be done with it. `secret`: a secret just made. */
export async function edit(clientId, secret) {
  const path = `/clients/${encodeURIComponent(clientId)}`;
  const res = await api('GET', path);
  if (!res.ok) return screen(`Client ${clientId}`, failure(res, 'Client'));
  const c = res.data;
  const shown = h('div', { id: 'secret-shown' });
  const showSecret = (value) =>
    shown.replaceChildren(
      h('p', { class: 'note warn' }, 'The secret, shown once: keep it now.'),
      h('p', {}, h('code', { id: 'secret-value' }, value)),
    );
  if (secret) showSecret(secret);
  const f = form('client-form', c, 'Save', async (f) => {
    const body = {
      clientId,
      name: f.querySelector('#client-name').value.trim(),
      redirectUris: lines(f.querySelector('#redirect-uris').value),
      enabled: f.querySelector('#enabled').checked,
    };
    const r = await api('PUT', path, body);
    if (r.status !== 204) return f.append(failure(r, 'Save'));
    say(`Client ${clientId} saved.`);
  });
  const toggle = async () => {
    const r = await api('PUT', path, { clientId, enabled: c.enabled === false });
    if (r.status !== 204) return say(`Client ${clientId}: HTTP ${r.status}`, 'error');
    await edit(clientId);
    say(`Client ${clientId} ${c.enabled === false ? 'enabled' : 'disabled'}.`);
  };
  let armed = false;
  const del = h('button', { type: 'button', class: 'danger', id: 'delete-client' }, 'Delete');
  del.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      del.textContent = `Really delete ${clientId}? Its tokens stop at once`;
      return;
    }
    const r = await api('DELETE', path);
    if (r.status !== 204) return say(`Delete: HTTP ${r.status}`, 'error');
    await clients();
    say(`Client ${clientId} deleted.`);
  });
  screen(
    `Client ${clientId}`,
    h(
      'dl',
      {},
      h('dt', {}, 'Type'),
      h('dd', {}, c.publicClient ? 'public' : 'confidential'),
      h('dt', {}, 'State'),
      h('dd', { id: 'client-state' }, c.enabled === false ? 'disabled' : 'enabled'),
    ),
    shown,
    f,
    h(
      'div',
      { class: 'buttons' },
      c.publicClient
        ? null
        : h(
            'button',
            {
              type: 'button',
              id: 'regenerate-secret',
              onclick: async () => {
                const s = await newSecret(clientId);
                if (s) showSecret(s);
                else say('Regenerate: refused', 'error');
              },
            },
            'Regenerate the secret',
          ),
      h(
        'button',
        { type: 'button', id: 'toggle-client', onclick: toggle },
        c.enabled === false ? 'Enable' : 'Disable',
      ),
      del,
      h('button', { type: 'button', onclick: clients }, 'Back to clients'),
    ),
  );
}

function importFile() {
  const out = h('div', { id: 'import-result' });
  const f = h(
    'form',
    { id: 'import-form' },
    field('import-file', 'A Keycloak realm export (kc.sh export, JSON)', {
      type: 'file',
      accept: 'application/json,.json',
      required: true,
    }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'if-exists' }, 'When a client exists'),
      h(
        'select',
        { id: 'if-exists' },
        ['FAIL', 'SKIP', 'OVERWRITE'].map((v) => h('option', { value: v }, v)),
      ),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Import'),
  );
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const file = f.querySelector('#import-file').files[0];
    if (!file) return;
    let realm;
    try {
      realm = JSON.parse(await file.text());
    } catch {
      return out.replaceChildren(h('p', { class: 'note error' }, 'The file is not JSON.'));
    }
    realm.ifResourceExists = f.querySelector('#if-exists').value;
    const r = await api('POST', '/partialImport', realm);
    if (!r.ok) return out.replaceChildren(failure(r, 'Import'));
    const results = r.data?.results ?? [];
    const notImported = r.data?.notImported ?? [];
    const warnings = r.data?.warnings ?? [];
    out.replaceChildren(
      h(
        'p',
        { class: 'note ok', id: 'import-summary' },
        `Added ${r.data?.added ?? 0}, overwritten ${r.data?.overwritten ?? 0}, skipped ${r.data?.skipped ?? 0}.`,
      ),
      h('h2', {}, 'What came over'),
      h(
        'div',
        { id: 'import-came-over' },
        table(
          `${results.length} clients`,
          ['Client', 'Action'],
          results.map((x) => [x.resourceName ?? '', x.action ?? '']),
        ),
      ),
      h('h2', {}, 'What did not come over'),
      h(
        'div',
        { id: 'import-not-imported' },
        table(
          `${notImported.length} not imported`,
          ['Type', 'Name', 'Why'],
          notImported.map((x) => [x.resourceType ?? '', x.resourceName ?? '', x.reason ?? '']),
        ),
      ),
      h('h2', {}, 'What an imported client lost'),
      warnings.length
        ? h(
            'ul',
            { id: 'import-warnings' },
            warnings.map((w) => h('li', {}, w)),
          )
        : h('p', { class: 'muted' }, 'Nothing.'),
    );
  });
  screen(
    'Import a Keycloak export',
    f,
    out,
    h('button', { type: 'button', onclick: clients }, 'Back to clients'),
  );
}
