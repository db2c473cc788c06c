// A terminal stand-in for Slack's client while the web page doesn't exist: type `/agent …` as a sandbox
// user, see what the bot posts in #agents, click its buttons and fill its forms by number.
import { createInterface } from 'node:readline';

const USERS = { alice: 'U0ALICE', bob: 'U0BOB', carol: 'U0CAROL' };

const blockText = (b) => [
  b.text?.text,
  ...(b.fields ?? []).map((f) => f.text),
  ...(b.type === 'context' ? (b.elements ?? []).map((e) => e.text) : []),
];
const plainText = (message) =>
  (message.blocks?.length ? message.blocks.flatMap(blockText) : [message.text ?? ''])
    .filter(Boolean)
    .join(' | ')
    .replace(/\s+/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .slice(0, 400);

/** Every clickable element of a message: buttons, selects and checkboxes, numbered for `click`. */
const controlsOf = (message) =>
  (message.blocks ?? []).flatMap((b) => [
    ...(b.type === 'actions' ? (b.elements ?? []) : []),
    ...(b.accessory ? [b.accessory] : []),
  ]);

export function startRepl({ sandbox, eventsUrl, channel }) {
  const ws = sandbox.workspace;
  const driver = sandbox.driver(eventsUrl);
  let user = USERS.alice;
  const numbered = [];
  const show = (prefix, message) => {
    const controls = controlsOf(message).map((c) => {
      numbered.push({ ts: message.ts, channel: message.channel ?? channel, control: c });
      const label = c.text?.text ?? c.type;
      const options = c.options ? ` (${c.options.map((o, i) => `${i}:${o.text.text}`).join(', ')})` : '';
      return `[${numbered.length}] ${label}${options}`;
    });
    process.stdout.write(
      `${prefix} ${plainText(message)}${controls.length ? `\n    ${controls.join('  ')}` : ''}\n`,
    );
  };
  ws.on('change', (change) => {
    if (change.kind === 'message' && change.message.channel === channel)
      show(change.message.thread_ts ? '  ↳' : '•', change.message);
    if (change.kind === 'message_changed' && change.message.channel === channel) show('  ✎', change.message);
    if (change.kind === 'ephemeral' && change.ephemeral.user === user) show('  (only you)', change.ephemeral);
    if (
      change.kind === 'view' &&
      change.view.type === 'modal' &&
      change.view.user === user &&
      !change.view.closed
    ) {
      const inputs = (change.view.blocks ?? []).filter((b) => b.type === 'input').map((b) => b.block_id);
      process.stdout.write(
        `  ▢ form "${change.view.title?.text}": fill with  form ${inputs.map((i) => `${i}=…`).join('; ')}\n`,
      );
    }
  });
  process.stdout.write(
    'Type /agent help (or /agent start scenario:approval ship the release notes). Also: as alice|bob|carol, click N [option,…], form block=value; block=value, quit\n',
  );
  const rl = createInterface({ input: process.stdin, prompt: '> ' });
  rl.prompt();
  rl.on('line', async (line) => {
    const input = line.trim();
    try {
      if (input.startsWith('/agent'))
        await driver.command({ user, channel, text: input.slice('/agent'.length).trim() });
      else if (input.startsWith('as ')) {
        user = USERS[input.slice(3).trim()] ?? user;
        process.stdout.write(`  acting as ${user}\n`);
      } else if (input.startsWith('click ')) {
        const [, n, picks] = input.split(/\s+/);
        const target = numbered[Number(n) - 1];
        if (!target) throw new Error(`no control ${n}`);
        const actionId = target.control.action_id;
        const value =
          picks === undefined
            ? undefined
            : target.control.type.includes('multi') || target.control.type === 'checkboxes'
              ? picks.split(',')
              : picks;
        if (value !== undefined && target.control.type === 'checkboxes')
          driver.choose({ user, channel: target.channel, ts: target.ts, actionId, value });
        else
          await driver.act({
            user,
            channel: target.channel,
            ts: target.ts,
            actionId,
            ...(value === undefined ? {} : { value }),
          });
      } else if (input.startsWith('form ')) {
        const modal = driver.openModal(user);
        if (!modal) throw new Error('no form is open');
        const values = {};
        for (const pair of input.slice(5).split(';')) {
          const [block, ...rest] = pair.split('=');
          if (block?.trim()) values[block.trim()] = { value: rest.join('=').trim() };
        }
        const answer = await driver.submitView({ user, viewId: modal.id, values });
        if (answer.body?.errors) process.stdout.write(`  ✗ ${JSON.stringify(answer.body.errors)}\n`);
      } else if (input === 'quit') process.kill(process.pid, 'SIGINT');
      else if (input) process.stdout.write('  ? /agent …, as NAME, click N [options], form a=b; c=d, quit\n');
    } catch (error) {
      process.stdout.write(`  ✗ ${error.message}\n`);
    }
    rl.prompt();
  });
}
