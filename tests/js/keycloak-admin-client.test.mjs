// Interoperability with Keycloak's own admin library, `@keycloak/keycloak-admin-client` (npm),
// unchanged and pointed at scanid's URL: a service account authenticates with
// client_credentials, manages clients (find, create, update, delete) and identities (find,
// findOne, count, update to disable and enable, groups, sessions, logout, delete). On the
// embedded store, and on DynamoDB (moto) when the test command started the emulator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { startServer, cli, enroll, useEmulator, dynamoFlags } from './helpers.mjs';

const stores = [['SQLite', async () => []]];
if (useEmulator()) stores.push(['DynamoDB', dynamoFlags]);

const running = [];
after(async () => {
  for (const s of running) await s.stop();
});

/** The server on a store, a service account with `roles`, and the admin client as it. */
async function setUp(storeFlags) {
  const flags = await storeFlags();
  const server = await startServer(['--auth-failure-rate-per-minute', '1000', ...flags]);
  running.push(server);
  const store = flags.length ? flags : ['--data-dir', server.dataDir];
  const account = await cli([
    'client',
    'create',
    '--name',
    'Pipeline',
    '--client-id',
    'pipeline',
    '--client-credentials',
    '--admin-role',
    'realm-admin',
    ...store,
  ]);
  const kc = new KcAdminClient({ baseUrl: server.base, realmName: 'scanid' });
  await kc.auth({
    grantType: 'client_credentials',
    clientId: 'pipeline',
    clientSecret: account.client_secret,
  });
  return { server, kc };
}

for (const [name, storeFlags] of stores) {
  let server, kc;
  before(async () => {
    ({ server, kc } = await setUp(storeFlags));
  });

  test(`keycloak-admin-client manages clients (${name})`, async () => {
    const found = await kc.clients.find({ clientId: 'pipeline' });
    assert.deepEqual(
      found.map((c) => c.clientId),
      ['pipeline'],
    );
    assert.ok(
      found.every((c) => !('secret' in c)),
      'a secret in a list',
    );

    const { id } = await kc.clients.create({
      clientId: 'js-shop',
      name: 'JS shop',
      redirectUris: ['https://js.example/cb'],
      webOrigins: ['+'],
    });
    assert.equal(id, 'js-shop');
    const shop = await kc.clients.findOne({ id });
    assert.deepEqual(shop.redirectUris, ['https://js.example/cb']);
    assert.equal(shop.publicClient, false);

    await kc.clients.update({ id }, { name: 'JS shop, renamed', enabled: false });
    const renamed = await kc.clients.findOne({ id });
    assert.equal(renamed.name, 'JS shop, renamed');
    assert.equal(renamed.enabled, false);

    // A behaviour scanid does not have: refused, naming the field.
    await assert.rejects(
      kc.clients.create({ clientId: 'js-implicit', implicitFlowEnabled: true }),
      (e) =>
        e.response?.status === 400 && /implicitFlowEnabled/.test(JSON.stringify(e.responseData)),
    );

    await kc.clients.del({ id });
    assert.equal(await kc.clients.findOne({ id }), null);
  });

  test(`keycloak-admin-client manages identities (${name})`, async () => {
    const alice = await enroll(server, 'alice');
    await enroll(server, 'bob');
    const users = await kc.users.find();
    assert.deepEqual(
      users.map((u) => u.username),
      ['alice', 'bob'],
    );
    assert.equal(await kc.users.count(), 2);
    const [found] = await kc.users.find({ username: 'alice', exact: true });
    assert.equal(found.id, alice.sub);
    const one = await kc.users.findOne({ id: alice.sub });
    assert.equal(one.username, 'alice');
    assert.equal(one.enabled, true);
    assert.deepEqual(one.attributes.service_id, [alice.service_id]);
    assert.equal(one.firstName, '');

    // Groups: added, listed, removed.
    await kc.users.addToGroup({ id: alice.sub, groupId: 'staff' });
    const groups = await kc.users.listGroups({ id: alice.sub });
    assert.deepEqual(
      groups.map((g) => [g.id, g.name, g.path]),
      [['staff', 'staff', '/staff']],
    );
    const members = await kc.groups.listMembers({ id: 'staff' });
    assert.deepEqual(
      members.map((u) => u.id),
      [alice.sub],
    );
    await kc.users.delFromGroup({ id: alice.sub, groupId: 'staff' });
    assert.deepEqual(await kc.users.listGroups({ id: alice.sub }), []);

    // Disabled, then enabled again; a field scanid cannot change is refused by name.
    await kc.users.update({ id: alice.sub }, { enabled: false });
    assert.equal((await kc.users.findOne({ id: alice.sub })).enabled, false);
    await kc.users.update({ id: alice.sub }, { enabled: true });
    assert.equal((await kc.users.findOne({ id: alice.sub })).enabled, true);
    await assert.rejects(
      kc.users.update({ id: alice.sub }, { username: 'mallory' }),
      (e) => e.response?.status === 400 && /username/.test(JSON.stringify(e.responseData)),
    );

    assert.deepEqual(await kc.users.listSessions({ id: alice.sub }), []);
    await kc.users.logout({ id: alice.sub });
    const creds = await kc.users.getCredentials({ id: alice.sub });
    assert.equal(creds[0].type, 'device-key');

    await kc.users.del({ id: alice.sub });
    assert.equal(await kc.users.findOne({ id: alice.sub }), null);
    assert.equal(await kc.users.count(), 1);
  });
}
