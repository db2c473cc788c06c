// `npm start`: the main job on embedded defaults. Until the Slack bot lands, that is the emulator.
process.stdout.write(
  'npm start: running the local Agent Session Service emulator (the Slack bot is not built yet; when it is, npm start runs it).\n',
);
await import('../packages/emulator/dist/cli.js');
