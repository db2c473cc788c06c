// What a user of n8n 3.0 sees, where unverified community packages are off by default
// (N8N_UNVERIFIED_PACKAGES_ENABLED=false): n8n runs with it set, the packed tarball installed by hand in
// <user folder>/.n8n/nodes. Installing the package from Settings → Community Nodes (its REST call) is
// refused; the hand-installed package loads, and its published trigger goes on polling.
import { fetch, until } from './server.mjs';

export async function checkUnverifiedDisabled({ base, rest, name, emulatorUrl, check, log }) {
  log(`with N8N_UNVERIFIED_PACKAGES_ENABLED=false: installing ${name} from Settings → Community Nodes`);
  const statusReads = async () => (await (await fetch(`${emulatorUrl}/_emulator/stats`)).json()).requests['GET /v1/sessions/:id'] ?? 0;
  const before = await statusReads();
  const install = await rest.postJson('/rest/community-packages', { name });
  const said = String(install?.message ?? JSON.stringify(install));
  log(`  (n8n answered: ${said.slice(0, 200)})`);
  check(/unverified community packages is forbidden/i.test(said), 'n8n refuses to install it from npm ("Installation of unverified community packages is forbidden!")');
  const installed = await rest.get('/rest/community-packages');
  const listed = (installed?.data ?? []).map((p) => p.packageName);
  check(!listed.includes(name), `Settings → Community Nodes does not list the hand-installed package (lists: ${listed.join(', ') || 'none'})`);
  // The package installed by hand is loaded: the published trigger workflow polls the service again.
  await until('the hand-installed trigger to poll', statusReads, (n) => n >= before + 2, 60).then(
    () => check(true, 'the package installed by hand in ~/.n8n/nodes still loads: its published trigger polls'),
    () => check(false, 'the package installed by hand in ~/.n8n/nodes still loads: its published trigger polls'),
  );
}
