/**
 * How the test projects load the workspace's own packages (module loading was most of the suite's
 * CPU time).
 *
 * A package's built `dist/` is reached through a symlink in node_modules, so Vite sees its real path outside
 * node_modules and would transform every one of its modules and run them through its module runner, in every
 * worker. They are plain JavaScript that Node loads as it is: Node imports them itself (faster, and no
 * transform), as it does any dependency. Tests import the packages' `src/` directly where they need
 * internals; those stay transformed, and so covered by `npm run test:coverage`.
 */
export const builtPackagesNative = {
  deps: { external: [/\/packages\/[^/]+\/dist\//] },
};
